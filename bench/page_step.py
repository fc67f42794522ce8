"""How long a Step takes in a real browser, against the click of a trivial Streamlit page measured beside it.

Starts `streamlit run sandbox_app.py` and a trivial page (one button, one
counter) on free ports, opens both in one Debian Chromium through Playwright,
picks the runaway script (40 turns, ends at the turn limit) and times
click-to-visible: a Step at turn 2 and at turns 36-40 (from the click until the
page shows the new turn in the status line and the console), and a click of the
trivial page's button until its counter shows the new count, taken in turn with
the Steps so both see the same machine. Prints every timing, the medians, and
the two ratios to the trivial click (target: at most 2), and how many websocket
messages a Step sent.

    python bench/page_step.py [--repeats 3] [--app PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from browser_support import ROOT, SandboxServer, launch_chromium, open_page, wait_for_idle  # noqa: E402

RUNAWAY_TITLE = "A runaway model that never stops"
# The floor is served as the sandbox is (the launcher: no delayed-acknowledgement stall), so a ratio to it
# is the page's own work.
TRIVIAL_PAGE = f"""import sys
sys.path.insert(0, {str(ROOT)!r})
import streamlit as st
if st.button("Click"):
    st.session_state.count = st.session_state.get("count", 0) + 1
st.write(f"count {{st.session_state.get('count', 0)}}")
"""


def write_trivial_app(folder: Path, page: str = TRIVIAL_PAGE) -> Path:
    """The trivial page in `folder`, with the sandbox's own .streamlit/config.toml beside it (Streamlit reads it
    from the folder it starts in): the floor runs under the same settings as the page it is the floor for."""
    (folder / ".streamlit").mkdir(parents=True, exist_ok=True)
    (folder / ".streamlit" / "config.toml").write_text((ROOT / ".streamlit" / "config.toml").read_text())
    app = folder / "trivial_app.py"
    app.write_text(page)
    return app


# True once turn n is on screen: the status line and the console's line for its call.
TURN_VISIBLE = """n => {
  const text = document.body.innerText;
  return text.includes(`turn ${n} of 40`) && text.includes(`turn ${n}: add`);
}"""


class FrameCounter:
    """Counts the websocket frames the server sends a page."""

    def __init__(self, page) -> None:
        self.received = 0
        page.on("websocket", lambda ws: ws.on("framereceived", self._one))

    def _one(self, _frame) -> None:
        self.received += 1


def step_and_time(page, turn: int, frames: FrameCounter | None = None) -> tuple[float, int]:
    before = frames.received if frames else 0
    started = time.perf_counter()
    page.get_by_role("button", name="Step").click()
    page.wait_for_function(TURN_VISIBLE, arg=turn, timeout=30_000, polling="raf")
    seconds = time.perf_counter() - started
    wait_for_idle(page)
    return seconds, (frames.received - before if frames else 0)


def click_and_time(page, count: int) -> float:
    started = time.perf_counter()
    page.get_by_role("button", name="Click").click()
    page.wait_for_function("n => document.body.innerText.includes(`count ${n}`)", arg=count, timeout=30_000,
                           polling="raf")
    seconds = time.perf_counter() - started
    wait_for_idle(page)
    return seconds


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of 40 Steps")
    parser.add_argument("--app", type=Path, default=ROOT / "sandbox_app.py", help="the page to measure")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    early, late, trivial, frames_per_step = [], [], [], []
    with tempfile.TemporaryDirectory() as folder:
        trivial_app = write_trivial_app(Path(folder))
        with SandboxServer(args.app, tuned=True) as server, SandboxServer(trivial_app, tuned=True) as other, \
                sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            counters: list[FrameCounter] = []
            page = open_page(browser, server.url, on_page=lambda p: counters.append(FrameCounter(p)))
            frames = counters[0]
            page.get_by_test_id("stSelectbox").first.click()
            page.get_by_role("option", name=RUNAWAY_TITLE).click()
            wait_for_idle(page)
            plain = browser.new_context(viewport={"width": 1440, "height": 1300}).new_page()
            plain.goto(other.url)
            plain.get_by_role("button", name="Click").wait_for(timeout=30_000)
            wait_for_idle(plain)
            clicks = 0
            for _ in range(args.repeats):
                page.get_by_role("button", name="Reset").click()
                wait_for_idle(page)
                step_and_time(page, 1)  # turn 1 builds the slider; turn 2 is the first like every later one
                for turn in range(2, 41):
                    seconds, sent = step_and_time(page, turn, frames)
                    if turn == 2 or turn >= 36:
                        (early if turn == 2 else late).append(seconds)
                        frames_per_step.append(sent)
                        clicks += 1
                        trivial.append(click_and_time(plain, clicks))
            browser.close()
    print(f"trivial page, click to visible (ms):  {[round(s * 1000) for s in trivial]}")
    print(f"Step at turn 2 (ms):                  {[round(s * 1000) for s in early]}")
    print(f"Step at turns 36-40 (ms):             {[round(s * 1000) for s in late]}")
    print(f"websocket messages a Step sent:       {sorted(set(frames_per_step))}")
    base = median_ms(trivial)
    print(f"median trivial: {base:.0f} ms   turn 2: {median_ms(early):.0f} ms   turns 36-40: {median_ms(late):.0f} ms")
    print(f"ratio to the trivial page: turn 2 {median_ms(early) / base:.2f}x   turns 36-40 "
          f"{median_ms(late) / base:.2f}x   (target: at most 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
