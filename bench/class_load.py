"""A class at once: simulated learners pressing Step and Check, against one Streamlit process and K behind HAProxy.

Each learner is one Streamlit session spoken to over its websocket as a browser
speaks to it (tests/streamlit_session.py: protobuf BackMsg up, ForwardMsg down,
a Step is a fragment rerun). It opens the sandbox, picks the runaway script
(40 turns), presses Step every 2-4 s (random, seeded) and Reset when the run
ends, and checks every answer: the status line must show the next turn. On
All controls the run plays in the player, so the `sandbox` learner hands each
Step to the server at once, as if a server action followed every Step: the
most the player's hand-over can cost. The `player` and `player_all` learners
are the issue's mix, on Start here and on All controls: Steps in the browser,
and now and then an Undo the server takes (see `player_learner`). The
trivial page (one button, one counter, a full rerun) runs the same level
beside it, as the floor. Levels of N learners join, then press for `--seconds`;
only that window's Steps are counted. Each level has fresh servers, so its
memory is its own.

Printed a level: Steps timed, Steps served a second, p50 / p95 / max Step, the
share at or over 40 ms (the delayed-acknowledgement stall), sessions dropped,
wrong answers, the servers' CPU and the simulated clients' (shares of one core; when the clients'
nears the cores left over, the figures measure the clients), how long a second
Streamlit's event loop waited for a core ("no core": other processes had both;
on a busy machine that, not Streamlit, is the tail), the servers' CPU a Step
(their CPU time in the window, less what they spend idle, over the Steps in
it: what a Step costs, which the machine's load barely moves), the longest
pause of Python's garbage collector in the window and all its pauses' time a
second (it holds the GIL, so every Step in flight waits for it), the servers' RSS at
the end of the window and per session over the idle server's, then the RSS
and the sessions the processes still hold once every learner has gone and the
disconnected-session time (`--ttl`, short here) has passed. Streamlit removes
expired sessions only when another session disconnects, so one visitor comes
and goes on each process first: "held" counts that visitor. Then the ratios to
the trivial page and to one learner, both measured in this run.

At the sandbox's levels of at least `--checkers` learners (30 by default; 0
for none), that many more learners, sessions of their own, open the exercise
(bench/class_check.py): each types the project's correct loop, and all press
Check at the same moment, a quarter into the window, while the level's
learners go on pressing Step (past the window's end if a check still runs).
Below the level's row: checks passed / started, the queue's wait and the time
from the press to the verdict (p50 / max), how many of those who waited were
shown their place ("2 checks ahead of yours") and the most ahead shown; then
the Steps pressed while the checks ran (first press to last verdict) against
the same level's Steps pressed while none ran, and against one learner's p95
(the first level, when it has no checkers). The row's own Step figures hold
every Step of the window, those beside the checks included; "a session"
counts the checkers too. Smaller levels run with no checkers, so `--levels
1,30` gives one learner alone and 30 with 30 checks.

The proxy target is deploy/start-class.sh itself (K processes and HAProxy on
loopback).

    python bench/class_load.py [--levels 1,10,30,60,100,300] [--targets one,proxy] [--k 2] [--checkers 30]
                               [--seconds 20] [--ttl 3] [--seed 17] [--workers 4] [--as-shipped]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import multiprocessing
import os
import queue
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]

from browser_support import ROOT, SandboxServer  # noqa: E402
from class_check import CHECK_LIMIT, check_learner, check_problems, check_report, nearest_rank  # noqa: E402
from load_servers import (  # noqa: E402
    CpuSampler,
    OneProcess,
    as_streamlit_ships_it,
    collector_pauses,
    process_cpu_seconds,
    process_rss_mb,
    proxy_set,
    runqueue_wait_seconds,
    sessions_held,
    settle,
)
from page_step import RUNAWAY_TITLE, write_trivial_app  # noqa: E402
from streamlit_session import SessionGone, StreamlitSession  # noqa: E402

JOINING_AT_ONCE = 10  # learners opening the page at the same moment while a level fills
STALL_MS = 40  # Linux's delayed acknowledgement: a Step this slow waited for one
RUNAWAY_STEPS = 40  # the runaway script's Steps to its end, at its turn limit of 40
TURN = re.compile(r"turn (\d+) of (\d+)")
COUNT = re.compile(r"count (\d+)")
CHECK_AT = 0.25  # the checkers press Check this far into the window: Steps before and after it run with none


# ---------------------------------------------------------------- the learners


@dataclass
class Tally:
    step_ms: list[float] = field(default_factory=list)
    resets: int = 0
    browser_steps: int = 0  # Steps taken in the player, in the window: none of them reaches the server
    dropped: int = 0
    wrong: list[str] = field(default_factory=list)
    join_ms: list[float] = field(default_factory=list)
    client_cpu_seconds: float = 0.0
    steps: list[tuple[float, float]] = field(default_factory=list)  # every Step: (pressed at, monotonic; ms)
    checks: list = field(default_factory=list)  # class_check.CheckSeen, one a check pressed
    window: tuple[float, float] = (float("inf"), float("inf"))  # the measured window, in monotonic time


async def sandbox_learner(url: str, rng: random.Random, joined: asyncio.Semaphore, start: asyncio.Event,
                          window: list[float], tally: Tally, checking=lambda: False) -> None:
    """Step until the window ends, and past it while `checking()` says checks still run (so that every check's
    time has Steps beside it)."""
    async with joined:
        began = time.perf_counter()
        session = await StreamlitSession.open(url)
        await session.rerun(session.pick("Script", RUNAWAY_TITLE))
        tally.join_ms.append((time.perf_counter() - began) * 1000)
    turn, turns = shown_turn(session.last_texts)
    if turn != 0:
        tally.wrong.append(f"after picking the script: {session.last_texts[:1]}")
    await start.wait()
    await asyncio.sleep(rng.uniform(0, 3))  # learners do not press in step with each other
    while time.monotonic() < window[1] or (checking() and time.monotonic() < window[1] + CHECK_LIMIT):
        button = "Reset" if turn >= turns else "Step"
        pressed_at = time.monotonic()
        outcome = await session.rerun(*(session.step() if button == "Step" else session.reset()))
        now, turns = shown_turn(outcome.texts)
        expected = 0 if button == "Reset" else turn + 1
        if now != expected:
            tally.wrong.append(f"{button} at turn {turn} showed {outcome.texts[:1]}")
        if button == "Step" and window[0] <= pressed_at < window[1]:
            tally.step_ms.append(outcome.seconds * 1000)
        if button == "Step" and window[0] <= pressed_at:
            tally.steps.append((pressed_at, outcome.seconds * 1000))
        tally.resets += button == "Reset"
        turn = now
        await asyncio.sleep(rng.uniform(2, 4))
    await session.close()


PLAYER_PAGES = {  # the runaway script in the player, on either layout
    "player": "controls=start&script=runaway&predict=off",
    "player_all": "controls=all&script=runaway&predict=off",
}
SERVER_ACTION_EVERY = 8  # a learner with the player turns to a server action (here Undo) about once in 8 Steps


async def player_learner(url: str, rng: random.Random, joined: asyncio.Semaphore, start: asyncio.Event,
                         window: list[float], tally: Tally, query: str = PLAYER_PAGES["player"]) -> None:
    """A layout with the player (`query`): Steps every 2-4 s in the browser, which send nothing; now and then a
    server action the player asks for itself, which sends what the browser then sends: one trigger carrying the
    player's actions since the server's last word, and the action (here Undo past what the player did itself; the
    next scenario goes the same way). That one run of the player's fragment is timed as what reaches the server; it
    must show the run where the learner left it, one action back."""
    async with joined:
        began = time.perf_counter()
        session = await StreamlitSession.open(url, query_string=query)
        tally.join_ms.append((time.perf_counter() - began) * 1000)
    name = next(n for n in session.components if n.endswith("loop_sandbox.player"))
    data = json.loads(session.components[name][1])[0]
    at, played = data["start"]["at"], []
    await start.wait()
    await asyncio.sleep(rng.uniform(0, 3))
    while time.monotonic() < window[1]:
        await asyncio.sleep(rng.uniform(2, 4))
        before = at
        played.append("s" if at < RUNAWAY_STEPS else "r")  # in the browser: nothing sent
        tally.browser_steps += window[0] <= time.monotonic() < window[1]
        at = at + 1 if at < RUNAWAY_STEPS else 0
        tally.resets += at == 0
        if rng.randrange(SERVER_ACTION_EVERY) or time.monotonic() >= window[1]:
            continue
        pressed_at = time.monotonic()
        said = {"base": data["version"], "played": ".".join(played), "id": f"{data['version']}:{len(played)}:undo"}
        undone = await session.rerun(session.trigger(name, "undo", said), session.component_fragments[name])
        data = json.loads(session.components[name][1])[0]
        if data["start"]["at"] != before:
            tally.wrong.append(f"Undo after {len(played)} actions at {at}: the server drew {data['start']['at']}")
        at, played = data["start"]["at"], []
        if window[0] <= pressed_at:
            tally.step_ms.append(undone.seconds * 1000)
            tally.steps.append((pressed_at, undone.seconds * 1000))
    await session.close()


async def trivial_learner(url: str, rng: random.Random, joined: asyncio.Semaphore, start: asyncio.Event,
                          window: list[float], tally: Tally) -> None:
    async with joined:
        began = time.perf_counter()
        session = await StreamlitSession.open(url)
        tally.join_ms.append((time.perf_counter() - began) * 1000)
    count = 0
    await start.wait()
    await asyncio.sleep(rng.uniform(0, 3))
    while time.monotonic() < window[1]:
        pressed_at = time.monotonic()
        outcome = await session.rerun(*session.press("Click"))
        shown = [int(m.group(1)) for text in outcome.texts if (m := COUNT.search(text))]
        if shown != [count + 1]:
            tally.wrong.append(f"click {count + 1} showed {shown}")
        count += 1
        if window[0] <= pressed_at < window[1]:
            tally.step_ms.append(outcome.seconds * 1000)
        await asyncio.sleep(rng.uniform(2, 4))
    await session.close()


def shown_turn(texts: list[str]) -> tuple[int, int]:
    for text in texts:
        if match := TURN.match(text):
            return int(match.group(1)), int(match.group(2))
    return -1, 0


async def learners_of_one_worker(url: str, page: str, indices: list[int], seconds: float, seed: int,
                                 everyone_in: threading.Barrier, first_checker: int, checks_left) -> Tally:
    """This worker's learners; those from `first_checker` on press Check, once, all at the same moment."""
    tally = Tally()
    joined, start = asyncio.Semaphore(JOINING_AT_ONCE), asyncio.Event()
    window, press_at = [float("inf"), float("inf")], [float("inf")]
    learner = (trivial_learner if page == "trivial"
               else functools.partial(player_learner, query=PLAYER_PAGES[page]) if page in PLAYER_PAGES
               else functools.partial(sandbox_learner, checking=lambda: checks_left.value > 0))  # "shipped" too

    async def one(index: int) -> None:
        try:
            if index >= first_checker:
                await check_learner(url, joined, start, press_at, tally.join_ms, tally.checks)
            else:
                await learner(url, random.Random(seed * 100_003 + index), joined, start, window, tally)
        except (SessionGone, TimeoutError, OSError) as exc:
            tally.dropped += 1
            tally.wrong.append(f"{'checker' if index >= first_checker else 'learner'} {index} dropped: {exc}")
        finally:
            if index >= first_checker:
                with checks_left.get_lock():
                    checks_left.value -= 1

    tasks = [asyncio.create_task(one(i)) for i in indices]
    while len(tally.join_ms) + tally.dropped < len(indices):
        if failed := [task for task in tasks if task.done() and task.exception()]:
            raise failed[0].exception()  # a bug in a learner, not a dropped session: say it rather than hang
        await asyncio.sleep(0.05)
    await asyncio.to_thread(everyone_in.wait)  # every worker's learners are in before anyone presses
    window[:] = [time.monotonic() + 1.0, time.monotonic() + 1.0 + seconds]  # a second for the first presses
    press_at[0] = window[0] + CHECK_AT * seconds  # monotonic time is the machine's: every worker's the same
    tally.window = tuple(window)
    start.set()
    await asyncio.gather(*tasks)
    return tally


