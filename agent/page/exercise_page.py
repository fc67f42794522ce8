"""Write your loop's whole state in one session: the draft kept in the browser, the check on screen, and the
name this session's checks queue under. Plain data, streamlit-free; `views/session.py` keeps it under one key.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from agent.exercise import LoopCheck
from agent.page.draft import DraftState


@dataclass
class CheckShown:
    """The last check, drawn again on each run of the page until the code changes or the starter comes back."""

    source: str
    """The code it checked (the editor may hold other code since)."""
    check: LoopCheck
    cancelled: bool
    """It was stopped before it finished (true while it runs: a run stopped midway shows what it had)."""


@dataclass
class ExercisePage:
    """One learner's Write your loop page."""

    draft: DraftState = field(default_factory=DraftState)
    check: CheckShown | None = None
    owner: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Whose checks these are in the process's queue (`agent.exercise.check_queue`): one place a session."""
