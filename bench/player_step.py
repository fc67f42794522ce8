"""How long a Step takes in the player (an exported run), against the click of a trivial Streamlit page beside it.

Exports the runaway script (40 turns) with `python -m agent export-html`, opens it from `file://` in Debian's
Chromium, and starts a trivial Streamlit page (one button, one counter). Times click-to-visible, in turn so both
see the same machine: a Step at turn 2 and at turns 36-40 (from the click until the status line and the console
show the new turn) against a click of the trivial page's button until its counter shows the new count, both timed
inside the page (a click, then every animation frame looks for the new text). Then, in
the exported page, the work of a Step at turn 40 inside the browser (the key's handler, the redraw and the layout
it forces, timed with performance.now), repeated, against one 16 ms frame. Last, the player on the sandbox page
itself, on Start here and on All controls (its Run view, with Every turn too, and Messages with Chat Completions
beside them), timed the same way beside the trivial page (on the Run views, until the graph shows the new turn),
with the websocket messages the page sent.

    python bench/player_step.py [--repeats 3] [--frame-repeats 40]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import ROOT, SandboxServer, launch_chromium, wait_for_idle  # noqa: E402
from page_step import TURN_VISIBLE, median_ms, write_trivial_app  # noqa: E402

# In the page: reset, step to turn 39, then time the Step to turn 40 until its redraw is laid out.
STEP_WORK = """async () => {
  const key = (name) => document.dispatchEvent(new KeyboardEvent("keydown", {key: name, bubbles: true}));
  key("r");
  for (let i = 0; i < 39; i++) key("s");
  await new Promise((done) => setTimeout(done, 0));
  const started = performance.now();
  key("s");
  await null; await null;  // the graph's cached SVG goes in as a microtask
  document.body.offsetHeight;  // the layout the redraw needs, forced now rather than at the next frame
  return performance.now() - started;
}"""


# Click to visible, timed inside the page for both pages (a round trip to Playwright would be most of a Step):
# the button clicked, then each animation frame looks for the new text.
CLICK_TO_VISIBLE = """async ([button, shown]) => {
  const visible = new Function("return (" + shown.check + ")(" + JSON.stringify(shown.arg) + ")");
  const started = performance.now();
  [...document.querySelectorAll("button")].find((b) => b.innerText.trim() === button).click();
  while (!visible()) {
    if (performance.now() - started > 30000) throw new Error("never shown");
    await new Promise((frame) => requestAnimationFrame(frame));
  }
  return (performance.now() - started) / 1000;
}"""
COUNT_VISIBLE = "n => document.body.innerText.includes(`count ${n}`)"


def click_in_page(page, button: str, check: str, arg: int) -> float:
    return page.evaluate(CLICK_TO_VISIBLE, [button, {"check": check, "arg": arg}])


def player_step(page, turn: int) -> float:
    return click_in_page(page, "Step", TURN_VISIBLE, turn)


def trivial_click(page, count: int) -> float:
    seconds = click_in_page(page, "Click", COUNT_VISIBLE, count)
    wait_for_idle(page)
    return seconds


# The same timing on the Streamlit page's player (Start here, All controls): its buttons and status are in the
# component's shadow root.
PLAYER_ROOT = '[...document.querySelectorAll("*")].map((e) => e.shadowRoot).find((r) => r && r.querySelector(".lsp"))'
# With `graph`, until the run graph shows the new turn too (its next Step's node): the graph is drawn a moment after
# the status line when it was not laid out ahead.
PAGE_CLICK_TO_VISIBLE = """async ([turn, graph]) => {
  const root = __ROOT__;
  const status = root.querySelector(".lsp-status-text");
  const drawn = () => !graph || turn === 40 || [...root.querySelectorAll(".lsp-graph svg text")].some(
    (text) => text.textContent === `ask ${turn + 1}`);
  const started = performance.now();
  [...root.querySelectorAll("button")].find((b) => b.textContent.trim() === "Step").click();
  const shown = () => status.textContent.startsWith(`turn ${turn} of`) && drawn();
  // What the click's own microtasks draw (a graph laid out ahead goes in as one) is painted with it.
  for (let i = 0; i < 10 && !shown(); i++) await null;
  while (!shown()) {
    if (performance.now() - started > 30000) throw new Error("never shown");
    await new Promise((frame) => requestAnimationFrame(frame));
  }
  return (performance.now() - started) / 1000;
}""".replace("__ROOT__", PLAYER_ROOT)
PAGE_RESET = f"() => {PLAYER_ROOT}.querySelector(\"button[title^='The run again']\").click()"


# The player on the sandbox page: (its name here, layout, a switch turned on, the view picked on All controls).
PAGE_PLAYERS = [("Start here's", "start", "", "run"), ("All controls'", "all", "", "run"),
                ("All controls' with Every turn", "all", "Every turn", "run"),
                ("All controls' Messages with Chat Completions", "all", "Beside it: Chat Completions", "messages")]


def page_player(browser, url: str, repeats: int, plain, clicks: int, layout: str, switch: str = "",
                view: str = "run") -> tuple[list, list, list, int, int, int]:
    """The player on the sandbox page (`layout`: start, all; on All controls the `view` picked, with its `switch`
    turned on): Steps timed beside the trivial page's clicks, the websocket messages the page sent while stepping
    (each would be a rerun on the server), and the trivial page's count of clicks so far."""
    page = browser.new_context(viewport={"width": 1440, "height": 1300}).new_page()
    sent: list[int] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda _: sent.append(1)))
    page.goto(f"{url}/?controls={layout}&script=runaway&predict=off" + (f"&view={view}" if layout == "all" else ""))
    page.locator(".lsp-status-text").wait_for(timeout=30_000)
    wait_for_idle(page)
    if switch:  # the page's own switch: a server run, then the player drawn again
        page.get_by_text(switch, exact=True).click()
        wait_for_idle(page)
        page.locator(".lsp-status-text").wait_for(timeout=30_000)
    page.wait_for_timeout(3_000)  # the graphs laid out ahead while the page is idle
    early, late, trivial = [], [], []
    before, steps = len(sent), 0
    for _ in range(repeats):
        page.evaluate(PAGE_RESET)
        for turn in range(1, 41):
            seconds = page.evaluate(PAGE_CLICK_TO_VISIBLE, [turn, view == "run"])
            steps += 1
            if turn == 2 or turn >= 36:
                (early if turn == 2 else late).append(seconds)
                clicks += 1
                trivial.append(trivial_click(plain, clicks))
    page.context.close()
    return early, late, trivial, steps, len(sent) - before, clicks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of 40 Steps")
    parser.add_argument("--frame-repeats", type=int, default=40, help="Steps at turn 40 timed inside the page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    early, late, trivial = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        exported = Path(folder) / "runaway.html"
        subprocess.run([sys.executable, "-m", "agent", "export-html", "runaway", "-o", str(exported)], check=True,
                       cwd=ROOT, capture_output=True)
        trivial_app = write_trivial_app(Path(folder))
        with SandboxServer(trivial_app) as other, sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_context(viewport={"width": 1440, "height": 1300}).new_page()
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(exported.as_uri())
            page.locator(".lsp-graph svg").wait_for(timeout=30_000)
            page.wait_for_timeout(3_000)  # the graphs laid out ahead while the page is idle
            plain = browser.new_context(viewport={"width": 1440, "height": 1300}).new_page()
            plain.goto(other.url)
            plain.get_by_role("button", name="Click").wait_for(timeout=30_000)
            wait_for_idle(plain)
            clicks = 0
            for _ in range(args.repeats):
                page.get_by_role("button", name="Reset").click()
                player_step(page, 1)
                for turn in range(2, 41):
                    seconds = player_step(page, turn)
                    if turn == 2 or turn >= 36:
                        (early if turn == 2 else late).append(seconds)
                        clicks += 1
                        trivial.append(trivial_click(plain, clicks))
            work = [page.evaluate(STEP_WORK) for _ in range(args.frame_repeats)]
            with SandboxServer() as sandbox:
                on_page = {}
                for name, layout, switch, view in PAGE_PLAYERS:
                    on_page[name] = page_player(browser, sandbox.url, args.repeats, plain, clicks, layout, switch,
                                                view)
                    clicks = on_page[name][-1]
            browser.close()
    print(f"trivial Streamlit page, click to visible (ms): {[round(s * 1000) for s in trivial]}")
    print(f"player Step at turn 2 (ms):                    {[round(s * 1000) for s in early]}")
    print(f"player Step at turns 36-40 (ms):               {[round(s * 1000) for s in late]}")
    base = median_ms(trivial)
    print(f"median trivial: {base:.0f} ms   turn 2: {median_ms(early):.0f} ms   turns 36-40: {median_ms(late):.0f} ms")
    print(f"ratio to the trivial page: turn 2 {median_ms(early) / base:.2f}x   turns 36-40 "
          f"{median_ms(late) / base:.2f}x   (target: at most 0.3)")
    for name, *_ in PAGE_PLAYERS:
        page_early, page_late, page_trivial, steps, sent, _ = on_page[name]
        page_base = median_ms(page_trivial)
        print(f"{name} player on the page, Step at turn 2 (ms):   {[round(s * 1000) for s in page_early]}")
        print(f"{name} player on the page, turns 36-40 (ms):      {[round(s * 1000) for s in page_late]}")
        print(f"trivial page beside it (ms):                        {[round(s * 1000) for s in page_trivial]}")
        print(f"{name} player: ratio to the trivial page: turn 2 {median_ms(page_early) / page_base:.2f}x   "
              f"turns 36-40 {median_ms(page_late) / page_base:.2f}x   (target: at most 0.3)")
        print(f"{name} player: websocket messages the page sent for {steps} Steps in its player: {sent} (each would "
              "be a rerun: none means no server CPU for these Steps)")
    p95 = statistics.quantiles(work, n=20)[-1]
    print(f"a Step at turn 40 inside the exported page: median {statistics.median(work):.1f} ms, p95 {p95:.1f} ms "
          f"over {len(work)} (one frame: 16 ms)")
    alone = requests == [exported.as_uri()]
    print(f"requests the exported page made: {len(requests)} ({'only itself' if alone else requests})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
