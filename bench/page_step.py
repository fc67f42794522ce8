"""How long a Step takes in a real browser, early in a run and late in it.

Starts `streamlit run sandbox_app.py` on a free port, opens it in Debian's
Chromium through Playwright, picks the runaway script (40 turns, ends at the
turn limit) and times click-to-visible of a Step at turn 2 and at turn 40:
from the click until the page shows the new turn everywhere it is drawn on the
Run tab (the turn counter, the console line and the run graph's new node).
Prints each timing, the medians and their ratio; a late Step should cost what
an early one does (target: within 1.5x).

    python bench/page_step.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser_support import SandboxServer, launch_chromium, open_page, wait_for_idle  # noqa: E402

RUNAWAY_TITLE = "A runaway model that never stops"

# True once turn n is on screen: the counter, the console's line and the graph's node for its call.
TURN_VISIBLE = """n => {
  const text = document.body.innerText;
  if (!text.includes(`turn ${n} of 40`) || !text.includes(`turn ${n}: add`)) return false;
  const labels = Array.from(document.querySelectorAll('svg text'), t => t.textContent);
  return labels.some(l => l.startsWith(`add {"a": ${n}, "b": 1}`));
}"""


def step_and_time(page, turn: int) -> float:
    started = time.perf_counter()
    page.get_by_role("button", name="Step").click()
    page.wait_for_function(TURN_VISIBLE, arg=turn, timeout=30_000, polling="raf")
    seconds = time.perf_counter() - started
    wait_for_idle(page)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed Steps at each of turn 2 and turn 40")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    early, late = [], []
    with SandboxServer() as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = open_page(browser, server.url)
        page.get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name=RUNAWAY_TITLE).click()
        wait_for_idle(page)
        for _ in range(args.repeats):
            page.get_by_role("button", name="Reset").click()
            wait_for_idle(page)
            step_and_time(page, 1)  # turn 1 builds the slider; turn 2 is the first like every later one
            early.append(step_and_time(page, 2))
            for turn in range(3, 40):
                step_and_time(page, turn)
            late.append(step_and_time(page, 40))
        browser.close()
    ms = [round(s * 1000) for s in early], [round(s * 1000) for s in late]
    print(f"Step at turn 2,  click to visible (ms): {ms[0]}")
    print(f"Step at turn 40, click to visible (ms): {ms[1]}")
    early_median, late_median = statistics.median(early) * 1000, statistics.median(late) * 1000
    print(f"median turn 2: {early_median:.0f} ms   median turn 40: {late_median:.0f} ms   "
          f"ratio turn 40 / turn 2: {late_median / early_median:.2f} (target: at most 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