def one_worker(url: str, page: str, indices: list[int], seconds: float, seed: int, everyone_in, results,
               first_checker: int, checks_left) -> None:
    cpu = time.process_time()
    tally = asyncio.run(learners_of_one_worker(url, page, indices, seconds, seed, everyone_in, first_checker,
                                               checks_left))
    tally.client_cpu_seconds = time.process_time() - cpu
    results.put(tally)


def run_level(url: str, page: str, learners: int, seconds: float, seed: int, workers: int, checkers: int = 0) -> Tally:
    """The learners and the checkers, spread over `workers` processes so that the clients are not the bottleneck."""
    shares = [share for w in range(workers) if (share := list(range(w, learners + checkers, workers)))]
    context = multiprocessing.get_context("fork")
    everyone_in, results, checks_left = context.Barrier(len(shares)), context.Queue(), context.Value("i", checkers)
    processes = [context.Process(target=one_worker, args=(url, page, share, seconds, seed, everyone_in, results,
                                                          learners, checks_left), daemon=True)
                 for share in shares]
    for process in processes:
        process.start()
    tallies = []
    deadline = time.monotonic() + 600 + CHECK_LIMIT
    while len(tallies) < len(processes):
        try:
            tallies.append(results.get(timeout=1))
        except queue.Empty:
            if crashed := [p.exitcode for p in processes if p.exitcode]:  # a learner's bug: say so, not hang
                raise RuntimeError(f"a worker of the simulated learners exited with {crashed[0]}") from None
            if time.monotonic() > deadline:
                raise TimeoutError("the simulated learners did not finish") from None
    for process in processes:
        process.join()
    whole = Tally()
    for tally in tallies:
        whole.step_ms += tally.step_ms
        whole.join_ms += tally.join_ms
        whole.wrong += tally.wrong
        whole.resets += tally.resets
        whole.browser_steps += tally.browser_steps
        whole.dropped += tally.dropped
        whole.client_cpu_seconds += tally.client_cpu_seconds
        whole.steps += tally.steps
        whole.checks += tally.checks
        whole.window = min(whole.window, tally.window)
    return whole


