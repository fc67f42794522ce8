"""A widget's callback: one of the Sandbox's actions, and what it says put where the page shows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import streamlit as st

from agent.page.names import NoticeKind
from agent.page.sandbox import Notice
from views import player_view


def act(method: Callable[..., Notice | None], *args: Any, beside: str | None = None) -> None:
    """Take the action; what it says is the page's notice on this rerun. `beside`: the key of the form's button
    that took it, where an error is drawn instead of at the top (views/notices.py)."""
    box = st.session_state.get("sandbox")
    if box is not None:  # what the player did in the browser comes before this click
        player_view.take_up(box, (st.session_state.get(player_view.KEY) or {}).get("played"))
    said = method(*args)
    if beside is not None and said is not None and said.kind == NoticeKind.ERROR:
        said = replace(said, beside=beside)
    st.session_state.sandbox.notice = said
