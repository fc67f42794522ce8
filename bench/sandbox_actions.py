"""A long run of the learner state machine on the Sandbox (`tests/sandbox_machine.py`): thousands of actions,
every invariant checked after each. Prints how many actions of each kind it took and what it found.

    python bench/sandbox_actions.py [--actions 20000] [--steps 50]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from hypothesis import HealthCheck, settings  # noqa: E402
from sandbox_machine import LearnerOnTheSandbox  # noqa: E402

tally: Counter[str] = Counter()


class Counted(LearnerOnTheSandbox):
    def teardown(self) -> None:
        tally.update(self.tally)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--steps", type=int, default=50, help="actions in one sequence")
    args = parser.parse_args()
    Counted.TestCase.settings = settings(max_examples=max(1, args.actions // args.steps),
                                         stateful_step_count=args.steps, deadline=None, database=None,
                                         suppress_health_check=list(HealthCheck))
    started = time.perf_counter()
    found = None
    try:
        Counted.TestCase().runTest()
    except Exception as exc:  # the failing sequence, as Hypothesis prints it
        found = exc
    seconds = time.perf_counter() - started
    print(f"{sum(tally.values()):,} actions in {seconds:.0f} s, every invariant checked after each:")
    for name, count in tally.most_common():
        print(f"  {count:>6,} {name}")
    print("found: nothing" if found is None else f"found: {found}")
    for note in getattr(found, "__notes__", []):
        print(note)
    sys.exit(found is not None)


if __name__ == "__main__":
    main()
