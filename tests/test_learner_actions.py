"""Tests that act like learners: random sequences of clicks on the sandbox page, every invariant checked after each.

The state machine is `tests/learner_machine.py`. This run is bounded to fit CI; `bench/learner_actions.py`
runs it long. Hypothesis keeps the failing sequences it finds in `.hypothesis/` and tries them first next time.
"""

import pytest
from hypothesis import HealthCheck, settings
from learner_machine import LearnerOnThePage

LearnerOnThePage.TestCase.settings = settings(
    max_examples=6, stateful_step_count=14, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.fixture(autouse=True)
def no_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


TestLearnerOnThePage = LearnerOnThePage.TestCase
