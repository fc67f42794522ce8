"""The exercise's draft in the learner's browser: the component that keeps it, and the server's side of it.

`agent/page/draft.py` holds the words and what the server makes of a draft; this module holds the browser's
script and mounts it (a bidirectional `st.components.v2` component, registered once a process) and takes the
draft it sends back. The draft
arrives as the component's trigger, whose callback runs before the page script: `ss.loop_code` is set before
the editor is drawn, as Streamlit requires of a widget's value.
"""

from __future__ import annotations

import streamlit as st

from agent.page import draft
from views.page_css import EDITOR
from views.session import exercise

ss = st.session_state
EDITOR_KEY = "loop_code"
KEEPER_KEY = "loop_draft"

# A caption's look, close under the editor; red when the draft is not kept.
DRAFT_CSS = (".loop-draft-line {font-size: .875rem; line-height: 1.4; color: var(--st-text-color, #31333f); "
             "opacity: .6; margin: -.5rem 0 0 0;} .loop-draft-line.loop-draft-unkept {color: #c92a2a; opacity: 1;}")
DRAFT_HTML = '<div class="loop-draft-line" data-testid="loopDraftLine"></div>'

# The browser's side. Module state outlives one call: Streamlit calls the default export again on every change
# of its data, and again when the view is drawn anew, so each Start over token and each session's offer is
# acted on once. The input listener is on the document, so it finds the editor however often it is redrawn.
DRAFT_JS = """
const done = new Set();
let settings = null, pending = null, pendingText = null, say = () => {};

const storage = () => { try { return window.localStorage; } catch (error) { return null; } };

function write(text) {
  pending = null; pendingText = null;
  const store = storage();
  if (!settings) return;
  if (!store) { say("unkept"); return; }
  try {
    if (text === settings.starter) store.removeItem(settings.storage_key);
    else if (text.length > settings.max_chars) { store.removeItem(settings.storage_key); say("too_large"); return; }
    else store.setItem(settings.storage_key, text);
    say("kept");
  } catch (error) {
    try { store.removeItem(settings.storage_key); } catch (ignored) { /* storage turned off altogether */ }
    say("unkept");
  }
}

function flush() { if (pending !== null) { clearTimeout(pending); write(pendingText); } }

function forget() {
  if (pending !== null) clearTimeout(pending);
  pending = null; pendingText = null;
  const store = storage();
  try { if (store) store.removeItem(settings.storage_key); } catch (error) { /* nothing kept to forget */ }
  say("kept");
}

document.addEventListener("input", (event) => {
  if (!settings || !(event.target instanceof HTMLTextAreaElement) || !event.target.matches(settings.editor)) return;
  pendingText = event.target.value;
  if (pending !== null) clearTimeout(pending);
  pending = setTimeout(() => write(pendingText), settings.delay_ms);
}, true);
window.addEventListener("pagehide", flush);
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") flush(); });

export default function ({ data, parentElement, setTriggerValue }) {
  settings = data;
  const line = parentElement.querySelector(".loop-draft-line");
  say = (state) => {
    if (!line) return;
    line.textContent = settings.words[state];
    line.classList.toggle("loop-draft-unkept", state !== "kept");
  };
  if (line && !line.textContent) say("kept");
  if (data.forget && !done.has("forget:" + data.forget)) {
    done.add("forget:" + data.forget);
    forget();
  }
  if (data.offer && !done.has("offer:" + data.session)) {
    done.add("offer:" + data.session);
    const store = storage();
    let draft = null;
    try { draft = store ? store.getItem(data.storage_key) : null; } catch (error) { draft = null; }
    if (draft !== null && draft !== data.starter) setTriggerValue("draft", draft);
  }
}
"""

_mount_keeper = st.components.v2.component("loop_sandbox_draft", html=DRAFT_HTML, css=DRAFT_CSS, js=DRAFT_JS,
                                           isolate_styles=False)


def keep_draft(starter: str) -> None:
    """Mount the draft's keeper (it draws the line that says where the draft is kept) and say a restored draft.

    Call it after `ss.loop_code` has its value for this run and before the editor is drawn."""
    state = exercise().draft
    data = draft.keeper_data(starter, state.session, offer=ss[EDITOR_KEY] == starter, forget=state.forget,
                             editor=EDITOR)
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
    page = exercise()
    if restored.text is not None:
        ss[EDITOR_KEY] = restored.text
        page.check = None  # a check of the starter is not a check of the draft
        page.draft.said = True, draft.RESTORED_WORDS
    elif restored.refused:
        page.draft.said = False, restored.refused


def forget_draft() -> None:
    """Start over: the browser takes the draft out of its storage (once for this token, however often the
    component is drawn again)."""
    exercise().draft.start_over()
