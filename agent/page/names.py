"""One name for each of the page's choices: the models of the Model switch and the views, with the word each
takes in a link's address. The Sandbox, the links and the views all read these."""

from __future__ import annotations

from enum import StrEnum


class ModelKind(StrEnum):
    """The three models of the page's Model switch."""

    SCRIPT = "Script"
    TOY = "Toy"
    REAL = "Real"

    @property
    def word(self) -> str:
        """The model's word in a link: `script`, `toy`, `real`."""
        return self.value.lower()


class View(StrEnum):
    """The views of the sandbox page, in the picker's order."""

    RUN = "Run"
    LOOP = "The loop"
    MESSAGES = "Messages"
    EXPORT = "Export"

    @property
    def word(self) -> str:
        """The view's word in a link: `run`, `loop`, `messages`, `export`."""
        return {"The loop": "loop"}.get(self.value, self.value.lower())


class Layout(StrEnum):
    """How much of the page shows: Start here (a beginner's page) or All controls."""

    START = "Start here"
    ALL = "All controls"

    @property
    def word(self) -> str:
        """The layout's word in a link: `start`, `all`."""
        return {"Start here": "start"}.get(self.value, "all")


class NoticeKind(StrEnum):
    """How the page says a notice about an action: as news, as a warning, or as an error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


class OutcomeKind(StrEnum):
    """How a run stands when there is something to say: finished one of four ways, or a call that failed."""

    ANSWER = "answer"
    STOPPED = "stopped"
    LIMIT = "limit"
    BAD_REQUEST = "bad_request"
    MODEL_ERROR = "model_error"
    """The run goes on: the next Step tries the turn again."""
