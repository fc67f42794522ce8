"""A learner's random walk through an exported run in Chromium: the rules are what a person does (keys, the
buttons, the Predict switch, Undo and Redo), the invariants are what the screen must say after each, held to the
frames."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from test_browser import chromium  # noqa: F401  pytest fixture

from agent.page import frames_of, run_page, sandbox_for

SCRIPT = "failing_tool"  # four turns: calls, a tool that fails, an answer; questions of both kinds


@pytest.fixture(scope="module")
def player_page(chromium, tmp_path_factory):  # noqa: F811
    frames = frames_of(sandbox_for(SCRIPT, predict=True))  # as Start here opens: predicting
    path = tmp_path_factory.mktemp("walk") / "run.html"
    path.write_text(run_page(frames), encoding="utf-8")
    page = chromium.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.errors, page.requests = [], []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("request", lambda request: page.requests.append(request.url))
    page.goto(path.as_uri())
    page.locator(".lsp-controls").wait_for()
    yield page, frames, path.as_uri()
    page.context.close()


class PlayerWalk(RuleBasedStateMachine):
    """The player as the learner sees it, beside a model of where it should be."""

    page = frames = None

    @initialize()
    def start(self):
        self.page.reload()  # a fresh player: nothing from the last walk to undo
        self.page.locator(".lsp-controls").wait_for()
        if not self.page.locator(".lsp-switch input").is_checked():
            self.page.locator(".lsp-switch input").click()
        self.page.locator("body").click(position={"x": 2, "y": 2})
        self.at, self.look, self.predict, self.asked_at, self.picks = 0, None, True, None, 0
        self.score = self.read_score()
        self.undone: list[tuple] = []  # what each undoable action left, as the player keeps it
        self.redone: list[tuple] = []

    @property
    def asking(self) -> bool:
        return self.predict and self.asked_at == self.at and self.picks < len(self.frame.questions)

    def state(self) -> tuple:
        return self.at, self.look, self.asked_at, self.picks, self.score

    def keep(self) -> None:
        self.undone.append(self.state())
        self.redone = []

    def read_score(self) -> tuple[int, int]:
        text = self.page.locator(".lsp-score").inner_text()
        if not text.startswith("Predictions: "):
            return (0, 0)
        right, answered = text.removeprefix("Predictions: ").split(" right of ")
        return int(right), int(answered)

    @property
    def frame(self):
        return self.frames.frames[self.at]

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)

    @rule()
    def step(self):
        self.press("s")
        if self.asking or self.at == len(self.frames.frames) - 1:
            return
        self.keep()
        self.at, self.look, self.picks = self.at + 1, None, 0
        self.asked_at = self.at if self.predict and self.frame.questions else None

    @rule()
    def run_to_end(self):
        self.press("e")
        if not self.asking and self.at < len(self.frames.frames) - 1:
            self.keep()
            self.at, self.look, self.asked_at, self.picks = len(self.frames.frames) - 1, None, None, 0

    @rule()
    def reset(self):
        self.press("r")
        if self.at > 0:
            self.keep()
            self.at, self.look, self.asked_at, self.picks = 0, None, None, 0

    @rule(pick=st.integers(0, 3))
    def answer(self, pick):
        self.press(str(pick + 1))
        if not self.asking:
            return
        question = self.frame.questions[self.picks]
        self.keep()
        self.score = (self.score[0] + (pick == question.right), self.score[1] + 1)
        self.picks += 1

    @precondition(lambda self: self.asking)
    @rule(pick=st.integers(0, 3))
    def answer_the_open_question(self, pick):
        self.answer(pick)

    @rule(key=st.sampled_from(["ArrowLeft", "ArrowRight", "Home", "End"]))
    def look_back(self, key):
        self.press(key)
        if self.asking:
            return
        latest = self.frame.turn
        turn = self.frame.turn if self.look is None else self.look
        turn = {"ArrowLeft": turn - 1, "ArrowRight": turn + 1, "Home": 0, "End": latest}[key]
        turn = max(0, min(latest, turn))
        self.look = None if turn == latest else turn

    @rule()
    def switch_predicting(self):
        self.page.locator(".lsp-switch input").click()
        self.predict = not self.predict
        if not self.predict:
            self.asked_at = None

    @rule(key=st.sampled_from(["z", "y"]), by_click=st.booleans())
    def undo_or_redo(self, key, by_click):
        if by_click:
            self.page.get_by_role("button", name="Undo" if key == "z" else "Redo", exact=True).click()
        else:
            self.press(key)
        taken, kept = (self.undone, self.redone) if key == "z" else (self.redone, self.undone)
        if not taken:
            assert self.page.locator(".lsp-notice").inner_text() == ("Nothing to undo." if key == "z" else
                                                                      "Nothing to redo.")
            return
        kept.append(self.state())
        self.at, self.look, self.asked_at, self.picks, self.score = taken.pop()

    @precondition(lambda self: self.page is not None)
    @invariant()
    def the_screen_says_where_the_run_is(self):
        page, frame = self.page, self.frame
        status = page.locator(".lsp-status-text").inner_text()
        assert status == (frame.asking_status if self.asking else frame.status)
        shown = frame.turn if self.look is None else self.look
        heading = page.locator(".lsp-card h4").inner_text()
        assert heading == ("Before the first turn" if shown == 0 else f"Turn {shown}")
        caption = page.locator(".lsp-caption").filter(has_text="Looking back").count()
        assert caption == (1 if self.look is not None and not self.asking else 0)
        assert page.get_by_role("button", name="Step", exact=True).is_disabled() == self.asking
        assert page.locator(".lsp-choices").count() == (1 if self.asking else 0)
        if self.predict:
            assert self.read_score() == self.score
        else:
            assert page.locator(".lsp-score").inner_text() == ""
        outcome = page.locator(".lsp-outcome")
        ended = frame.outcome is not None and not self.asking
        assert outcome.is_visible() == ended
        if ended:
            assert frame.outcome["headline"] in outcome.inner_text()
        slider = page.get_by_label("Turn looked at")
        assert int(slider.input_value()) == (self.frames.frames[self.at - 1].turn if self.asking else shown)


def test_a_learners_random_walk_through_an_exported_run(player_page):
    page, frames, uri = player_page
    PlayerWalk.page, PlayerWalk.frames = page, frames
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(PlayerWalk, settings=settings(max_examples=15, stateful_step_count=30, deadline=None,
                                                            suppress_health_check=list(HealthCheck)))
    assert page.errors == []
    assert set(page.requests) == {uri}  # the page itself, once a walk: nothing else
