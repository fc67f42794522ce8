"""The notice (what the last action said) and the run's outcome, each drawn one way in both layouts (Start here
and All controls), with the API key blanked."""

from __future__ import annotations

import os

import streamlit as st

from agent.page import real_model, view
from agent.page.names import ModelKind, NoticeKind, OutcomeKind
from agent.page.safe_text import as_text
from agent.page.sandbox import Sandbox

SAY_NOTICE = {NoticeKind.INFO: st.info, NoticeKind.WARNING: st.warning, NoticeKind.ERROR: st.error}
"""How each kind of notice is drawn."""


def api_key() -> tuple[str, str]:
    """The key and where it came from (the field, ANTHROPIC_API_KEY, st.secrets); the key itself is never shown."""
    return real_model.find_api_key(st.session_state.get("api_key", ""), os.environ, st.secrets)


def show_notice(box: Sandbox, beside: str | None = None) -> None:
    """The Sandbox's notice, if it has one and it belongs here (at the top, or `beside` the form whose button
    has that key), as plain text (a notice quotes runs, scripts and files), with the API key blanked wherever it
    came from: an error's words may quote it, whichever model the run has now."""
    if box.notice and box.notice.beside == beside:
        SAY_NOTICE[box.notice.kind](as_text(box.notice.text, api_key()[0]))
    # It stays until the next action says something else: a rerun that is no action (a view picked, the
    # browser's own) must not take away what the last action said.


def show_error_beside(box: Sandbox, key: str) -> None:
    """The error the form whose button has `key` met, drawn beside it once: its fields may be changed before the
    next action (the text put right), and the words would then be about what is no longer there."""
    if box.notice is not None and box.notice.beside == key:
        show_notice(box, key)
        box.notice = None


def show_outcome(box: Sandbox, outcome: view.Outcome | None) -> None:
    """How the run ended, if it has: the answer, a stop, a refused request, or the model's failure."""
    if outcome is None:
        return
    key = api_key()[0] if box.run_model == ModelKind.REAL else ""
    headline, note = as_text(outcome.headline, key), as_text(outcome.note, key)
    if outcome.kind == OutcomeKind.ANSWER:
        st.success(f"**Answer:** {headline}  \n{note}", icon=":material/check_circle:")
    elif outcome.kind in (OutcomeKind.STOPPED, OutcomeKind.LIMIT):
        st.warning(f"**{headline}**  \n{note}", icon=":material/pan_tool:")
    elif outcome.kind == OutcomeKind.BAD_REQUEST:
        st.error(f"**{headline}**  \n{note}", icon=":material/block:")
    else:
        st.error(f"**The model failed:** {headline}  \n{note}", icon=":material/cloud_off:")
