"""How much of a Step is Streamlit's own: the server CPU of a run, of an element, and of a Step, measured side by side.

Serves, on ports of 127.0.0.1 under the sandbox's own .streamlit/config.toml: the trivial page (one button
and a counter, a full rerun: the class-load benchmark's floor), the same button and counter in a fragment
with 0, 5 and 25 more markdown lines (a fragment rerun, as a Step is), and the sandbox itself. One session
presses each page's button back to back over Streamlit's websocket (the sandbox: Step through the runaway
script), the pages taking turns, round by round; the figure is the server process's CPU time (/proc) a
press, median over the rounds. From them: what a fragment run costs with nothing in it, what one more
element costs, and what is left of a Step when those are taken away.

Then, in this process: the page's own Python a Step (the checked step, the screen, the run graph, the
link), timed around each call; and two pieces of Streamlit 1.67's per-run and per-message work, timed with timeit: the
`new_session` message it builds at the start of every run, fragment runs included (`AppSession.
_create_new_session_message`'s config and six theme sections), and the deterministic serialisation and MD5
it gives every message before sending it (`populate_hash_if_needed`), for a one-line markdown element.

    python bench/streamlit_share.py [--rounds 5] [--presses 300]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / "tests"), str(Path(__file__).resolve().parent)]
from browser_support import ROOT  # noqa: E402
from load_servers import process_cpu_seconds  # noqa: E402
from page_step import RUNAWAY_TITLE, write_trivial_app  # noqa: E402
from step_cpu import cpu_a_step, start  # noqa: E402
from streamlit_session import StreamlitSession  # noqa: E402

FRAGMENT_PAGE = """import sys
sys.path.insert(0, {root!r})
import streamlit as st


@st.fragment
def counted() -> None:
    if st.button("Click"):
        st.session_state.count = st.session_state.get("count", 0) + 1
    st.write(f"count {{st.session_state.get('count', 0)}}")
    for line in range({lines}):
        st.markdown(f"line {{line}} **of** {{st.session_state.get('count', 0)}}")


counted()
"""
LINES = (0, 5, 25)


async def cpu_a_click(url: str, pid: int, presses: int) -> float:
    """Server CPU milliseconds a press of the page's one button, over `presses` presses."""
    session = await StreamlitSession.open(url)
    began = process_cpu_seconds(pid)
    for _ in range(presses):
        await session.rerun(*session.press("Click"))
    spent = process_cpu_seconds(pid) - began
    await session.close()
    return spent / presses * 1000


def streamlit_pieces() -> tuple[float, float]:
    """Microseconds: the config and theme part of one `new_session` message; the hash of one small message."""
    from streamlit import config
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime import app_session
    from streamlit.runtime.forward_msg_cache import populate_hash_if_needed

    here = os.getcwd()
    os.chdir(ROOT)  # Streamlit reads .streamlit/config.toml from the folder it starts in: the sandbox's settings
    try:
        config.get_config_options(force_reparse=True)
    finally:
        os.chdir(here)

    def new_session_part() -> None:
        message = ForwardMsg()
        app_session._populate_config_msg(message.new_session.config)
        theme = message.new_session.custom_theme
        app_session._populate_theme_msg(theme)
        for section, part in (("light", theme.light), ("dark", theme.dark), ("sidebar", theme.sidebar),
                              ("light.sidebar", theme.light.sidebar), ("dark.sidebar", theme.dark.sidebar)):
            app_session._populate_theme_msg(part, f"theme.{section}")

    def hashed() -> None:
        message = ForwardMsg()
        message.delta.new_element.markdown.body = "line 3 **of** 17"
        populate_hash_if_needed(message)

    runs = 2_000
    return (min(timeit.repeat(new_session_part, number=runs, repeat=5)) / runs * 1e6,
            min(timeit.repeat(hashed, number=runs, repeat=5)) / runs * 1e6)