async def visit_and_leave(url: str) -> None:
    session = await StreamlitSession.open(url)
    await session.close()


# ---------------------------------------------------------------- one level, measured


def measure(target_kind: str, page: str, app: Path, learners: int, args: argparse.Namespace,
            alone_p95: float | None = None) -> dict:
    checkers = args.checkers if page == "sandbox" and args.checkers and learners >= args.checkers else 0
    options = ["--server.disconnectedSessionTTL", str(args.ttl)]
    with tempfile.TemporaryDirectory() as probe:
        probe_dir = Path(probe)
        target = (OneProcess(app, options, probe_dir) if target_kind == "one"
                  else proxy_set(app, options, probe_dir, args.k))
        try:
            for backend in target.backends.values():  # the page's imports and caches, once a process, not counted
                asyncio.run(visit_and_leave(backend))
            idle_cpu = settle(target.pids)  # the SDK's background import and the freeze after it: not idle RSS
            if page == "shipped":
                for pid in target.pids:
                    as_streamlit_ships_it(pid)
            rss_idle = sum(process_rss_mb(pid) for pid in target.pids)
            cpu_before = sum(process_cpu_seconds(pid) for pid in target.pids)
            waited_before = sum(runqueue_wait_seconds(pid) for pid in target.pids)
            started = time.monotonic()
            sampler = CpuSampler(target.pids)
            try:
                tally = run_level(target.url, page, learners, args.seconds, args.seed, args.workers, checkers)
            finally:
                sampler.stop()
            elapsed = time.monotonic() - started
            cpu = (sum(process_cpu_seconds(pid) for pid in target.pids) - cpu_before) / elapsed
            waited = (sum(runqueue_wait_seconds(pid) for pid in target.pids) - waited_before) / elapsed
            rss_busy = sum(process_rss_mb(pid) for pid in target.pids)
            pauses = collector_pauses(target.pids, probe_dir, tally.window)
            window_cpu = sampler.between(*tally.window) - idle_cpu * (tally.window[1] - tally.window[0])
            time.sleep(args.ttl + 1.5)  # every learner has gone; their sessions' time runs out
            for backend in target.backends.values():
                asyncio.run(visit_and_leave(backend))  # a disconnect makes Streamlit drop the expired ones
            time.sleep(0.5)
            held = sessions_held(target.pids, probe_dir)
            rss_after = sum(process_rss_mb(pid) for pid in target.pids)
        finally:
            target.stop()
    times = sorted(tally.step_ms)
    return {
        "target": target_kind, "page": page, "n": learners, "steps": len(times),
        "per_s": len(times) / args.seconds,
        "p50": statistics.median(times) if times else float("nan"),
        "p95": nearest_rank(times, 0.95),
        "max": times[-1] if times else float("nan"),
        "stalled": sum(t >= STALL_MS for t in times) / len(times) if times else float("nan"),
        "resets": tally.resets, "browser_steps": tally.browser_steps, "dropped": tally.dropped, "wrong": tally.wrong,
        "join_p95": nearest_rank(sorted(tally.join_ms), 0.95),
        "cpu": cpu, "client_cpu": tally.client_cpu_seconds / elapsed, "waited": waited,
        "rss": rss_busy, "per_session": (rss_busy - rss_idle) / (learners + checkers), "rss_after": rss_after,
        "held": held, "processes": len(target.pids), "checkers": checkers,
        # Above what the idle servers spend (Streamlit polls its config files): what the Steps themselves cost.
        # The kernel counts CPU time in 10 ms ticks: a few Steps say nothing. Checks in the window count too.
        "cpu_a_step": max(window_cpu, 0) * 1000 / len(times) if len(times) >= 30 else float("nan"),
        "gc_longest": max(pauses, default=0.0), "gc_ms_a_s": sum(pauses) / args.seconds,
        "check_lines": check_report(tally.checks, checkers, tally.steps, tally.window, alone_p95) if checkers else [],
        "check_problems": check_problems(tally.checks, checkers) if checkers else [],
    }


