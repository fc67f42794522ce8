"""A widget's callback: one of the Sandbox's actions, and what it says put where the page shows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from agent.page.names import NoticeKind
from agent.page.sandbox import Notice
from views.session import sandbox


def act(method: Callable[..., Notice | None], *args: Any, beside: str | None = None) -> None:
    """Take the action; what it says is the page's notice on this rerun. `beside`: the key of the form's button
    that took it, where an error is drawn instead of at the top (views/notices.py)."""
    box = sandbox()  # what the player did in the browser is taken up first: it came before this click
    box.page.widget_began()  # views/widget_state.py: a click's run, not the browser's Back
    said = method(*args)
    if beside is not None and said is not None and said.kind == NoticeKind.ERROR:
        said = replace(said, beside=beside)
    box.notice = said
