"""How long a Step takes on a forked run, against the same Step on the run it was forked from.

Starts `streamlit run sandbox_app.py`, opens two sessions in Debian's Chromium,
picks the runaway script (40 turns) in both and steps each to turn 20. The
first steps on as it is; the second forks after turn 20 (Change the past) and
steps the branch on, first with the panel closed, then with it open. Each
Step is timed click-to-visible, as `bench/page_step.py` times it, and after each
one the trivial page's click (one button, one counter) is timed beside it. Prints
the timings, the medians, the ratios to the unforked run, and the ratios to the
trivial page (the teaching issue's bound: at most 2).

    python bench/branch_step.py [--steps 6]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]

from browser_support import SandboxServer, launch_chromium, open_page, wait_for_idle  # noqa: E402
from page_step import RUNAWAY_TITLE, click_and_time, step_and_time, write_trivial_app  # noqa: E402

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

    trivial: list[float] = []

    def timed_steps(page, first: int) -> list[float]:
        """`args.steps` Steps from turn `first`, each followed by a trivial click timed beside it."""
        seconds = []
        for turn in range(first, first + args.steps):
            seconds.append(step_and_time(page, turn)[0])
            trivial.append(click_and_time(plain, len(trivial) + 1))
        return seconds

    with tempfile.TemporaryDirectory() as folder:
        trivial_app = write_trivial_app(Path(folder))
        with SandboxServer() as server, SandboxServer(trivial_app) as other, sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            plain = browser.new_context(viewport={"width": 1440, "height": 1300}).new_page()
            plain.goto(other.url)
            plain.get_by_role("button", name="Click").wait_for(timeout=30_000)
            wait_for_idle(plain)
            unforked = timed_steps(runaway_at_turn_20(browser, server.url), FORK_AT + 1)
            forked_page = runaway_at_turn_20(browser, server.url)
            toggle_panel(forked_page)
            forked_page.get_by_role("button", name=f"Fork here, after turn {FORK_AT}").click()
            wait_for_idle(forked_page)
            toggle_panel(forked_page)  # closed again
            closed = timed_steps(forked_page, FORK_AT + 1)
            toggle_panel(forked_page)
            opened = timed_steps(forked_page, FORK_AT + 1 + args.steps)
            browser.close()
    cases = {"the run itself": unforked, "a fork, panel closed": closed, "a fork, panel open": opened}
    base, plain_click = statistics.median(unforked), statistics.median(trivial)
    print(f"trivial page, click to visible (ms): {[round(s * 1000) for s in trivial]}  "
          f"median {plain_click * 1000:.0f} ms")
    for name, seconds in cases.items():
        median = statistics.median(seconds)
        print(f"Step on {name:<22} click to visible (ms): {[round(s * 1000) for s in seconds]}  "
              f"median {median * 1000:.0f} ms  ratio to the run itself: {median / base:.2f}  "
              f"to the trivial page: {median / plain_click:.2f}x")
    print("target: at most 2x the trivial page (the teaching issue's bound)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
