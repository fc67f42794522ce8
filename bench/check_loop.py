"""What checking a learner's loop costs: a full check of a correct loop, against the reference runs in process.

Times `check_loop` on a correct learner's loop over every exercise script (one
learner process for all of them, walled off as this machine allows, each
request judged out of its reach) and, for scale, the same scripts run in
process by the engine's own loop with no sandbox. With `--before COMMIT` it
also times the check as it was at that commit (its `agent/` and `scripts/`
unpacked with `git archive` into a temporary folder and run there), so a change
to the exercise prints its cost before and after. Last, the time a check takes
when the loop hangs on one script (the wall-clock limit, then a new process).

    python bench/check_loop.py [--repeats 5] [--before 581135b]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from agent.exercise import Limits, check_loop, exercise_script_names, protection, reference_run
from agent.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
CORRECT_LOOP = (ROOT / "examples" / "correct_loop.py").read_text()
HANGS_ON_ONE = CORRECT_LOOP.replace("    messages = [", '    while "2 + 3" in task:\n        pass\n    messages = [', 1)

# Run inside the old code's folder: its check_loop on its own default scripts, timed the same way.
BEFORE = """
import json, statistics, sys, time
from agent.exercise import check_loop, exercise_script_names
source, repeats = sys.stdin.read(), int(sys.argv[1])
times = []
for _ in range(repeats):
    started = time.perf_counter()
    check = check_loop(source)
    times.append(time.perf_counter() - started)
    assert check.passed
print(json.dumps({"scripts": len(exercise_script_names()), "times": times}))
"""


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def before(commit: str, repeats: int) -> dict:
    """The old check's times, measured in a fresh interpreter on that commit's code."""
    archive = subprocess.run(["git", "archive", commit, "agent", "scripts"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    with tempfile.TemporaryDirectory(prefix="check-loop-before-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        ran = subprocess.run([sys.executable, "-c", BEFORE, str(repeats)], input=CORRECT_LOOP, text=True,
                             cwd=folder, env={"PYTHONPATH": folder, "PATH": "/usr/bin:/bin"}, capture_output=True,
                             check=True)
    return json.loads(ran.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before", metavar="COMMIT", help="also time the check as it was at this commit")
    args = parser.parse_args()
    names = exercise_script_names()
    scripts = [load_script(name) for name in names]
    print(f"sandbox here: {protection().kind}")

    def in_process() -> None:
        for script in scripts:
            reference_run(script)

    references = [timed(in_process) for _ in range(args.repeats)]
    reference = statistics.median(references)
    print(f"reference runs in process, {len(names)} scripts (median of {args.repeats}): {reference * 1000:.1f} ms")
    for isolation in ("auto", "process"):
        limits = Limits(isolation=isolation)
        checks = [timed(lambda limits=limits: check_loop(CORRECT_LOOP, scripts, limits)) for _ in range(args.repeats)]
        check = statistics.median(checks)
        used = protection().kind if isolation == "auto" else "process limits"
        print(f"after: full check, {used}, {len(names)} scripts (median of {args.repeats}): {ms(check)} "
              f"({', '.join(f'{t * 1000:.0f}' for t in checks)}); {check / reference:.0f}x the reference runs")
    if args.before:
        old = before(args.before, args.repeats)
        check = statistics.median(old["times"])
        print(f"before ({args.before}): full check, {old['scripts']} scripts (median of {args.repeats}): {ms(check)} "
              f"({', '.join(f'{t * 1000:.0f}' for t in old['times'])}); {check / reference:.0f}x the reference runs")
    limit = 1.0
    hang = timed(lambda: check_loop(HANGS_ON_ONE, scripts, Limits(seconds=limit)))
    print(f"a loop that hangs on one script, {limit:g} s limit: {ms(hang)} ({ms(hang - limit)} over the limit)")


if __name__ == "__main__":
    main()
