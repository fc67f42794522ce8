"""What the sandbox costs: checking a correct loop against every exercise script.

Times `check_loop` on a correct learner's loop (one child process for all the
scripts, each script judged against the engine's reference run) and, for
scale, the same scripts run in process by the engine's own loop with no
sandbox. Prints both medians and their ratio, and the time a check takes when
the loop hangs on one script (the wall-clock limit, then a new child for the
rest).

    python bench/check_loop.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from agent.exercise import Limits, check_loop, exercise_script_names, reference_run
from agent.scripts import load_script

CORRECT_LOOP = (Path(__file__).resolve().parent.parent / "examples" / "correct_loop.py").read_text()
HANGS_ON_ONE = CORRECT_LOOP.replace("    messages = [", '    while "2 + 3" in task:\n        pass\n    messages = [', 1)


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    names = exercise_script_names()
    scripts = [load_script(name) for name in names]

    def sandboxed() -> None:
        assert check_loop(CORRECT_LOOP, scripts).passed

    def in_process() -> None:
        for script in scripts:
            reference_run(script)

    checks = [timed(sandboxed) for _ in range(repeats)]
    references = [timed(in_process) for _ in range(repeats)]
    check, reference = statistics.median(checks), statistics.median(references)
    print(f"scripts: {len(names)}")
    print(f"check_loop, sandboxed (median of {repeats}): {check * 1000:.0f} ms "
          f"({', '.join(f'{t * 1000:.0f}' for t in checks)})")
    print(f"reference runs in process (median of {repeats}): {reference * 1000:.1f} ms")
    print(f"ratio sandboxed / in process: {check / reference:.0f}x")
    limit = 1.0
    hang = timed(lambda: check_loop(HANGS_ON_ONE, scripts, Limits(seconds=limit)))
    print(f"a loop that hangs on one script, {limit:g} s limit: {hang * 1000:.0f} ms "
          f"(limit + the rest: {(hang - limit) * 1000:.0f} ms over the limit)")


if __name__ == "__main__":
    main()