async def steps_back_to_back(url: str, count: int = 12) -> list[float]:
    session = await StreamlitSession.open(url)
    await session.rerun(session.pick("Script", RUNAWAY_TITLE))
    seconds = [(await session.rerun(*session.step())).seconds for _ in range(count)]
    await session.close()
    return seconds


def print_back_to_back(app: Path) -> None:
    """One learner pressing Step as fast as the answers come: the delayed-acknowledgement stall's own ground.

    With a pause of half a second or more between presses Linux acknowledges at once and the stall hides;
    pressed in quick succession, each Step of Streamlit as shipped waits for the acknowledgement.
    """
    with SandboxServer(app, tuned=True) as server:
        asyncio.run(visit_and_leave(server.url))
        served = statistics.median(asyncio.run(steps_back_to_back(server.url))) * 1000
        as_streamlit_ships_it(server.process.pid)
        shipped = statistics.median(asyncio.run(steps_back_to_back(server.url))) * 1000
    print(f"12 Steps back to back, median: {served:.0f} ms with views/launcher.py, {shipped:.0f} ms with the "
          f"socket as Streamlit ships it ({shipped / served:.1f}x)")


def print_row(row: dict) -> None:
    print(f"{row['target']:>5} {row['page']:>10} {row['n']:>4} | {row['steps']:>5} {row['per_s']:>6.1f}/s | "
          f"{row['p50']:>5.0f} {row['p95']:>5.0f} {row['max']:>5.0f} ms | {row['stalled']:>4.0%} | "
          f"{row['dropped']:>4} {len(row['wrong']) - row['dropped']:>3} | "
          f"{row['cpu']:>11.0%} {row['client_cpu']:>6.0%} {row['waited'] * 1000:>7.0f} ms/s "
          f"{row['cpu_a_step']:>5.1f} ms | {row['gc_longest']:>5.0f} {row['gc_ms_a_s']:>5.1f} ms/s | "
          f"{row['rss']:>6.0f} MB {row['per_session']:>6.2f} MB | {row['rss_after']:>6.0f} MB {row['held']:>4} | "
          f"join p95 {row['join_p95']:>5.0f} ms", flush=True)
    for problem in row["wrong"][:3]:
        print(f"      ! {problem}")
    for line in row["check_lines"]:
        print(line)
    for problem in row["check_problems"][:3]:
        print(f"      ! {problem}")


