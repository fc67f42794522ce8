"""How long a Step takes on a forked run, against the same Step on the run it was forked from.

Starts `streamlit run sandbox_app.py`, opens two sessions in Debian's Chromium,
picks the runaway script (40 turns) in both and steps each to turn 20. The
first steps on as it is; the second forks after turn 20 (Change the past) and
steps the branch on, first with the panel closed, then with it open. Each
Step is timed click-to-visible, as `bench/page_step.py` times it. Prints the
timings, the medians and the ratios to the unforked run (target: within 1.5x).

    python bench/branch_step.py [--steps 6]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]

from browser_support import SandboxServer, launch_chromium, open_page, wait_for_idle  # noqa: E402
from page_step import RUNAWAY_TITLE, step_and_time  # noqa: E402

PANEL = "Change the past: fork at a turn, inject a fault, be the model"
FORK_AT = 20


def runaway_at_turn_20(browser, url: str):
    page = open_page(browser, url)
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=RUNAWAY_TITLE).click()
    wait_for_idle(page)
    for turn in range(1, FORK_AT + 1):
        step_and_time(page, turn)
    return page


def toggle_panel(page) -> None:
    page.get_by_text(PANEL).click()
    wait_for_idle(page)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6, help="timed Steps in each case")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with SandboxServer() as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        plain = runaway_at_turn_20(browser, server.url)
        unforked = [step_and_time(plain, turn) for turn in range(FORK_AT + 1, FORK_AT + 1 + args.steps)]
        forked_page = runaway_at_turn_20(browser, server.url)
        toggle_panel(forked_page)
        forked_page.get_by_role("button", name=f"Fork here, after turn {FORK_AT}").click()
        wait_for_idle(forked_page)
        toggle_panel(forked_page)  # closed again
        start = FORK_AT + 1
        closed = [step_and_time(forked_page, turn) for turn in range(start, start + args.steps)]
        toggle_panel(forked_page)
        start += args.steps
        opened = [step_and_time(forked_page, turn) for turn in range(start, start + args.steps)]
        browser.close()
    cases = {"the run itself": unforked, "a fork, panel closed": closed, "a fork, panel open": opened}
    base = statistics.median(unforked)
    for name, seconds in cases.items():
        median = statistics.median(seconds)
        print(f"Step on {name:<22} click to visible (ms): {[round(s * 1000) for s in seconds]}  "
              f"median {median * 1000:.0f} ms  ratio to the run itself: {median / base:.2f}")
    print("target: each ratio at most 1.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
