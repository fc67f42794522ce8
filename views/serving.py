"""What the page says when a tab comes back to a process that no longer has its session.

The process itself is tuned for a class by the launcher (`python -m agent serve-page`, views/launcher.py).
"""

from __future__ import annotations

SESSION_LOST = ("The connection to the server broke, and the server this page came back to no longer had your "
                "session (its process was restarted or stopped, or you were away longer than it keeps one): this "
                "is a fresh start, and the run you had is gone.")
SESSION_REBUILT = ("The connection to the server broke, and the server this page came back to no longer had your "
                   "session (its process was restarted or stopped, or you were away longer than it keeps one): the "
                   "page replayed its address, so the run is back as its link holds it. Undo's history, a file you "
                   "loaded and a real model's replies are not in a link.")

RUN_RESTORED = ("A reload starts a new session, so this tab's Sandbox had gone: the page opened the last address it "
                "had in this tab, and the run is back as its link holds it. Undo's history, a file you loaded and a "
                "real model's replies are not in a link, so Undo starts from here.")


def came_back_without_its_session() -> bool:
    """True when this tab reconnected asking for an earlier session that this process does not have.

    Streamlit's browser client reconnects with the old session's id as the third entry of the websocket's
    subprotocol header; a process that has that session resumes it (the page's state is still there), one
    that has not starts a new, empty session without a word. The page says so instead.
    """
    import streamlit as st

    entries = [entry.strip() for entry in (st.context.headers.get("Sec-WebSocket-Protocol") or "").split(",")]
    return len(entries) >= 3 and bool(entries[2])
