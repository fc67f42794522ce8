"""This session's page state: the one way every view, callback and page reaches it.

The Sandbox is the sandbox page's whole state (`agent.page.sandbox`), `ExercisePage` Write your loop's;
Streamlit keeps each under one session key, which no other module names. A first visit makes the Sandbox, from
the link the address holds. Every other session key is a widget's own.
"""

from __future__ import annotations

import streamlit as st

from agent.page import view
from agent.page.exercise_page import ExercisePage
from agent.page.links import from_query
from agent.page.names import ModelKind
from agent.page.sandbox import Notice, Sandbox
from agent.tools import TOOLS
from views import player_view, serving
from views.page_js import RESTORED

KEY = "sandbox"
EXERCISE_KEY = "exercise"
ss = st.session_state
REAL_LINK = ("This link was made with the real model. A link never calls one: the run's settings are back, but not "
             "an API key or a Base URL (a link never says where your key goes), and the run starts afresh. Step sends "
             "the task to the Base URL set under Real model (empty: Anthropic's API).")
builtin_scripts = st.cache_resource(view.builtin_scripts)  # read once, shared by every session


def made() -> bool:
    """Whether this session has its Sandbox yet (not before the first visit's run makes it)."""
    return KEY in ss


def sandbox() -> Sandbox:
    """This session's Sandbox; the first visit makes it, from the link it came with. What the player did in the
    browser since the server's last word is taken up first, so the page's next action acts on the run as seen."""
    box = ss.get(KEY)
    if box is None:
        box = first_visit()
        if (played := st.query_params.get(player_view.PLAYED)) is not None:  # a reload, or a copied address
            player_view.take_up_played(box, played)
    player_view.take_up(box, (ss.get(player_view.KEY) or {}).get("played"))
    return box


def first_visit() -> Sandbox:
    box = ss[KEY] = Sandbox(builtin_scripts())
    came_back = serving.came_back_without_its_session()
    query = page_query()
    if came_back:
        box.notice = Notice.warning(serving.SESSION_REBUILT if query else serving.SESSION_LOST)
    if not query:
        box.start_here()  # a first visit with no link: the beginner's page
    else:
        link = from_query(query, list(builtin_scripts()), list(TOOLS))
        problems = box.open_link(link)
        said = [REAL_LINK] if link.model == ModelKind.REAL else []
        if problems:
            said.append("Part of this link could not be used: " + "; ".join(problems) + ".")
        if came_back:
            said.insert(0, serving.SESSION_REBUILT)
        elif RESTORED in st.query_params:
            said.insert(0, serving.RUN_RESTORED)
        box.notice = Notice.warning("  \n".join(said)) if said else None
        if len(box.tree.branches) > 1:
            ss.change_the_past = True  # open: the branch picker is in it, and it says which branch is on screen
    return box


def page_query() -> dict[str, str]:
    return {k: v for k, v in st.query_params.to_dict().items()
            if k.lower() not in ("embed", "embed_options", player_view.PLAYED, RESTORED)}


def left_for_another_page() -> None:
    """Another page's address holds none of the sandbox's screen: back on the sandbox, it is not a Back to a link."""
    if made():
        ss[KEY].page.written_query = None


def exercise() -> ExercisePage:
    """This session's Write your loop page (made on its first visit)."""
    if EXERCISE_KEY not in ss:
        ss[EXERCISE_KEY] = ExercisePage()
    page: ExercisePage = ss[EXERCISE_KEY]
    return page
