"""The sandbox page's whole state, as one object that knows nothing of Streamlit.

A `Sandbox` holds what a learner has on the page: the model and the script,
the settings the controls say, the run tree (each branch with its own place
in the script), the turn looked at, the view, and the actions taken since the
run started (what a link replays). Every learner action is one method; it
returns a `Notice` (what the page should say about it) or None. The page's
buttons, its keys, a link's replay and undo all go through these methods, so
a replayed action is the click itself.

Undo and redo: before each action that changes the work, the Sandbox keeps
what brings it back: for a run a script or the toy played, its settings and
the actions since it started (replayed, as a link is); for a real model's run
or a tree loaded from a file, the whole work pickled. Nothing an action drops
is out of reach.

The methods live in four modules, each read in one sitting: this one (reading the state, starting runs,
stepping), `sandbox_past` (forks, edits, faults, replies by hand, a tree loaded), `sandbox_history` (undo,
redo, links) and `sandbox_predict` (Predict, then Step; the lesson's path).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.branches import MAIN, RunTree
from agent.loop import Model, RunState, reopen, run_to_end
from agent.models.fake import FakeModel
from agent.models.hand_model import HandModel
from agent.models.toy import ToyModel
from agent.page.names import Layout, ModelKind, View
from agent.page.sandbox_history import History
from agent.page.sandbox_past import ChangeThePast
from agent.page.sandbox_predict import Predicting
from agent.page.sandbox_values import (
    MAX_TOKENS_ON_PAGE,
    MAX_TURNS_ON_PAGE,
    REFERENCE_SCRIPT,
    SETTING_NAMES,
    VIEWS,
    Notice,
    PlayerSent,
    Settings,
    plural,
)
from agent.page.view import settings_of
from agent.scripts import Script, ScriptError, parse_script_text
from agent.tools import TOOLS

if TYPE_CHECKING:  # the real wing, loaded only when a real model is picked
    from agent.real import AnthropicModel

__all__ = ["MAX_TOKENS_ON_PAGE", "MAX_TURNS_ON_PAGE", "VIEWS", "ModelKind", "Notice", "Sandbox", "Settings"]


@dataclass
class Sandbox(History, ChangeThePast, Predicting):
    """One learner's sandbox page."""

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
    tree: RunTree | None = None
    """The run and its branches; the current branch is the run on screen."""
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
    uploads: int = 0
    """Files refused or taken so far: each one gives the page a fresh, empty uploader."""
    real_client: Any = field(default=None, repr=False)
    """The real model's SDK client and the settings it was made with (never in a snapshot: it holds the key)."""
    written_query: dict[str, str] | None = None
    """The URL query the page last wrote (a write is a message to the browser: only when it changes)."""
    player: PlayerSent = field(default_factory=PlayerSent, repr=False)
    """What the page's player was last sent and handed back."""
    bare_visit: bool = False
    """This run is a first visit without a link: the address stays bare, for the browser to put back the run this
    tab had (views/page_js.remember_layout_js)."""
    asked_step: bool | None = None
    """A real model's Step (False) or Run to end (True), clicked and not yet taken: the Step's fragment takes it,
    where the reply can stream."""
    panel_drawn_for: tuple | None = None
    """What the open Change the past panel was last drawn from: a Step's run draws it again when this changes."""
    widgets_seen: dict[str, int] | None = field(default=None, repr=False)
    """The widgets' plain values when the last run ended: a rerun that changes them was begun by a widget."""
    layout: Layout = Layout.ALL
    """Start here (the beginner's page: a first visit's) or All controls."""
    predicting: bool = False
    """Predict, then Step: a turn stepped asks what the loop does before the page shows it."""
    asked: set[str] = field(default_factory=set)
    """The turns that ask (`branch/turn`): those stepped one at a time while predicting."""
    answers: dict[str, int] = field(default_factory=dict)
    """The learner's answers (`branch/turn/ask` -> the choice picked)."""
    past_score: tuple[int, int] = (0, 0)
    """Right answers and questions answered on the runs before this one, this session."""
    undo_stack: list[dict[str, Any]] = field(default_factory=list, repr=False)
    redo_stack: list[dict[str, Any]] = field(default_factory=list, repr=False)
    _replaying: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if self.tree is None:
            self.put_script_in_settings()
            self._start_run()

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
        assert self.tree is not None
        return self.tree.branch.state

    @property
    def branch_name(self) -> str:
        assert self.tree is not None
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
        assert self.tree is not None
        return len(self.tree.branches) == 1 and not self.run.records

    def work_words(self) -> str | None:
        """What dropping the tree would lose, in words; None when there is nothing to lose."""
        if self.untouched:
            return None
        assert self.tree is not None
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
        self.past_score = self.score
        self.asked, self.answers = set(), {}

    def _start_run(self) -> None:
        self._fold_answers()
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
        assert self.tree is not None
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
                assert self.tree is not None
                self.tree.step(real)
            finally:
                real.send_anyway = False
            self.looked_at = None
            self._ask_after_turn()
            return None
        return self._undoable(act)
