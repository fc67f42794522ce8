"""The Sandbox's layer for Predict, then Step and the lesson's path: the questions a turn asks, the answers
given, the layouts and the scenarios. Built on `sandbox_run.SandboxRun`; the answers are its `Predictions` part.
"""

from __future__ import annotations

from agent.loop import Model
from agent.page.lesson_path import PATH, place_of
from agent.page.names import Layout, ModelKind
from agent.page.predict import Question, Verdict, questions_for
from agent.page.sandbox_run import SandboxRun
from agent.page.sandbox_values import (
    Notice,
)

ANSWER_FIRST = "Answer the question first (keys 1 to 4): then Step goes on."  # the player says it in the same words


class Predicting(SandboxRun):
    """The Sandbox's questions, answers and path of scenarios."""

    # ------------------------------------------------------------ predict, then step

    def _step(self, real: Model | None, to_the_end: bool) -> Notice | None:
        """A turn's question open holds the run where it is, as in the player: Step and Run to end wait for it."""
        if self.open_question() is not None:
            return Notice.info(ANSWER_FIRST)
        return super()._step(real, to_the_end)

    def questions(self) -> list[Question]:
        """The latest turn's questions, when it asks."""
        if self._turn_key() not in self.predictions.asked:
            return []
        return questions_for(self.run.records[-1], self.branch_name, self.run.max_turns)

    def open_question(self) -> Question | None:
        """The first of the latest turn's questions not answered yet."""
        key = self._turn_key()
        return next((q for q in self.questions() if f"{key}/{q.ask}" not in self.predictions.answers), None)

    def verdicts(self) -> list[Verdict]:
        """The latest turn's questions answered so far, each against what the loop did."""
        key = self._turn_key()
        return [Verdict(q, self.predictions.answers[f"{key}/{q.ask}"]) for q in self.questions()
                if f"{key}/{q.ask}" in self.predictions.answers]

    @property
    def score(self) -> tuple[int, int]:
        """Right answers and questions answered, this session."""
        return self.predictions.score(self.tree)

    def predict(self, picked: int) -> Notice | None:
        """The learner's answer to the open question (0-based; keys 1-4 are 0-3)."""
        question = self.open_question()
        if question is None:
            return Notice.info("There is no question open: Step takes the next turn, and asks about it.")
        if not 0 <= picked < len(question.choices):
            return Notice.warning(f"There are {len(question.choices)} choices: pick 1 to {len(question.choices)}.")

        def act() -> Notice | None:
            self.predictions.answers[f"{self._turn_key()}/{question.ask}"] = picked
            self.log.append(["predict", picked])
            self.looked_at = None
            return None
        return self._undoable(act)

    def set_predicting(self, on: bool) -> None:
        """The Predict, then Step switch: a preference, not part of the work (no Undo)."""
        self.predicting = bool(on)

    def set_layout(self, layout: str) -> None:
        """Start here or All controls (a preference, not part of the work: no Undo)."""
        if Layout(layout) != self.layout:
            self.notice = None  # it was said on the other layout, of controls this one may not show
        self.layout = Layout(layout)

    def start_here(self) -> None:
        """A first visit, with no link: the beginner's page, predicting."""
        self.layout, self.predicting = Layout.START, True

    # ------------------------------------------------------------ the lesson's path

    @property
    def scenario(self) -> int | None:
        """The run's place on the lesson's path, for a built-in script on it."""
        return place_of(self.script) if self.model == ModelKind.SCRIPT and self.script in self.builtin else None

    def next_scenario(self) -> Notice | None:
        """The next script on the lesson's path (the first, from a script off it)."""
        at = self.scenario
        following = 0 if at is None else at + 1
        if following >= len(PATH):
            return Notice.info("That was the last scenario of the path: every stop reason and the turn limit "
                               "have come by. All controls opens the rest of the page.")

        def act() -> Notice | None:
            self.model = ModelKind.SCRIPT
            self.script = PATH[following].script
            self.put_script_in_settings()
            return self._dropping(f"Scenario {following + 1}")
        return self._undoable(act)
