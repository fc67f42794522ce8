"""The learner state machine, run long: many random sequences of clicks on the sandbox page.

    python bench/learner_actions.py [--examples 60] [--steps 30] [--seed 1]

Prints how many sequences and actions it tried, how long an action took, and the first failing sequence
(shrunk by Hypothesis) if one breaks an invariant. The bounded run in the suite is tests/test_learner_actions.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import hypothesis.core  # noqa: E402
from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402
from learner_machine import LearnerOnThePage  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=60)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    os.environ.pop("ANTHROPIC_API_KEY", None)
    counted = {"sequences": 0, "actions": 0}

    class Counted(LearnerOnThePage):
        def __init__(self) -> None:
            super().__init__()
            counted["sequences"] += 1

        def teardown(self) -> None:
            counted["actions"] += len(self.actions)
            super().teardown()

    started = time.perf_counter()
    failure = None
    try:
        hypothesis.core.global_force_seed = args.seed  # what pytest's --hypothesis-seed sets: the same sequences again
        run_state_machine_as_test(Counted, settings=settings(
            max_examples=args.examples, stateful_step_count=args.steps, deadline=None, database=None,
            derandomize=False, phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck)))
    except AssertionError as exc:
        failure = exc
    seconds = time.perf_counter() - started
    print(f"sequences tried: {counted['sequences']}, actions: {counted['actions']}, "
          f"{seconds:.0f} s ({1000 * seconds / max(counted['actions'], 1):.0f} ms an action, invariants included)")
    if failure is None:
        print("every invariant held after every action")
        return 0
    print(f"an invariant broke (the shrunk sequence is above):\n{failure}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
