"""A widget's callback: one of the Sandbox's actions, and what it says put where the page shows it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from agent.page.names import NoticeKind
from agent.page.sandbox import Notice
from views import player_view


def act(method: Callable[..., Notice | None], *args: Any, errors_beside: bool = False) -> Notice | None:
    """Take the action; what it says is the page's notice on this rerun. `errors_beside`: an error is returned
    instead, for the form that took the action to show beside itself (the notice is then cleared)."""
    box = st.session_state.get("sandbox")
    if box is not None:  # what the player did in the browser comes before this click
        player_view.take_up(box, (st.session_state.get(player_view.KEY) or {}).get("played"))
    said = method(*args)
    beside = errors_beside and said is not None and said.kind == NoticeKind.ERROR
    st.session_state.sandbox.notice = None if beside else said
    return said if beside else None