def page_python() -> dict[str, float]:
    """Microseconds a Step of the runaway script spends in the page's own Python, in this process: the checked
    step (the Sandbox's, the FakeModel's request checks included), the screen, the run graph, the link."""
    sys.path.insert(0, str(ROOT))
    from agent.page.graph import run_graph
    from agent.page.links import to_query
    from agent.page.sandbox import Sandbox
    from agent.page.screen import screen_of
    from agent.page.view import builtin_scripts

    box = Sandbox(builtin_scripts())
    box.pick_script(next(name for name, script in box.scripts.items() if script.title == RUNAWAY_TITLE))
    spent = {"step": 0.0, "screen": 0.0, "graph": 0.0, "link": 0.0}
    steps = 0
    for _ in range(20):
        box.reset()
        while not box.run.done:
            began = time.perf_counter()
            box.step()
            stepped = time.perf_counter()
            screen = screen_of(box)
            shown = time.perf_counter()
            _ = run_graph(screen.shown, 5, next_step=True).source  # the DOT text is what the page draws
            drawn = time.perf_counter()
            to_query(box.link())
            linked = time.perf_counter()
            parts = (stepped - began, shown - stepped, drawn - shown, linked - drawn)
            for part, seconds in zip(spent, parts, strict=True):
                spent[part] += seconds
            steps += 1
    return {part: seconds / steps * 1e6 for part, seconds in spent.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--presses", type=int, default=300, help="presses a page, each round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="streamlit-share-") as folder, \
            tempfile.TemporaryDirectory(prefix="streamlit-share-home-") as home:
        pages = {"trivial page": write_trivial_app(Path(folder))}
        for lines in LINES:  # beside the trivial page, under the same settings
            pages[f"fragment +{lines}"] = Path(folder) / f"fragment_{lines}.py"
            pages[f"fragment +{lines}"].write_text(FRAGMENT_PAGE.format(root=str(ROOT), lines=lines))
        servers = {name: start(Path(folder), home, app.name, tuned=True) for name, app in pages.items()}
        servers["sandbox Step"] = start(ROOT, home, tuned=True)
        try:
            def press(name: str, presses: int) -> float:
                process, url = servers[name]
                if name == "sandbox Step":
                    return asyncio.run(cpu_a_step(url, process.pid, presses))
                return asyncio.run(cpu_a_click(url, process.pid, presses))

            for name in servers:  # the first presses import and warm what each page needs
                press(name, 60)
            spent: dict[str, list[float]] = {name: [] for name in servers}
            for _ in range(args.rounds):
                for name in servers:
                    spent[name].append(press(name, args.presses))
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(timeout=30)
    median = {name: statistics.median(figures) for name, figures in spent.items()}
    print(f"server CPU a press, median of {args.rounds} rounds of {args.presses} presses a page, in turn")
    for name, figures in spent.items():
        print(f"  {name:<14} {median[name]:5.2f} ms   ({', '.join(f'{f:.2f}' for f in figures)})")
    trivial, empty = median["trivial page"], median["fragment +0"]
    element = (median["fragment +25"] - median["fragment +5"]) / (25 - 5)
    print(f"a fragment run with only its button and count: {empty:.2f} ms ({empty / trivial:.2f}x the trivial click)")
    print(f"one more markdown element in it: {element * 1000:.0f} µs")
    step = median["sandbox Step"]
    print(f"a Step: {step:.2f} ms, {step / trivial:.2f}x the trivial page's click")
    new_session, hashed = streamlit_pieces()
    own = page_python()
    print(f"the page's own Python a Step, in this process: {sum(own.values()) / 1000:.2f} ms ("
          + ", ".join(f"{part} {us:.0f} µs" for part, us in own.items()) + ")")
    print(f"in this process: the config and theme of one new_session message {new_session:.0f} µs (every run); "
          f"the hash of one small message {hashed:.1f} µs (every message)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
