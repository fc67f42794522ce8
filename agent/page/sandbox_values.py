"""The Sandbox's plain values: what a notice is, the settings the controls hold, and the page's limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.loop import MAX_TOKENS
from agent.page.names import ModelKind, NoticeKind, View
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
        "from_file", "asked", "answers", "past_score")


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
