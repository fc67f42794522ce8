"""The page's link: the learner's actions logged as they are taken, the screen written into the URL, a link replayed.

`agent/page/links.py` packs a screen into a query and checks one back; this module is its Streamlit side.
Every action a link can hold (`links.ACTIONS`) is one function of `views/sandbox.py` or
`views/change_the_past.py` that returns None when it was taken or the reason it was not, in words; the
button calls it and so does `replay`, so a replayed action is the click itself, not a copy of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from agent.page.links import ACTIONS, Link, to_query

ss = st.session_state
Action = Callable[..., "str | None"]


def clear_log() -> None:
    """A new run: what the learner did to the last one is not this run's history."""
    ss.link_actions = []


def log(name: str, *args: Any) -> None:
    """Note an action the page has just taken, as plain JSON data (a later change to `args` does not reach it)."""
    assert name in ACTIONS, name
    ss.setdefault("link_actions", []).append(json.loads(json.dumps([name, *args])))


def logged() -> list[list[Any]]:
    return list(ss.get("link_actions", []))


def write_query(link: Link) -> None:
    """Put the screen into the URL, replacing what is there; only when it changed (each write is a message)."""
    query = to_query(link)
    if ss.get("written_query") != query:
        st.query_params.from_dict(query)  # Streamlit keeps its own embed and embed_options as they were
        ss.written_query = query


def replay(actions: list[list[Any]], do: dict[str, Action]) -> str | None:
    """Take the link's actions in order through the page's own functions; stop at the first that cannot be."""
    for number, (name, *args) in enumerate(actions, 1):
        problem = do[name](*args)
        if problem:
            return (f"the link's actions were replayed up to action {number - 1} of {len(actions)}: action "
                    f"{number} ({name.replace('_', ' ')}) could not be taken ({problem.rstrip('.')})")
    return None


def full_url(query: dict[str, str]) -> str:
    """The page's address with `query`: what a person pastes into another browser."""
    address = urlsplit(st.context.url or "")
    return urlunsplit((address.scheme, address.netloc, address.path or "/", urlencode(query), ""))


@st.dialog("A link to this screen", width="large")
def copy_link_dialog(link: Link, notes: list[str]) -> None:
    st.caption("Opened in any browser, this link replays the run to this screen: the script or the task, the "
               "settings, every Step, fork, edit and fault, the turn looked at and the view. The button at the "
               "right of the box copies it.")
    st.code(full_url(to_query(link)), language=None, wrap_lines=True)
    for note in notes:
        st.warning(note, icon=":material/info:")
    st.caption("To put the page inside another site (a lesson, a course page), add `&embed=true` to the link "
               "and use it as an `<iframe>`'s `src`.")
