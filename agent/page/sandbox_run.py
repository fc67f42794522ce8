"""The Sandbox's ground layer: its fields, reading them, the actions that start and step a run, and Undo.

Every learner action is one method; it returns a `Notice` (what the page should say about it) or None. Before
each action that changes the work, `_undoable` keeps what brings it back: for a run a script or the toy played,
its settings and the actions since it started (replayed, as a link is); for a real model's run or a tree loaded
from a file, the whole work pickled. Nothing an action drops is out of reach.

The layers above add their actions, each a module read in one sitting: `sandbox_predict.Predicting` (Predict,
then Step; the lesson's path), `sandbox_past.ChangeThePast` (forks, edits, faults, replies by hand, a tree
loaded) and `sandbox_links.Links` (links, the player's actions), which is `sandbox.Sandbox`.
"""

from __future__ import annotations

import copy
import io
import json
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.branches import MAIN, RunTree
from agent.loop import Model, RunState, reopen, run_to_end
from agent.models.fake import FakeModel
from agent.models.hand_model import HandModel
from agent.models.toy import ToyModel
from agent.page.names import Layout, ModelKind, View
from agent.page.predict import questions_for
from agent.page.sandbox_values import (
    MAX_TOKENS_ON_PAGE,
    MAX_TURNS_ON_PAGE,
    MAX_UNDO,
    REFERENCE_SCRIPT,
    SETTING_NAMES,
    VIEWS,
    WORK,
    Notice,
    PageMemory,
    Predictions,
    Settings,
    UndoMarks,
    plural,
)
from agent.page.view import settings_of
from agent.scripts import Script, ScriptError, parse_script_text
from agent.tools import TOOLS

if TYPE_CHECKING:  # the real wing, loaded only when a real model is picked
    from agent.real import AnthropicModel


