"""A class pressing Check at once: every check completes, each waits its turn, and the page's Steps stay fast.

N learners (30 by default) press Check on a correct loop at the same moment, in one process, as the page's
sessions do: each takes a place in the shared queue (`agent.exercise.check_queue`, one slot per core unless
LOOP_SANDBOX_CHECK_SLOTS says) and runs a full check, sandboxed as this machine allows. Meanwhile the same
process steps a FakeModel run over and over, the engine's part of a page Step (`agent.loop.step` on a
40-turn script), timed one Step at a time. Printed: the checks' waits in the queue and their total time, and
the Step's p50 / p95 / max while checks run, as ratios to the same Steps with no check running. The whole is
run three times: as the page does it (each check judged in a process of its own, `iter_check_apart`, at a
lower CPU priority, `nice`), with the judging in this process as it was before (`check_loop`: its Python
shares this process's interpreter lock with the Steps), and at the page's own priority.

    python bench/check_queue.py [--learners 30] [--slots N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

from agent.exercise import CheckQueue, Limits, LoopCheck, check_loop, iter_check_apart, protection
from agent.loop import RunState, step
from agent.models.fake import FakeModel
from agent.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
CORRECT_LOOP = (ROOT / "examples" / "correct_loop.py").read_text()


def step_times(stop: threading.Event, out: list[float], least: int = 0) -> None:
    """Step a 40-turn run again and again until `stop` (and at least `least` Steps), each Step timed."""
    script = load_script("runaway")
    while not stop.is_set() or len(out) < least:
        state, model = RunState(script.task, tool_names=script.tools, max_turns=script.max_turns), FakeModel(script)
        while not state.done and (not stop.is_set() or len(out) < least):
            started = time.perf_counter()
            step(state, model)
            out.append(time.perf_counter() - started)
            time.sleep(0.01)  # a learner's click, not a busy loop: the Steps are a page's, not a benchmark's


def quantiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    return (statistics.median(ordered), ordered[max(0, round(0.95 * len(ordered)) - 1)], ordered[-1])


def check_apart(source: str, limits: Limits) -> LoopCheck:
    """The page's way: the verdicts from a process of its own."""
    verdicts = list(iter_check_apart(source, limits=limits))
    if verdicts and isinstance(verdicts[-1], str):
        return LoopCheck(problem=verdicts[-1])
    return LoopCheck(scripts=verdicts)


def class_presses_check(learners: int, slots: int | None, nice: int, apart: bool) -> dict[str, object]:
    queue, limits = CheckQueue(slots), Limits(nice=nice)
    waits, totals, passed, lock = [], [], [], threading.Lock()
    go = threading.Event()

    def learner(n: int) -> None:
        go.wait()
        pressed = time.perf_counter()
        with queue.join(f"learner {n}") as ticket:
            ticket.wait(poll=0.05)
            started = time.perf_counter()
            check = check_apart(CORRECT_LOOP, limits) if apart else check_loop(CORRECT_LOOP, limits=limits)
        with lock:
            waits.append(started - pressed)
            totals.append(time.perf_counter() - pressed)
            passed.append(check.passed)

    steps: list[float] = []
    stop = threading.Event()
    stepper = threading.Thread(target=step_times, args=(stop, steps, 50))
    threads = [threading.Thread(target=learner, args=(n,)) for n in range(learners)]
    for thread in threads:
        thread.start()
    stepper.start()
    go.set()
    for thread in threads:
        thread.join()
    stop.set()
    stepper.join()
    return {"slots": queue.slots, "waits": waits, "totals": totals, "passed": passed, "steps": steps}


def quiet_steps(count: int) -> list[float]:
    steps: list[float] = []
    stop = threading.Event()
    stop.set()
    step_times(stop, steps, count)
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=30)
    parser.add_argument("--slots", type=int, default=None, help="check slots (default: one per core)")
    args = parser.parse_args()
    print(f"{args.learners} learners press Check at once on a correct loop; sandbox: {protection().kind}")
    quiet = quiet_steps(400)
    q50, q95, qmax = quantiles(quiet)
    print(f"a Step with no check running: p50 {q50 * 1000:.2f} ms, p95 {q95 * 1000:.2f} ms, max {qmax * 1000:.2f} ms "
          f"({len(quiet)} Steps)")
    print(f"{'judged':<14} {'learner process':<22} {'slots':>5} {'passed':>7} {'wait p50/p95/max s':>20} "
          f"{'last done s':>11} {'Step p50/p95/max ms':>22} {'p95 vs quiet':>12}")
    for apart, nice in ((True, Limits().nice), (False, Limits().nice), (True, 0)):
        seen = class_presses_check(args.learners, args.slots, nice, apart)
        w50, w95, wmax = quantiles(seen["waits"])
        s50, s95, smax = quantiles(seen["steps"])
        label = f"nice {nice}" + (" (default)" if nice == Limits().nice else "")
        where = "apart (page)" if apart else "in process"
        print(f"{where:<14} {label:<22} {seen['slots']:>5} {sum(seen['passed']):>3}/{len(seen['passed']):<3} "
              f"{f'{w50:.1f} / {w95:.1f} / {wmax:.1f}':>20} {max(seen['totals']):>11.1f} "
              f"{f'{s50 * 1000:.2f} / {s95 * 1000:.2f} / {smax * 1000:.1f}':>22} {s95 / q95:>11.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
