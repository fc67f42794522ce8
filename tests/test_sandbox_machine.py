"""The Sandbox driven by random learners' action sequences, every invariant checked after each action.

The machine is `tests/sandbox_machine.py`; `bench/sandbox_actions.py` runs it long (20,000 actions and more).
"""

from hypothesis import HealthCheck, settings
from sandbox_machine import LearnerOnTheSandbox

LearnerOnTheSandbox.TestCase.settings = settings(
    max_examples=40, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

TestLearnerOnTheSandbox = LearnerOnTheSandbox.TestCase
