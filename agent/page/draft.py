"""The exercise's draft, kept in the learner's own browser: what the page sends it, what it takes back.

The editor's text is written to the browser's `localStorage` as the learner types (nothing of it is written on
the server), and a new session of the page (a reload, a new tab) asks the browser for it once: the draft comes
back to this page's server session, which puts it in the editor before the editor is drawn, so Check checks it
and Download downloads it. "Start over" takes it out of the browser again. `views/draft_keeper.py` mounts
the browser's script as a Streamlit component; this module holds the words and the server's side of the
exchange, streamlit-free.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

STORAGE_KEY = "loop-sandbox:my_loop.py"
"""The draft's name in the browser's storage for this page: one editor, one file, one draft."""
MAX_DRAFT_CHARS = 1_000_000
"""The longest draft kept or taken back: a loop is a few thousand characters, and a draft comes back in one
websocket message. Debian's Chromium 156 holds 5,242,879 characters under a one-letter name (measured)."""
SAVE_DELAY_MS = 300
"""Keystrokes within this long are written as one; a reload or a closed tab writes what is pending at once."""

KEPT_WORDS = "Your draft is kept in this browser as you type, and comes back when you reload or open a new tab."
UNKEPT_WORDS = ("This browser could not keep your draft (its storage is full or turned off): a reload would "
                "bring back the starter. Download my_loop.py to keep it.")
TOO_LARGE_WORDS = (f"Your draft is over {MAX_DRAFT_CHARS:,} characters, too large to keep in this browser: "
                   "a reload would bring back the starter. Download my_loop.py to keep it.")
RESTORED_WORDS = "Restored your draft from this browser."
REFUSED_WORDS = "The draft this browser kept could not be restored ({reason}); the editor holds the starter."


@dataclass
class DraftState:
    """What one page session knows of the draft in its browser: held under one session key."""

    session: str = field(default_factory=lambda: uuid.uuid4().hex)
    """This server session's name: the browser offers its stored draft once a session."""
    forget: str | None = None
    """The token of the last Start over: the browser takes the draft out of storage once per token."""
    said: tuple[bool, str] | None = None
    """What to say once on the next run: (restored, words)."""

    def start_over(self) -> None:
        self.forget = uuid.uuid4().hex

    def take_said(self) -> tuple[bool, str] | None:
        said, self.said = self.said, None
        return said


@dataclass(frozen=True)
class Restored:
    """What the server makes of a draft the browser sent back: the text to put in the editor, or why not."""

    text: str | None
    refused: str | None = None


def keeper_data(starter: str, session: str, offer: bool, forget: str | None, editor: str) -> dict[str, Any]:
    """What the page's draft script is given on each run of the page.

    `session` names this server session (the script offers the stored draft once a session), `offer` says
    whether the editor still holds the starter and may take a draft, `forget` is the token of the last
    "Start over" (the script takes the draft out of storage once per token), `editor` is the CSS selector
    of the editor's text box in the page."""
    return {"storage_key": STORAGE_KEY, "editor": editor, "starter": starter,
            "session": session, "offer": offer, "forget": forget, "max_chars": MAX_DRAFT_CHARS,
            "delay_ms": SAVE_DELAY_MS, "words": {"kept": KEPT_WORDS, "unkept": UNKEPT_WORDS,
                                                 "too_large": TOO_LARGE_WORDS}}


def restored_draft(sent: object, editor_now: str, starter: str) -> Restored:
    """The draft the browser sent, checked: text of at most `MAX_DRAFT_CHARS` that encodes as UTF-8.

    A draft only replaces the starter: if the editor already holds something else (the learner typed before
    the draft arrived), what they typed stays. A draft equal to the starter changes nothing."""
    if sent is None or editor_now != starter:
        return Restored(None)
    if not isinstance(sent, str):
        return Restored(None, REFUSED_WORDS.format(reason="it is not text"))
    if len(sent) > MAX_DRAFT_CHARS:
        return Restored(None, REFUSED_WORDS.format(reason=f"{len(sent):,} characters, over {MAX_DRAFT_CHARS:,}"))
    try:
        sent.encode("utf-8")
    except UnicodeEncodeError:
        return Restored(None, REFUSED_WORDS.format(reason="it holds broken characters"))
    return Restored(None if sent == starter else sent)
