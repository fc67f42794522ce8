"""The Sandbox's first floor: the controls' actions (Reset, the model, the script, the task, the settings, the
turn looked at, the view) and stepping, with the question a turn asks while predicting. Built on
`sandbox_state.SandboxState`, which holds the fields and Undo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.loop import Model, reopen, run_to_end
from agent.page.names import ModelKind
from agent.page.predict import questions_for
from agent.page.sandbox_state import SandboxState
from agent.page.sandbox_values import (
    MAX_TOKENS_ON_PAGE,
    MAX_TURNS_ON_PAGE,
    SETTING_NAMES,
    VIEWS,
    Notice,
)
from agent.scripts import ScriptError, parse_script_text
from agent.tools import TOOLS

if TYPE_CHECKING:  # the real wing, loaded only when a real model is picked
    from agent.real import AnthropicModel


class SandboxRun(SandboxState):
    """The Sandbox's controls and its Step."""

    # ------------------------------------------------------------ asking (Predict, then Step)

    def _turn_key(self) -> str:
        return f"{self.branch_name}/{self.run.turn}"

    def _ask_after_turn(self) -> None:
        """While predicting, the turn just taken asks its questions (a replay takes them from the log instead)."""
        if self.predicting and not self.history.replaying:
            self.ask()

    def ask(self) -> Notice | None:
        """The turn just taken asks what the loop does with its reply (a link's `ask`)."""
        record = self.run.records[-1] if self.run.records else None
        if record is None or record.turn != self.run.turn or not questions_for(record, "", self.run.max_turns):
            return None  # no reply came: nothing to predict
        self.predictions.asked.add(self._turn_key())
        self.log.append(["ask"])
        return None

    def reset(self) -> Notice | None:
        if self.untouched and not self.settings_changed:  # a run with no turn: a new one would be the same
            return Notice.info("There is nothing to reset: no turn has gone through yet.")
        return self._undoable(lambda: self._dropping("Reset"))

    def pick_model(self, kind: str) -> Notice | None:
        def act() -> Notice | None:
            self.model = ModelKind(kind)
            if self.model == ModelKind.TOY:
                self.settings.tools = list(TOOLS)  # each of the toy's patterns needs one of them
            return self._dropping(f"Switching to the {self.model.value} model")
        return self._undoable(act)

    def pick_script(self, name: str) -> Notice | None:
        if name not in self.scripts:
            return Notice.warning(f"There is no script “{name}”.")

        def act() -> Notice | None:
            self.script = name
            limit = self.put_script_in_settings()
            dropped = self._dropping("Picking another script")
            return dropped or limit
        return self._undoable(act)

    def load_script(self, data: bytes, filename: str) -> Notice | None:
        """A script file the learner uploaded: picked when it reads, refused in words when it does not."""
        stem = filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        try:
            script = parse_script_text(data, name=stem, source=filename)
        except ScriptError as exc:
            return Notice.error(f"{exc}\n\n{filename} was not loaded: the run still plays "
                                f"“{self.picked_script.title}”.")
        name = f"{script.name} (your file)"
        self.uploaded[name] = script
        return self.pick_script(name)

    def set_task(self, text: str, start: bool = False) -> Notice | None:
        """The task box changed; `start` (a Toy example) starts a run with it at once."""
        def act() -> Notice | None:
            self.settings.task = text
            if start:
                return self._dropping("A new example task")
            return self._settings_moved()
        return self._undoable(act)

    def point_real_model(self, model_name: str | None = None, base_url: str | None = None) -> None:
        """Which model a real run asks, and where. Not an action on the run (no undo, no link), as the key is not:
        the next real Step uses them."""
        if model_name is not None:
            self.real_model_name = model_name
        if base_url is not None:
            self.base_url = base_url

    def change_setting(self, name: str, value: Any) -> Notice | None:
        if name not in SETTING_NAMES:
            raise ValueError(f"no setting {name!r}")

        def act() -> Notice | None:
            if name == "max_turns":
                setattr(self.settings, name, max(1, min(int(value), MAX_TURNS_ON_PAGE)))
            elif name == "max_tokens":
                setattr(self.settings, name, max(1, min(int(value), MAX_TOKENS_ON_PAGE)))
            elif name == "tools":
                self.settings.tools = [t for t in value if t in TOOLS]
            else:
                setattr(self.settings, name, value if name == "system" else bool(value))
            return self._settings_moved()
        return self._undoable(act)

    def _settings_moved(self) -> Notice | None:
        if self.untouched and self.settings_changed:
            self._start_run()  # nothing has happened yet, so the new settings simply apply
        return None

    def look_at(self, turn: int) -> None:
        """The look-back slider: the state after `turn` (the latest turn: follow the run as it grows)."""
        turn = max(0, min(int(turn), self.run.turn))
        self.looked_at = None if turn >= self.run.turn else turn

    def pick_view(self, name: str) -> None:
        if name in VIEWS:
            self.view = name

    # ------------------------------------------------------------ stepping

    def empty_task(self) -> Notice | None:
        """A run with no task yet asks for one instead of sending a request the API refuses."""
        state = self.run
        if state.records or str(state.messages[0].get("content", "")).strip():
            return None
        where = "the Task box" if self.task_box_shown else "the Task box under All controls"
        return Notice.warning(f"The task is empty: type what the agent should do in {where}, then Step.")

    def model_for_run(self, real: Model | None) -> Model | None:
        if self.run_model == ModelKind.SCRIPT:
            return self.script_model()
        if self.run_model == ModelKind.TOY:
            return self.toy
        return real

    def step(self, real: Model | None = None, to_the_end: bool = False) -> Notice | None:
        """Step (or Run to end); `real` is the real model, for a run of the Real model."""
        shared = None if real is not None else "run to end" if to_the_end else "step"  # a real model's never repeats
        return self._undoable(lambda: self._step(real, to_the_end), shared)

    def _step(self, real: Model | None, to_the_end: bool) -> Notice | None:
        said: Notice | None = None
        if self.run.done and self.settings_changed:
            lost = self.work_words()
            self._start_run()  # a finished run has nothing to carry on: a new task (or settings) is a new run
            pressed = "Run to end" if to_the_end else "Step"
            said = Notice.info(f"The run had finished, so this {pressed} started a new run with the settings as "
                               f"they are now ({lost} went with the old one: Undo brings it back).")
        if (empty := self.empty_task()) is not None:  # said with the new run it found empty, if it made one
            return Notice.warning(f"{said.text} {empty.text}") if said else empty
        if self.run.done:
            new_task = "a new task typed above starts with the next Step" if self.task_box_shown else \
                "a task of your own is typed in the Task box under All controls"
            return Notice.info(f"The loop has finished ({self.run.result}). There is nothing left to step: "
                               f"Reset starts it again, and {new_task}.")
        model = self.model_for_run(real)
        if model is None:
            return Notice.warning("There is no model to ask.")
        if to_the_end:
            run_to_end(self.run, model)
        else:
            self.tree.step(model)
        self.looked_at = None
        self.log.append(["run" if to_the_end else "step"])
        if not to_the_end:
            self._ask_after_turn()
        return said

    def send_anyway(self, real: AnthropicModel) -> Notice | None:
        """Send, as it is, the request the pre-flight check refused (the real model only)."""
        def act() -> Notice | None:
            reopen(self.run)
            real.send_anyway = True
            try:
                self.tree.step(real)
            finally:
                real.send_anyway = False
            self.looked_at = None
            self._ask_after_turn()
            return None
        return self._undoable(act)
