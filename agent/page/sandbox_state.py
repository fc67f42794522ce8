"""The Sandbox's ground floor: its fields and parts, reading them, starting a run, and Undo.

Every learner action is a method of a layer above; each one that changes the work goes through `_undoable`, which
keeps what brings it back: for a run a script or the toy played, its settings and the actions since it started
(replayed, as a link is); for a real model's run or a tree loaded from a file, the whole work pickled. Nothing an
action drops is out of reach. What a replay of a built-in script's or the toy's run gives, and what a Step from such
a place gives, every session of the process shares (`shared_work`). The layers: this one,
`sandbox_run.SandboxRun` (the controls' actions and stepping), `sandbox_predict.Predicting`,
`sandbox_past.ChangeThePast` and `sandbox_links.Links`, which is `sandbox.Sandbox`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent.branches import MAIN, RunTree
from agent.loop import RunState
from agent.models.fake import FakeModel
from agent.models.hand_model import HandModel
from agent.models.toy import ToyModel
from agent.page.names import Layout, ModelKind, View
from agent.page.sandbox_values import (
    MAX_TURNS_ON_PAGE,
    MAX_UNDO,
    REFERENCE_SCRIPT,
    WORK,
    Notice,
    PageMemory,
    Predictions,
    Settings,
    UndoMarks,
    plural,
)
from agent.page.shared_work import REPLAYED, STEPPED, pickle_work, unpickle_work
from agent.page.view import settings_of
from agent.scripts import Script


@dataclass
class SandboxState:
    """One learner's sandbox page: its fields, reading them, starting a run, and Undo."""

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
        key = self._replay_key(mark)
        if (replayed := REPLAYED.get(key) if key else None) is not None:
            self._restore(replayed)
        else:
            run = mark["run"]
            self.model, self.script = mark["run_model"], mark["script"]
            self.settings = Settings(run["task"], run["system"], run["tool_names"], run["max_turns"],
                                     run["max_tokens"], run["threads"])
            self._start_run()
            self.history.replaying = True
            try:
                problem = self.replay(mark["log"])
            finally:
                self.history.replaying = False
            assert problem is None, problem  # a run a script or the toy played replays to the same place
            if key:
                REPLAYED.put(key, self._snapshot())
        self.model, self.settings, self.looked_at = mark["model"], mark["controls"], mark["looked_at"]
        self.predictions.past_score = mark["past_score"]

    def _replay_key(self, mark: dict[str, Any]) -> str | None:
        """What a replay to `mark` is a function of, when every session's replay gives the same: the toy's run, or
        built-in script's, in a session with no script of its own from a file (the work may hold that script).
        Predicting and the layout decide the questions."""
        if self.uploaded or mark["run_model"] == ModelKind.SCRIPT and mark["script"] not in self.builtin:
            return None
        script = mark["script"] if mark["run_model"] == ModelKind.SCRIPT else None
        return json.dumps([mark["run_model"], script, mark["run"], mark["log"], self.predicting, self.layout],
                          default=str)

    def _fingerprint(self) -> tuple[object, ...]:
        return (len(self.log), self.log[-1:], json.dumps(self.settings.of_run()), self.model, self.script,
                self.run_model, id(self.tree), self.tree.current, len(self.tree.branches), self.from_file)

    def _snapshot(self) -> bytes:
        return pickle_work({name: getattr(self, name) for name in WORK}, self.builtin, self.uploaded)

    def _restore(self, data: bytes) -> None:
        for name, value in unpickle_work(data, self.builtin, self.uploaded).items():
            setattr(self, name, value)

    def _undoable(self, action: Callable[[], Notice | None], shared: str | None = None) -> Notice | None:
        """Take `action`, keeping what was before it for Undo; an action that changed nothing keeps nothing.
        `shared` names an action whose outcome any session at the same place shares (a Step): taken from
        `STEPPED` when another session took it there first."""
        if self.history.replaying:
            return action()
        before = self._mark()
        key = self._step_key(before, shared) if shared else None
        if key and (stepped := STEPPED.get(key)) is not None:
            work, notice = stepped
            self._restore(work)
            self._keep_for_undo(before)
            return notice
        seen = self._fingerprint()
        notice = action()
        if self._fingerprint() != seen:
            self._keep_for_undo(before)
            if key:
                STEPPED.put(key, (self._snapshot(), notice))
        return notice

    def _keep_for_undo(self, before: dict[str, Any]) -> None:
        self.history.undo = [*self.history.undo[-(MAX_UNDO - 1):], before]
        self.history.redo = []

    def _step_key(self, mark: dict[str, Any], action: str) -> str | None:
        """What `action` from `mark` gives is a function of: the place (a replay's key, when every session's
        replay gives the same) and the rest of the mark, which Undo sets after its replay."""
        place = None if "pickled" in mark else self._replay_key(mark)
        if place is None:
            return None
        return json.dumps([action, place, mark["controls"], mark["model"], mark["looked_at"], mark["past_score"]],
                          default=str)

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
