"""A learner's random clicks, and after each, the URL the page wrote opened in a new session: the same run.

The learner is `tests/learner_machine.py`'s state machine; this adds one invariant. A script and the toy answer
the same way every time, so the reopened run holds the very same messages, on the same branch, at the same
turn, in the same view. A script loaded from a file cannot travel in a link (the Copy link dialog says so),
so the check waits while one is in use.
"""

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import invariant
from learner_machine import LearnerOnThePage
from page_support import full_page, plain, player_shows, run, status, unescaped

from agent.page.names import OutcomeKind
from agent.page.view import builtin_scripts


def warnings(at) -> list[str]:
    """The page's warnings as a reader reads them, a run's stop among them whichever draws it: the page (as while
    Change the past is open) or the player (as on the same run reopened from its link)."""
    said = [unescaped(w.value).replace("**", "") for w in at.warning]
    shows = player_shows(at)
    outcome = shows.latest["outcome"] if shows is not None and not shows.asking else None
    if outcome and outcome["kind"] in (OutcomeKind.STOPPED, OutcomeKind.LIMIT):
        said.append(f"{outcome['headline']} {plain(outcome['note'])}")
    return [" ".join(sentence.split()) for sentence in said]


class LearnerWithLinks(LearnerOnThePage):
    @invariant()
    def the_url_reopens_the_same_run(self) -> None:
        if self.at is None or self.ss["sandbox"].script not in builtin_scripts():
            return
        again = full_page(60)
        for key, value in self.at.query_params.items():
            again.query_params[key] = value[-1] if isinstance(value, list) else value
        again = run(again)
        mine, theirs = self.ss["sandbox"].run, again.session_state["sandbox"].run
        said = f"after {self.actions}, the link {dict(self.at.query_params)}"
        assert theirs.messages == mine.messages, said
        assert (theirs.turn, theirs.done, theirs.result) == (mine.turn, mine.done, mine.result), said
        assert status(again) == status(self.at), said
        assert again.session_state["tab"] == self.ss["tab"], said
        assert again.session_state["sandbox"].turn_shown == self.ss["sandbox"].turn_shown, said
        tree = self.ss["sandbox"].tree
        if tree is not None and tree.branch.state is mine:
            assert again.session_state["sandbox"].tree.current == tree.current, said
        # the same notices (a run's own ending, say), and no notice about the link
        assert warnings(again) == warnings(self.at), said


LearnerWithLinks.TestCase.settings = settings(
    max_examples=4, stateful_step_count=10, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.fixture(autouse=True)
def no_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


TestLearnerWithLinks = LearnerWithLinks.TestCase
