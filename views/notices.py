"""The notice: what the last action said, drawn one way in both layouts (Start here and All controls)."""

from __future__ import annotations

import streamlit as st

from agent.page.names import NoticeKind
from agent.page.safe_text import as_text
from agent.page.sandbox import Sandbox
from views.run_tabs import api_key

SAY_NOTICE = {NoticeKind.INFO: st.info, NoticeKind.WARNING: st.warning, NoticeKind.ERROR: st.error}
"""How each kind of notice is drawn."""


def show_notice(box: Sandbox) -> None:
    """The Sandbox's notice, if it has one, as plain text (a notice quotes runs, scripts and files), with the
    API key blanked wherever it came from: an error's words may quote it, whichever model the run has now."""
    if box.notice:
        SAY_NOTICE[box.notice.kind](as_text(box.notice.text, api_key()[0]))
    # It stays until the next action says something else: a rerun that is no action (a view picked, the
    # browser's own) must not take away what the last action said.
