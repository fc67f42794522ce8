"""The Sandbox's plain values: what a notice is, the settings the controls hold, and the page's limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.branches import RunTree
from agent.loop import MAX_TOKENS
from agent.page.names import ModelKind, NoticeKind, View
from agent.page.predict import questions_for
from agent.scripts import Script
from agent.tools import TOOLS

REFERENCE_SCRIPT = "add_then_answer"  # the page starts on the lesson's reference run
MAX_TURNS_ON_PAGE = 500  # the Turn limit field's maximum
MAX_TOKENS_ON_PAGE = 128_000  # the max_tokens field's maximum
MAX_UNDO = 200  # snapshots kept: a long session does not grow without end
VIEWS = tuple(View)


@dataclass(frozen=True)
class Notice:
    """What the page says about an action."""

    kind: NoticeKind
    text: str
    beside: str | None = None  # the form it is drawn beside (its button's key), not at the top of the page

    @classmethod
    def info(cls, text: str) -> Notice:
        return cls(NoticeKind.INFO, text)

    @classmethod
    def warning(cls, text: str) -> Notice:
        return cls(NoticeKind.WARNING, text)

    @classmethod
    def error(cls, text: str) -> Notice:
        return cls(NoticeKind.ERROR, text)


@dataclass
class Settings:
    """The agent's settings as the page's controls hold them (a run keeps those it started with)."""

    task: str = ""
    system: str = ""
    tools: list[str] = field(default_factory=lambda: list(TOOLS))
    max_turns: int = 10
    max_tokens: int = MAX_TOKENS
    threads: bool = False

    @classmethod
    def of_script(cls, script: Script, model: str) -> Settings:
        """What the controls hold for a script: its own settings, every tool for the toy (it reads the task,
        not the script's list), and a turn limit the page allows."""
        return cls(task=script.task, system=script.system,
                   tools=list(TOOLS) if model == ModelKind.TOY else list(script.tools),
                   max_turns=min(script.max_turns, MAX_TURNS_ON_PAGE))

    def of_run(self) -> dict[str, Any]:
        return {"task": self.task, "system": self.system, "tool_names": list(self.tools),
                "max_turns": int(self.max_turns), "max_tokens": int(self.max_tokens), "threads": bool(self.threads)}


SETTING_NAMES = ("system", "tools", "max_turns", "max_tokens", "threads")
# What is undone and redone: the work, not the view or the scripts loaded (they are kept whatever is undone).
WORK = ("model", "script", "settings", "run_model", "tree", "script_models", "hand_model", "looked_at", "log",
        "from_file", "predictions")


def plural(count: int, word: str) -> str:
    ending = "" if count == 1 else "es" if word.endswith(("ch", "sh", "s", "x")) else "s"
    return f"{count:,} {word}{ending}"


@dataclass
class PlayerSent:
    """What the page's player was last sent, and what it handed back (Start here, `views/player_view.py`)."""

    version: str | None = None
    """The version of the player drawn last: what the player says it did of that version is taken up once."""
    taken: str | None = None
    """The id of what the player handed over last: the player lets a held click go when it sees it."""
    viz: bool = False
    """Graphviz is in this session's page (it stays there once drawn)."""
    frames_key: str | None = None
    """The frames this session's page holds (sent again only for other frames, or when it asks)."""


@dataclass
class PageMemory:
    """The page's own bookkeeping between two reruns: nothing of the run, nothing a link or Undo holds."""

    written_query: dict[str, str] | None = None
    """The URL query the page last wrote (a write is a message to the browser: only when it changes)."""
    player: PlayerSent = field(default_factory=PlayerSent)
    """What the page's player was last sent and handed back."""
    bare_visit: bool = False
    """This run is a first visit without a link: the address stays bare, for the browser to put back the run this
    tab had (views/page_js.remember_layout_js)."""
    asked_step: bool | None = None
    """A real model's Step (False) or Run to end (True), clicked and not yet taken: the Step's fragment takes it,
    where the reply can stream."""
    panel_drawn_for: tuple[Any, ...] | None = None
    """What the open Change the past panel was last drawn from: a Step's run draws it again when this changes."""
    widget_acted: bool = False
    """A widget's callback ran since the page last looked: this run was begun by a click, a pick or a key, not
    by the browser's Back or Forward (callbacks run before the page script)."""
    uploads: int = 0
    """Files refused or taken so far: each one gives the page a fresh, empty uploader."""
    real_client: Any = field(default=None, repr=False)
    """The real model's SDK client and the settings it was made with (never in a snapshot: it holds the key)."""

    def widget_began(self) -> None:
        """Every widget's callback says it (`views/widget_state.py`)."""
        self.widget_acted = True

    def take_widget_began(self) -> bool:
        """Whether a widget began this run, once: the next run asks afresh."""
        began, self.widget_acted = self.widget_acted, False
        return began


@dataclass
class UndoMarks:
    """What Undo and Redo go back to, newest last (`Sandbox._mark`), and whether a replay is under way: its
    actions are the one action that started it, not one each."""

    undo: list[dict[str, Any]] = field(default_factory=list)
    redo: list[dict[str, Any]] = field(default_factory=list)
    replaying: bool = False


@dataclass
class Predictions:
    """Predict, then Step: the turns that asked, the learner's answers and the score of the runs before."""

    asked: set[str] = field(default_factory=set)
    """The turns that ask (`branch/turn`): those stepped one at a time while predicting."""
    answers: dict[str, int] = field(default_factory=dict)
    """The learner's answers (`branch/turn/ask` -> the choice picked)."""
    past_score: tuple[int, int] = (0, 0)
    """Right answers and questions answered on the runs before this one, this session."""

    def score(self, tree: RunTree) -> tuple[int, int]:
        """Right answers and questions answered, this session: the runs before and `tree`'s answers."""
        right, answered = self.past_score
        for key, picked in self.answers.items():
            branch_turn, ask = key.rsplit("/", 1)
            branch, turn = branch_turn.rsplit("/", 1)
            state = tree.branches[branch].state if branch in tree.branches else None
            record = next((r for r in state.records if r.turn == int(turn) and r.counted), None) if state else None
            if record is None or state is None:
                continue
            question = next((q for q in questions_for(record, branch, state.max_turns) if q.ask == ask), None)
            if question is not None:
                answered += 1
                right += picked == question.right
        return right, answered
