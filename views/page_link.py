"""The page's link, Streamlit's side: the screen written into the URL, and the Copy link dialog.

`agent/page/links.py` packs a screen into a query and checks one back; the Sandbox (`agent/page/sandbox.py`)
logs the learner's actions and replays a link's through the same methods its buttons call.
"""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from agent.page.links import COPY_LINK_HELP, COPY_LINK_TITLE, EMBED_SAYS, Link, copy_link_says, to_query
from agent.page.names import Layout
from agent.page.sandbox import Sandbox


def write_query(box: Sandbox) -> None:
    """Put the screen into the URL, replacing what is there; only when it changed (each write is a message)."""
    if box.page.bare_visit:
        return  # the address stays bare: the browser may put back the run this tab had (page_js.remember_layout_js)
    query = to_query(box.link())
    if box.page.written_query != query:
        st.query_params.from_dict(query)  # Streamlit keeps its own embed and embed_options as they were
        box.page.written_query = query


def full_url(query: dict[str, str]) -> str:
    """The page's address with `query`: what a person pastes into another browser."""
    address = urlsplit(st.context.url or "")
    return urlunsplit((address.scheme, address.netloc, address.path or "/", urlencode(query), ""))


def copy_link_button(box: Sandbox) -> None:
    """Copy link, on either layout: the dialog with the link of the screen and what it leaves out."""
    if st.button("Copy link", icon=":material/link:", key="copy_link", on_click=box.page.widget_began,
                 help=COPY_LINK_HELP):
        link = box.link()
        copy_link_dialog(link, box.link_notes(link), box.layout)


@st.dialog(COPY_LINK_TITLE, width="large")
def copy_link_dialog(link: Link, notes: list[str], layout: Layout) -> None:
    st.caption(f"{copy_link_says(layout)} To copy it, point at the box: a copy button shows at its top right.")
    st.code(full_url(to_query(link)), language=None, wrap_lines=True)
    for note in notes:
        st.warning(note, icon=":material/info:")
    st.caption(EMBED_SAYS)