HEADER = ("where      page    N  | Steps  served  |  p50   p95   max    | >=40 | drop bad | CPU: server client "
          "no core  a Step   | GC: longest  all    |"
          "  RSS     a session | after time-out held |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,10,30,60,100,300", help="numbers of learners, comma-separated")
    parser.add_argument("--targets", default="one,proxy", help="one (one process), proxy (K behind HAProxy)")
    parser.add_argument("--k", type=int, default=2, help="Streamlit processes behind the proxy")
    parser.add_argument("--seconds", type=float, default=20, help="the measured window of a level")
    parser.add_argument("--ttl", type=int, default=3, help="server.disconnectedSessionTTL for the bench (s)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--workers", type=int, default=4, help="processes the learners are spread over")
    parser.add_argument("--checkers", type=int, default=30,
                        help="learners beside the level's who press Check at once, at the levels of at least this "
                             "many learners (0: none)")
    parser.add_argument("--as-shipped", action="store_true",
                        help="also the sandbox with its listening socket as Streamlit ships it (no TCP_NODELAY), "
                             "at each level and for Steps back to back: the stall views/launcher.py removes")
    parser.add_argument("--pages", default="trivial,sandbox",
                        help="trivial, sandbox (All controls, each Step handed to the server), player (Start here's "
                             "player: Steps in the browser, now and then an Undo the server takes), player_all "
                             "(the same on All controls)")
    parser.add_argument("--app", type=Path, default=ROOT / "sandbox_app.py", help="the page to load")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",")]
    targets = args.targets.split(",")
    if "proxy" in targets and not shutil.which("haproxy"):
        parser.error("the proxy target needs HAProxy: apt-get install haproxy (or --targets one)")
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; window {args.seconds:.0f} s a level; "
          f"disconnected-session time {args.ttl} s; seed {args.seed}")
    if args.as_shipped:
        print_back_to_back(args.app)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        trivial_app = write_trivial_app(Path(folder) / "trivial")
        pages = [(page, trivial_app if page == "trivial" else args.app) for page in args.pages.split(",")]
        pages += [("shipped", args.app)] if args.as_shipped else []
        for target in targets:
            print(f"\n{'one process' if target == 'one' else f'HAProxy and K = {args.k} processes'}")
            print(HEADER)
            for learners in levels:
                for page, app in pages:
                    alone = next((r["p95"] for r in rows if r["target"] == target and r["page"] == "sandbox"
                                  and r["n"] == min(levels) and not r["checkers"]), None)
                    rows.append(measure(target, page, app, learners, args, alone))
                    print_row(rows[-1])
    print("\nratios (same run): each page's p95 against the trivial page's p95 at that level, and against one "
          "learner (player: of the runs that reach the server)")
    for target in targets:
        mine = {(r["page"], r["n"]): r for r in rows if r["target"] == target}
        for page in [p for p, _ in pages if p not in ("trivial", "shipped")]:
            alone = mine.get((page, min(levels)))
            for learners in levels:
                row, trivial = mine[(page, learners)], mine.get(("trivial", learners))
                if trivial is None or alone is None:
                    continue
                browser = f"; {row['browser_steps']} Steps in the browser" if page in PLAYER_PAGES else ""
                print(f"{target:>5} {page:>10} {learners:>4}: p95 {row['p95'] / trivial['p95']:.2f}x the trivial "
                      f"page, {row['p95'] / alone['p95']:.2f}x one learner ({min(levels)}); CPU a run "
                      f"{row['cpu_a_step'] / max(trivial['cpu_a_step'], 1e-9):.1f}x the trivial page's{browser}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
