"""The widgets' side of the session: a widget set to the Sandbox's value, and whether a widget began this run.

A rerun that a widget began (a click, a pick, a key pressed) carries the address the browser showed at that
moment, which can predate the address the last run wrote: a learner who clicks an answer the moment it is
drawn, before the run that drew it has ended. Only a rerun that no widget began (the browser's Back or
Forward) is a move to another address. Streamlit runs a widget's callback before the page script, so every
widget of the sandbox's page has one, and every callback says it (`PageMemory.widget_began`): `act` for an
action, `acting` around anything else, `touched` for a widget with nothing to do. The architecture test holds
every widget of the page to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from agent.page.sandbox import Sandbox
from views.session import sandbox


def mirror(key: str, value: Any) -> None:
    """Set before the widget `key` is drawn, so the widget and the Sandbox never part."""
    st.session_state[key] = value


def acting(box: Sandbox, callback: Callable[..., Any]) -> Callable[..., None]:
    """`callback` as a widget's callback: it says a widget began this run, then does its work."""
    def acted(*args: Any) -> None:
        box.page.widget_began()
        callback(*args)
    return acted


def touched() -> None:
    """The callback of a widget with nothing to do before the run (a field, a switch, a panel opened)."""
    sandbox().page.widget_began()


def begun_by_a_widget(box: Sandbox) -> bool:
    """Whether a widget began this run (asked once a run: a Step's fragment run asks too, so its click is not
    taken for the next run's)."""
    return box.page.take_widget_began()
