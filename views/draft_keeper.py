"""The exercise's draft in the learner's browser: the component that keeps it, and the server's side of it.

`agent/page/draft.py` holds the browser's script and the words; this module mounts it (a bidirectional
`st.components.v2` component, registered once a process) and takes the draft it sends back. The draft
arrives as the component's trigger, whose callback runs before the page script: `ss.loop_code` is set before
the editor is drawn, as Streamlit requires of a widget's value.
"""

from __future__ import annotations

import streamlit as st

from agent.page import draft

ss = st.session_state
EDITOR_KEY = "loop_code"
KEEPER_KEY = "loop_draft"

_mount_keeper = st.components.v2.component("loop_sandbox_draft", html=draft.DRAFT_HTML, css=draft.DRAFT_CSS,
                                           js=draft.DRAFT_JS, isolate_styles=False)


def keep_draft(starter: str) -> None:
    """Mount the draft's keeper (it draws the line that says where the draft is kept) and say a restored draft.

    Call it after `ss.loop_code` has its value for this run and before the editor is drawn."""
    state = ss.setdefault("draft", draft.DraftState())
    data = draft.keeper_data(starter, state.session, offer=ss[EDITOR_KEY] == starter, forget=state.forget)
    _mount_keeper(key=KEEPER_KEY, data=data, on_draft_change=lambda: take_draft(starter))
    said = state.take_said()
    if said is not None:
        restored, words = said
        st.toast(words, icon=":material/history:" if restored else ":material/error:")


def take_draft(starter: str) -> None:
    """The component's callback: the browser sent its stored draft; the editor takes it if it still holds the
    starter."""
    sent = (ss.get(KEEPER_KEY) or {}).get("draft")
    restored = draft.restored_draft(sent, ss.get(EDITOR_KEY, starter), starter)
    if restored.text is not None:
        ss[EDITOR_KEY] = restored.text
        ss.pop("loop_check", None)  # a check of the starter is not a check of the draft
        ss.setdefault("draft", draft.DraftState()).said = True, draft.RESTORED_WORDS
    elif restored.refused:
        ss.setdefault("draft", draft.DraftState()).said = False, restored.refused


def forget_draft() -> None:
    """Start over: the browser takes the draft out of its storage (once for this token, however often the
    component is drawn again)."""
    ss.setdefault("draft", draft.DraftState()).start_over()
