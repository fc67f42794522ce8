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
"""

from __future__ import annotations

import copy
import io
import json
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent.branches import MAIN, BranchError, RunTree
from agent.loop import MAX_TOKENS, Model, RunState, reopen, run_to_end
from agent.models.fake import FakeModel
from agent.models.faults import Fault, fault_applied
from agent.models.hand_model import HandModel, HandReplyError, tool_use_ids
from agent.models.toy import ToyModel
from agent.page.lesson_path import PATH, place_of
from agent.page.links import Link
from agent.page.names import Layout, ModelKind, View
from agent.page.predict import Question, Verdict, questions_for
from agent.page.view import settings_of
from agent.scripts import Script, ScriptError, parse_script_text
from agent.tools import TOOLS
from agent.untrusted import UntrustedInputError, parse_json

REFERENCE_SCRIPT = "add_then_answer"  # the page starts on the lesson's reference run
MAX_TURNS_ON_PAGE = 500  # the Turn limit field's maximum
MAX_TOKENS_ON_PAGE = 128_000  # the max_tokens field's maximum
MAX_UNDO = 200  # snapshots kept: a long session does not grow without end
VIEWS = tuple(View)


@dataclass(frozen=True)
class Notice:
    """What the page says about an action: `kind` is `info`, `warning` or `error`."""

    kind: str
    text: str


@dataclass
class Settings:
    """The agent's settings as the page's controls hold them (a run keeps those it started with)."""

    task: str = ""
    system: str = ""
    tools: list[str] = field(default_factory=lambda: list(TOOLS))
    max_turns: int = 10
    max_tokens: int = MAX_TOKENS
    threads: bool = False

    def of_run(self) -> dict[str, Any]:
        return {"task": self.task, "system": self.system, "tool_names": list(self.tools),
                "max_turns": int(self.max_turns), "max_tokens": int(self.max_tokens), "threads": bool(self.threads)}


SETTING_NAMES = ("system", "tools", "max_turns", "max_tokens", "threads")
# What is undone and redone: the work, not the view or the scripts loaded (they are kept whatever is undone).
WORK = ("model", "script", "settings", "run_model", "tree", "script_models", "hand_model", "looked_at", "log",
        "from_file", "asked", "answers", "past_score")


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


@dataclass
class Sandbox:
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
    def untouched(self) -> bool:
        """Nothing has happened to the tree yet: one branch, no turn, no attempt."""
        assert self.tree is not None
        return len(self.tree.branches) == 1 and not self.run.records

    def work_words(self) -> str | None:
        """What dropping the tree would lose, in words; None when there is nothing to lose."""
        if self.untouched:
            return None
        assert self.tree is not None
        turns = sum(len(b.state.records) and b.state.turn for b in self.tree.branches.values())
        said = f"a run of {_plural(self.tree.branches[MAIN].state.turn, 'turn')}"
        others = len(self.tree.branches) - 1
        if others:
            said += f" and {_plural(others, 'branch')} ({_plural(turns, 'turn')} in all)"
        return said

    def script_model(self) -> FakeModel:
        return self.script_models[self.branch_name]

    # ------------------------------------------------------------ undo, redo

    def _mark(self) -> dict[str, Any]:
        """What Undo needs to come back here: cheap for a run a script or the toy can replay (its settings and
        the actions since it started), the whole work pickled for one it cannot (a real model's, a loaded tree)."""
        if self.run_model == ModelKind.REAL or self.from_file:
            return {"pickled": self._snapshot()}
        assert self.tree is not None
        return {"controls": copy.deepcopy(self.settings), "model": self.model, "script": self.script,
                "run_model": self.run_model, "run": settings_of(self.tree.branches[MAIN].state),
                "log": json.loads(json.dumps(self.log)), "looked_at": self.looked_at, "past_score": self.past_score}

    def _back_to(self, mark: dict[str, Any]) -> None:
        if "pickled" in mark:
            self._restore(mark["pickled"])
            return
        run = mark["run"]
        self.model, self.script = mark["run_model"], mark["script"]
        self.settings = Settings(run["task"], run["system"], run["tool_names"], run["max_turns"], run["max_tokens"],
                                 run["threads"])
        self._start_run()
        self._replaying = True
        try:
            problem = self.replay(mark["log"])
        finally:
            self._replaying = False
        assert problem is None, problem  # a run a script or the toy played replays to the same place
        self.model, self.settings, self.looked_at = mark["model"], mark["controls"], mark["looked_at"]
        self.past_score = mark["past_score"]

    def _fingerprint(self) -> tuple:
        assert self.tree is not None
        return (len(self.log), self.log[-1:], json.dumps(self.settings.of_run()), self.model, self.script,
                self.run_model, id(self.tree), self.tree.current, len(self.tree.branches), self.from_file)

    def _snapshot(self) -> bytes:
        shared = {id(script): script for script in self.scripts.values()}
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.persistent_id = lambda obj: id(obj) if id(obj) in shared and obj is shared[id(obj)] else None
        pickler.dump({name: getattr(self, name) for name in WORK})
        return buffer.getvalue()

    def _restore(self, data: bytes) -> None:
        shared = {id(script): script for script in self.scripts.values()}
        unpickler = pickle.Unpickler(io.BytesIO(data))
        unpickler.persistent_load = shared.__getitem__
        for name, value in unpickler.load().items():
            setattr(self, name, value)

    def _undoable(self, action: Callable[[], Notice | None]) -> Notice | None:
        """Take `action`, keeping what was before it for Undo; an action that changed nothing keeps nothing."""
        if self._replaying:
            return action()
        before, seen = self._mark(), self._fingerprint()
        notice = action()
        if self._fingerprint() != seen:
            self.undo_stack = [*self.undo_stack[-(MAX_UNDO - 1):], before]
            self.redo_stack = []
        return notice

    def undo(self) -> Notice | None:
        if not self.undo_stack:
            return Notice("info", "Nothing to undo.")
        self.redo_stack.append(self._mark())
        self._back_to(self.undo_stack.pop())
        return None

    def redo(self) -> Notice | None:
        if not self.redo_stack:
            return Notice("info", "Nothing to redo.")
        self.undo_stack.append(self._mark())
        self._back_to(self.redo_stack.pop())
        return None

    # ------------------------------------------------------------ runs

    def put_script_in_settings(self) -> Notice | None:
        script = self.picked_script
        self.settings.task, self.settings.system = script.task, script.system
        self.settings.tools = list(TOOLS) if self.model == ModelKind.TOY else list(script.tools)
        self.settings.max_turns = min(script.max_turns, MAX_TURNS_ON_PAGE)
        if script.max_turns > MAX_TURNS_ON_PAGE:
            return Notice("warning", f"The script asks for a turn limit of {script.max_turns:,}; the page allows at "
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

    def _dropping(self, why: str) -> Notice | None:
        """Start a new run for `why`; what the old one held, said with how to get it back."""
        lost = self.work_words()
        self._start_run()
        if lost is None:
            return None
        return Notice("info", f"{why} started a new run: {lost} went with the old one. Undo brings it back.")

    def reset(self) -> Notice | None:
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
            return Notice("warning", f"There is no script “{name}”.")

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
            return Notice("error", f"{exc}\n\n{filename} was not loaded: the run still plays "
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
        return Notice("warning", "The task is empty: type what the agent should do in the Task box, then Step.")

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
            said = Notice("info", "The run had finished, so this Step started a new run with the settings as they "
                                  f"are now ({lost} went with the old one: Undo brings it back).")
        if (empty := self.empty_task()) is not None:  # said with the new run it found empty, if it made one
            return Notice("warning", f"{said.text} {empty.text}") if said else empty
        if self.run.done:
            return Notice("info", f"The loop has finished ({self.run.result}). There is nothing left to step: "
                                  "Reset starts it again, and a new task typed above starts with the next Step.")
        model = self.model_for_run(real)
        if model is None:
            return Notice("warning", "There is no model to ask.")
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

    def send_anyway(self, real: Model) -> Notice | None:
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

    # ------------------------------------------------------------ change the past

    def fork(self, turn: int) -> Notice | None:
        if not 0 <= turn <= self.run.turn:
            return Notice("warning", f"The run on screen has no turn {turn} to fork after.")

        def act() -> Notice | None:
            assert self.tree is not None
            branch = self.tree.fork(turn)
            self._place_script()
            self.looked_at = None
            self.log.append(["fork", turn])
            k = branch.fork_turn  # the turn asked for, or the one before it when that one was refused
            return Notice("info", f"Forked {branch.name} from {branch.parent} after turn {k}. "
                                  + (f"Edit turn {k} in the panel, or Step on." if k else "Step on."))
        return self._undoable(act)

    def _place_script(self) -> None:
        """The current branch's FakeModel: the run's script, at the reply after those its records show it played."""
        assert self.tree is not None
        branch = self.tree.branch
        main = self.script_models[MAIN]
        self.script_models[branch.name] = FakeModel(main.script, mode=main.mode,
                                                    calls=branch.script_replies_used(branch.state.turn))

    def pick_branch(self, name: str) -> Notice | None:
        assert self.tree is not None
        if name not in self.tree.branches:
            return Notice("warning", f"There is no branch “{name}”.")
        if name == self.tree.current:
            return None

        def act() -> Notice | None:
            assert self.tree is not None
            self.tree.switch(name)
            self.looked_at = None
            self.log.append(["switch", name])
            return None
        return self._undoable(act)

    def edit_reply(self, stop_reason: str, blocks: list[dict[str, Any]]) -> Notice | None:
        def act() -> Notice | None:
            assert self.tree is not None
            logged = json.loads(json.dumps(blocks))
            try:
                self.tree.edit_reply(stop_reason, blocks)
            except (ValueError, BranchError) as exc:  # HandReplyError is a ValueError
                return Notice("error", str(exc))
            self._place_script()
            self.looked_at = None
            self.log.append(["edit_reply", stop_reason, logged])
            return None
        return self._undoable(act)

    def edit_result(self, position: int, content: str, is_error: bool) -> Notice | None:
        def act() -> Notice | None:
            assert self.tree is not None
            try:
                self.tree.edit_tool_result(position, content, is_error)
            except BranchError as exc:
                return Notice("error", str(exc))
            self.looked_at = None
            self.log.append(["edit_result", position, content, is_error])
            return None
        return self._undoable(act)

    def inject_fault(self, kind: str, tool: str = "", real: Model | None = None) -> Notice | None:
        if self.run.done:
            return Notice("info", f"The loop has finished ({self.run.result}): fork at an earlier turn to try a "
                                  "fault there.")
        if (empty := self.empty_task()) is not None:
            return empty
        try:
            fault = Fault(kind, tool)
        except ValueError as exc:
            return Notice("error", str(exc))
        model = self.model_for_run(real)
        if model is None:
            return Notice("warning", "There is no model to ask.")

        def act() -> Notice | None:
            assert self.tree is not None
            records = self.tree.step(model, fault)
            self.looked_at = None
            self.log.append(["fault", kind, tool])
            self._ask_after_turn()
            if fault_applied(fault, records):
                return None
            if records[0].reply is None:
                return Notice("info", f"No reply came ({records[0].error}), so the fault had nothing to act on "
                                      "and was not applied. The turn failed on its own.")
            return Notice("info", "That reply called no tool, so none could break. The turn went on as it was.")
        return self._undoable(act)

    def hand(self, stop_reason: str, blocks: list[dict[str, Any]]) -> Notice | None:
        """A reply written by hand goes into the loop as the model's next reply."""
        if (empty := self.empty_task()) is not None:
            return empty
        if self.run.done:
            return Notice("info", f"The loop has finished ({self.run.result}). Reset or fork to write another reply.")

        def act() -> Notice | None:
            assert self.tree is not None
            logged = json.loads(json.dumps(blocks))
            try:
                self.hand_model.give(stop_reason, blocks, self.run.tool_names, taken=tool_use_ids(self.run.messages))
            except (HandReplyError, ValueError) as exc:
                return Notice("error", str(exc))
            self.tree.step(self.hand_model)
            self.looked_at = None
            self.log.append(["hand", stop_reason, logged])
            self._ask_after_turn()
            return None
        return self._undoable(act)

    def load_tree(self, data: bytes | str) -> Notice | None:
        """A run tree's JSON (the "Every branch" download), read as untrusted input like any upload."""
        try:
            raw = parse_json(data, source="the run tree", expect=dict)
            tree = RunTree.from_dict(raw)
            for branch in tree.branches.values():
                for record in branch.state.records:
                    if not isinstance(record.turn, int):
                        raise ValueError("a turn record's turn is not a number")
            tree.switch(tree.current)
            settings = settings_of(tree.branches[MAIN].state)
        except (UntrustedInputError, BranchError, ValueError, TypeError, KeyError, AttributeError) as exc:
            return Notice("error", f"The run tree could not be loaded: {exc}. The page is as it was.")

        def act() -> Notice | None:
            lost = self.work_words()
            self._fold_answers()
            self.tree = tree
            self.model = self.run_model = ModelKind.SCRIPT
            self.settings = Settings(settings["task"], settings["system"], settings["tool_names"],
                                     settings["max_turns"], settings["max_tokens"], settings["threads"])
            main = FakeModel(self.picked_script)
            self.script_models = {MAIN: main}
            for name, branch in tree.branches.items():
                self.script_models[name] = FakeModel(main.script, calls=branch.script_replies_used(branch.state.turn))
            self.looked_at = None
            self.log = []
            self.from_file = True
            said = f"Loaded {_plural(len(tree.branches), 'branch')} from the file. A Step goes on with the " \
                   f"script “{self.picked_script.title}”."
            return Notice("info", said + (f" {lost} went with the old run: Undo brings it back." if lost else ""))
        return self._undoable(act)

    # ------------------------------------------------------------ predict, then step

    def _turn_key(self) -> str:
        return f"{self.branch_name}/{self.run.turn}"

    def _ask_after_turn(self) -> None:
        """While predicting, the turn just taken asks its questions (a replay takes them from the log instead)."""
        if self.predicting and not self._replaying:
            self.ask()

    def ask(self) -> Notice | None:
        """The turn just taken asks what the loop does with its reply (a link's `ask`)."""
        record = self.run.records[-1] if self.run.records else None
        if record is None or record.turn != self.run.turn or not questions_for(record, "", self.run.max_turns):
            return None  # no reply came: nothing to predict
        self.asked.add(self._turn_key())
        self.log.append(["ask"])
        return None

    def questions(self) -> list[Question]:
        """The latest turn's questions, when it asks."""
        if self._turn_key() not in self.asked:
            return []
        return questions_for(self.run.records[-1], self.branch_name, self.run.max_turns)

    def open_question(self) -> Question | None:
        """The first of the latest turn's questions not answered yet."""
        return next((q for q in self.questions() if f"{self._turn_key()}/{q.ask}" not in self.answers), None)

    def verdicts(self) -> list[Verdict]:
        """The latest turn's questions answered so far, each against what the loop did."""
        key = self._turn_key()
        return [Verdict(q, self.answers[f"{key}/{q.ask}"]) for q in self.questions()
                if f"{key}/{q.ask}" in self.answers]

    @property
    def score(self) -> tuple[int, int]:
        """Right answers and questions answered, this session."""
        right, answered = self.past_score
        for key, picked in self.answers.items():
            branch_turn, ask = key.rsplit("/", 1)
            branch, turn = branch_turn.rsplit("/", 1)
            assert self.tree is not None
            state = self.tree.branches[branch].state if branch in self.tree.branches else None
            record = next((r for r in state.records if r.turn == int(turn) and r.counted), None) if state else None
            question = next((q for q in questions_for(record, branch, state.max_turns) if q.ask == ask), None) \
                if record is not None and state is not None else None
            if question is not None:
                answered += 1
                right += picked == question.right
        return right, answered

    def predict(self, picked: int) -> Notice | None:
        """The learner's answer to the open question (0-based; keys 1-4 are 0-3)."""
        question = self.open_question()
        if question is None:
            return Notice("info", "There is no question open: Step takes the next turn, and asks about it.")
        if not 0 <= picked < len(question.choices):
            return Notice("warning", f"There are {len(question.choices)} choices: pick 1 to {len(question.choices)}.")

        def act() -> Notice | None:
            self.answers[f"{self._turn_key()}/{question.ask}"] = picked
            self.log.append(["predict", picked])
            self.looked_at = None
            return None
        return self._undoable(act)

    def set_predicting(self, on: bool) -> None:
        """The Predict, then Step switch: a preference, not part of the work (no Undo)."""
        self.predicting = bool(on)

    def set_layout(self, layout: str) -> None:
        """Start here or All controls (a preference, not part of the work: no Undo)."""
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
            return Notice("info", "That was the last scenario of the path: every stop reason and the turn limit "
                                  "have come by. All controls opens the rest of the page.")

        def act() -> Notice | None:
            self.model = ModelKind.SCRIPT
            self.script = PATH[following].script
            self.put_script_in_settings()
            return self._dropping(f"Scenario {following + 1}")
        return self._undoable(act)

    # ------------------------------------------------------------ links

    def replay(self, actions: list[list[Any]]) -> str | None:
        """Take a link's actions in order through the methods above; the first that cannot be, in words."""
        do: dict[str, Callable[..., Notice | None]] = {
            "step": lambda: self.step(), "run": lambda: self.step(to_the_end=True), "fork": self.fork,
            "switch": self.pick_branch, "edit_reply": self.edit_reply, "edit_result": self.edit_result,
            "fault": lambda kind, tool: self.inject_fault(kind, tool), "hand": self.hand, "ask": self.ask,
            "predict": self.predict}
        for number, (name, *args) in enumerate(actions, 1):
            before = len(self.log)
            notice = do[name](*args)
            if len(self.log) == before:  # not taken
                why = notice.text.rstrip(".") if notice else "it changed nothing"
                return (f"the link's actions were replayed up to action {number - 1} of {len(actions)}: action "
                        f"{number} ({name.replace('_', ' ')}) could not be taken ({why})")
        return None

    def fresh_settings(self, model: str, script_name: str | None) -> dict[str, Any]:
        """The settings a fresh page has for `model` (and, for a script, `script_name`): what a link leaves out."""
        script = self.scripts.get(script_name or "") if model == ModelKind.SCRIPT else None
        script = script or self.scripts[REFERENCE_SCRIPT]
        return {"task": script.task, "system": script.system,
                "tools": list(TOOLS) if model == ModelKind.TOY else list(script.tools),
                "max_turns": min(script.max_turns, MAX_TURNS_ON_PAGE), "max_tokens": MAX_TOKENS, "threads": False}

    def link(self) -> Link:
        """The screen as a link: the run's model, script and settings, what was done to it, the turn and the view."""
        fresh = self.fresh_settings(self.run_model, self.script)
        settings = settings_of(self.run)
        settings["tools"] = settings.pop("tool_names")
        task = settings.pop("task")
        scripted = self.run_model == ModelKind.SCRIPT
        return Link(model=self.run_model.value, script=self.script if scripted else None,
                    task=task if task != fresh["task"] else None,
                    settings={name: value for name, value in settings.items() if value != fresh[name]},
                    actions=list(self.log) if self.run_model != ModelKind.REAL and not self.from_file else [],
                    turn=self.looked_at, view=self.view, layout=self.layout, predicting=self.predicting)

    def link_notes(self, link: Link) -> list[str]:
        """What the link of this screen cannot hold, in words."""
        notes = []
        if link.script and link.script not in self.builtin:
            notes.append("The script was loaded from a file: a link names built-in scripts only, so it opens on the "
                         "reference script.")
        if self.from_file:
            notes.append("The run tree was loaded from a file: a link holds what was done on this page, so it opens "
                         "the run afresh. Share the file itself (Every branch, JSON) to share the tree.")
        if link.model == ModelKind.REAL:
            notes.append("A link never calls a real model: it brings back the settings, and the run starts afresh.")
        return notes

    def open_link(self, link: Link) -> list[str]:
        """A first visit on a link: the page as `link` says, its actions replayed (never to a real model); the
        problems, in words. The replay is where the page starts: nothing of it to undo."""
        problems = self._open_quietly(link)
        self.undo_stack, self.redo_stack = [], []
        return problems

    def follow_link(self, link: Link) -> list[str]:
        """The browser went Back or Forward to `link`'s address: this session shows that screen, and Undo comes
        back to the one it showed before (the scripts loaded stay)."""
        problems: list[str] = []
        self._undoable(lambda: problems.extend(self._open_quietly(link)))
        return problems

    def _open_quietly(self, link: Link) -> list[str]:
        self._replaying = True  # the link's actions are one action here, not one each
        try:
            return self._open(link)
        finally:
            self._replaying = False

    def _open(self, link: Link) -> list[str]:
        problems = list(link.problems)
        self.model = ModelKind(link.model)
        self.script = link.script or REFERENCE_SCRIPT
        self.settings = Settings()  # a link holds what differs from a fresh page: the rest is a fresh page's
        self.put_script_in_settings()
        if link.task is not None:
            self.settings.task = link.task
        for name, value in link.settings.items():
            if name == "max_turns" and value > MAX_TURNS_ON_PAGE:
                problems.append(f"the turn limit {value:,} is above the page's {MAX_TURNS_ON_PAGE}, which is used")
                value = MAX_TURNS_ON_PAGE
            if name == "max_tokens" and value > MAX_TOKENS_ON_PAGE:
                problems.append(f"max_tokens {value:,} is above the page's {MAX_TOKENS_ON_PAGE:,}, which is used")
                value = MAX_TOKENS_ON_PAGE
            setattr(self.settings, name, value)
        self._start_run()
        if link.model != ModelKind.REAL and (problem := self.replay(link.actions)):  # a link never calls one
            problems.append(problem)
        if link.turn is not None:
            if link.turn <= self.run.turn:
                self.look_at(link.turn)
            else:
                problems.append(f"the run has no turn {link.turn} (it stops at turn {self.run.turn}), so the latest "
                                "is shown")
        self.view = link.view
        self.layout = Layout(link.layout)
        self.predicting = (self.layout == Layout.START) if link.predicting is None else link.predicting
        return problems

