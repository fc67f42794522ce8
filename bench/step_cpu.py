"""What a Step costs the server: its CPU time a Step, this checkout against an earlier commit, in turn.

Each side is the page as the README's command serves it (`python -m streamlit run sandbox_app.py`, with
the checkout's own .streamlit/config.toml), on a port of 127.0.0.1. One learner presses Step back to back
through the runaway script (Reset at its end) over Streamlit's websocket; the figure is the server
process's CPU time (/proc, user and system) over the Steps. The two servers take turns, pair by pair, so a
machine that slows down slows both; the ratio of each pair is printed, then the median ratio.

    python bench/step_cpu.py --before 6b6e272 [--pairs 6] [--steps 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from browser_support import ROOT, free_port, wait_healthy  # noqa: E402
from class_load import RUNAWAY_TITLE, shown_turn  # noqa: E402
from load_servers import process_cpu_seconds  # noqa: E402
from streamlit_session import StreamlitSession  # noqa: E402


def start(folder: Path, home: str, app: str = "sandbox_app.py", tuned: bool = False) -> tuple[subprocess.Popen, str]:
    """The page `app` in `folder`, importing its own `agent` and `views`; `home` keeps Streamlit's files out of it.
    `tuned`: served by this checkout's launcher (`python -m agent serve-page`), not a plain `streamlit run`."""
    port = free_port()
    serve = ["-m", "agent", "serve-page", "--page", app] if tuned else ["-m", "streamlit", "run", app]
    imports = ROOT if tuned else folder
    process = subprocess.Popen([sys.executable, *serve, "--server.port",
                                str(port), "--server.headless", "true"], cwd=folder,
                               env={"PATH": "/usr/bin:/bin", "HOME": home, "PYTHONPATH": str(imports)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, process, time.monotonic() + 60, lambda: "(its output is not kept)")
    return process, url


async def cpu_a_step(url: str, pid: int, steps: int) -> float:
    """Server CPU milliseconds a Step, over `steps` Steps (and the Resets between runs)."""
    session = await StreamlitSession.open(url)
    await session.rerun(session.pick("Script", RUNAWAY_TITLE))
    turn, turns, stepped = 0, 1, 0
    began = process_cpu_seconds(pid)
    while stepped < steps:
        button = "Reset" if turn >= turns else "Step"
        outcome = await session.rerun(*session.press(button))
        turn, turns = shown_turn(outcome.texts)
        stepped += button == "Step"
    spent = process_cpu_seconds(pid) - began
    await session.close()
    return spent / steps * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, metavar="COMMIT", help="the commit to compare with")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--steps", type=int, default=300, help="Steps a side, each pair")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="step-cpu-before-") as folder, \
            tempfile.TemporaryDirectory(prefix="step-cpu-home-") as home:
        archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        sides = {"now": start(ROOT, home), args.before: start(Path(folder), home)}
        try:
            asyncio.run(warm(sides, min(args.steps, 60)))  # the first Steps import and warm what each needs
            ratios = []
            print(f"server CPU a Step, {args.steps} Steps back to back a side, in turn")
            for pair in range(1, args.pairs + 1):
                now = asyncio.run(cpu_a_step(sides["now"][1], sides["now"][0].pid, args.steps))
                then = asyncio.run(cpu_a_step(sides[args.before][1], sides[args.before][0].pid, args.steps))
                ratios.append(now / then)
                print(f"  pair {pair}: now {now:.2f} ms, {args.before} {then:.2f} ms: {now / then:.2f}x")
            print(f"median: now {statistics.median(ratios):.2f}x {args.before}'s CPU a Step")
        finally:
            for process, _ in sides.values():
                process.terminate()
                process.wait(timeout=30)
    return 0


async def warm(sides: dict, steps: int) -> None:
    for process, url in sides.values():
        await cpu_a_step(url, process.pid, steps)


if __name__ == "__main__":
    sys.exit(main())