@dataclass
class SandboxRun:
    """One learner's sandbox page: its fields, the run, the actions that start and step it, and Undo."""

    builtin: Mapping[str, Script]
    """The built-in scripts by name (shared by every session: never changed)."""
    uploaded: dict[str, Script] = field(default_factory=dict)
    """Scripts the learner loaded from a file, by the name the picker shows."""
    model: ModelKind = ModelKind.SCRIPT
    """What the Model switch says."""
    script: str = REFERENCE_SCRIPT
    """The script picked (for the Script model)."""
    settings: Settings = field(default_factory=Settings)
    """What the controls say now."""
    run_model: ModelKind = ModelKind.SCRIPT
    """The model of the run on screen (the switch may have moved since it started)."""
    tree: RunTree = field(init=False)
    """The run and its branches; the current branch is the run on screen (`__post_init__` starts it)."""
    script_models: dict[str, FakeModel] = field(default_factory=dict)
    """Each branch's FakeModel, holding that branch's place in the script."""
    toy: ToyModel = field(default_factory=ToyModel)
    """The toy model (it keeps nothing between requests: one serves every branch)."""
    hand_model: HandModel = field(default_factory=HandModel)
    """Replies written by hand on this run (it numbers their tool ids)."""
    looked_at: int | None = None
    """The turn the look-back slider shows; None for the latest."""
    view: str = View.RUN
    """The view picked: Run, The loop, Messages or Export."""
    log: list[list[Any]] = field(default_factory=list)
    """The actions taken since the run started, as a link holds them (`agent.page.links.ACTIONS`)."""
    from_file: bool = False
    """The run tree was loaded from a file: its history is not in `log`, so a link cannot replay it."""
    real_model_name: str = ""
    """The real model's name, as the sidebar holds it."""
    base_url: str = ""
    """The real model's base URL ("" for Anthropic's)."""
    notice: Notice | None = None
    """What the page says about the last action, shown until the next action."""
    page: PageMemory = field(default_factory=PageMemory, repr=False)
    """The page's own bookkeeping between reruns (views/)."""
    layout: Layout = Layout.ALL
    """Start here (the beginner's page: a first visit's) or All controls."""
    predicting: bool = False
    """Predict, then Step: a turn stepped asks what the loop does before the page shows it."""
    predictions: Predictions = field(default_factory=Predictions)
    """The questions asked on this run, the answers and the score."""
    history: UndoMarks = field(default_factory=UndoMarks, repr=False)
    """What Undo and Redo go back to."""

    def __post_init__(self) -> None:
        self.put_script_in_settings()
        self._open_run()

    # ------------------------------------------------------------ reading it

    @property
    def scripts(self) -> dict[str, Script]:
        return {**self.builtin, **self.uploaded}

    @property
    def picked_script(self) -> Script:
        return self.scripts.get(self.script) or self.scripts[REFERENCE_SCRIPT]

    @property
    def run(self) -> RunState:
        """The run on screen: the current branch's."""
        return self.tree.branch.state

    @property
    def branch_name(self) -> str:
        return self.tree.current

    @property
    def turn_shown(self) -> int:
        """The turn whose state the page shows."""
        turn = self.run.turn
        return turn if self.looked_at is None else min(self.looked_at, turn)

    @property
    def settings_changed(self) -> bool:
        return settings_of(self.run) != self.settings.of_run() or self.run_model != self.model

    @property
    def task_box_shown(self) -> bool:
        """Whether the layout shows a Task box: All controls always, Start here for the toy only."""
        return self.layout == Layout.ALL or self.run_model == ModelKind.TOY

    @property
    def untouched(self) -> bool:
        """Nothing has happened to the tree yet: one branch, no turn, no attempt."""
        return len(self.tree.branches) == 1 and not self.run.records

    def work_words(self) -> str | None:
        """What dropping the tree would lose, in words; None when there is nothing to lose."""
        if self.untouched:
            return None
        said = f"a run of {plural(self.tree.branches[MAIN].state.turn, 'turn')}"
        branches = [b for name, b in self.tree.branches.items() if name != MAIN]
        if branches:
            own = sum(max(b.state.turn - b.fork_turn, 0) for b in branches)  # the turns before a fork are its parent's
            whose = "its" if len(branches) == 1 else "their"
            said += f" and {plural(len(branches), 'branch')} ({plural(own, 'turn')} of {whose} own)"
        return said

    def script_model(self) -> FakeModel:
        return self.script_models[self.branch_name]

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

    # ------------------------------------------------------------ runs

    def put_script_in_settings(self) -> Notice | None:
        script = self.picked_script
        fresh = Settings.of_script(script, self.model)  # the settings it does not name (max_tokens...) stay
        self.settings.task, self.settings.system, self.settings.tools, self.settings.max_turns = \
            fresh.task, fresh.system, fresh.tools, fresh.max_turns
        if script.max_turns > MAX_TURNS_ON_PAGE:
            return Notice.warning(f"The script asks for a turn limit of {script.max_turns:,}; the page allows at "
                                  f"most {MAX_TURNS_ON_PAGE}, so the run's turn limit is {MAX_TURNS_ON_PAGE}.")
        return None

    def _fold_answers(self) -> None:
        """The run's answers go into the session's score before the run goes."""
        self.predictions.past_score = self.predictions.score(self.tree)
        self.predictions.asked, self.predictions.answers = set(), {}

    def _start_run(self) -> None:
        self._fold_answers()
        self._open_run()

    def _open_run(self) -> None:
        """A new run of the settings the controls hold (the page's first, or one after the answers were kept)."""
        settings = self.settings.of_run()
        state = RunState(settings.pop("task"), **settings)
        self.tree = RunTree.start(state)
        self.script_models = {MAIN: FakeModel(self.picked_script)}
        self.hand_model = HandModel()
        self.run_model = self.model
        self.looked_at = None
        self.log = []
        self.from_file = False

    def start_afresh(self) -> None:
        """A new run with the settings the controls hold, nothing kept for Undo: a page's first run, or a copy's."""
        self._start_run()

    def _dropping(self, why: str) -> Notice | None:
        """Start a new run for `why`; what the old one held, said with how to get it back."""
        lost = self.work_words()
        self._start_run()
        if lost is None:
            return None
        return Notice.info(f"{why} started a new run: {lost} went with the old one. Undo brings it back.")

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
        return self._undoable(lambda: self._step(real, to_the_end))

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

    # ------------------------------------------------------------ undo, redo

    def _mark(self) -> dict[str, Any]:
        """What Undo needs to come back here: cheap for a run a script or the toy can replay (its settings and
        the actions since it started), the whole work pickled for one it cannot (a real model's, a loaded tree)."""
        if self.run_model == ModelKind.REAL or self.from_file:
            return {"pickled": self._snapshot()}
        return {"controls": copy.deepcopy(self.settings), "model": self.model, "script": self.script,
                "run_model": self.run_model, "run": settings_of(self.tree.branches[MAIN].state),
                "log": json.loads(json.dumps(self.log)), "looked_at": self.looked_at,
                "past_score": self.predictions.past_score}

    def _back_to(self, mark: dict[str, Any]) -> None:
        if "pickled" in mark:
            self._restore(mark["pickled"])
            return
        run = mark["run"]
        self.model, self.script = mark["run_model"], mark["script"]
        self.settings = Settings(run["task"], run["system"], run["tool_names"], run["max_turns"], run["max_tokens"],
                                 run["threads"])
        self._start_run()
        self.history.replaying = True
        try:
            problem = self.replay(mark["log"])
        finally:
            self.history.replaying = False
        assert problem is None, problem  # a run a script or the toy played replays to the same place
        self.model, self.settings, self.looked_at = mark["model"], mark["controls"], mark["looked_at"]
        self.predictions.past_score = mark["past_score"]

    def _fingerprint(self) -> tuple:
        return (len(self.log), self.log[-1:], json.dumps(self.settings.of_run()), self.model, self.script,
                self.run_model, id(self.tree), self.tree.current, len(self.tree.branches), self.from_file)

    def _snapshot(self) -> bytes:
        buffer = io.BytesIO()
        _ScriptsByName(buffer, self.scripts).dump({name: getattr(self, name) for name in WORK})
        return buffer.getvalue()

    def _restore(self, data: bytes) -> None:
        for name, value in _ScriptsFromNames(io.BytesIO(data), self.scripts).load().items():
            setattr(self, name, value)

    def _undoable(self, action: Callable[[], Notice | None]) -> Notice | None:
        """Take `action`, keeping what was before it for Undo; an action that changed nothing keeps nothing."""
        if self.history.replaying:
            return action()
        before, seen = self._mark(), self._fingerprint()
        notice = action()
        if self._fingerprint() != seen:
            self.history.undo = [*self.history.undo[-(MAX_UNDO - 1):], before]
            self.history.redo = []
        return notice

    def undo(self) -> Notice | None:
        if not self.history.undo:
            return Notice.info("Nothing to undo.")
        self.history.redo.append(self._mark())
        self._back_to(self.history.undo.pop())
        return None

    def redo(self) -> Notice | None:
        if not self.history.redo:
            return Notice.info("Nothing to redo.")
        self.history.undo.append(self._mark())
        self._back_to(self.history.redo.pop())
        return None

    def replay(self, actions: list[list[Any]]) -> str | None:
        """Take a link's actions in order (`sandbox_links.Links`, which knows every action); Undo replays with it."""
        raise NotImplementedError


class _ScriptsByName(pickle.Pickler):
    """Pickles the work with its scripts left out, by id: they are shared by every session and never change."""

    def __init__(self, file: io.BytesIO, scripts: Mapping[str, Script]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = {id(script): script for script in scripts.values()}

    def persistent_id(self, obj: Any) -> int | None:
        return id(obj) if id(obj) in self.shared and self.shared[id(obj)] is obj else None


class _ScriptsFromNames(pickle.Unpickler):
    """Unpickles what `_ScriptsByName` pickled, putting back the same script objects."""

    def __init__(self, file: io.BytesIO, scripts: Mapping[str, Script]) -> None:
        super().__init__(file)
        self.shared = {id(script): script for script in scripts.values()}

    def persistent_load(self, pid: Any) -> Script:
        return self.shared[pid]
