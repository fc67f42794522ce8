"""The widgets' side of the session: a widget set to the Sandbox's value, and whether a widget began this run.

A rerun that a widget began (a click, a pick, a key pressed) carries the address the browser showed at that
moment, which can predate the address the last run wrote: a learner who clicks an answer the moment it is
drawn, before the run that drew it has ended. Only a rerun that no widget began (the browser's Back or
Forward) is a move to another address.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import streamlit as st

from agent.page.sandbox import Sandbox

# The page's own state, no widget's: the Sandbox, which holds what the widgets said last.
OWN_KEYS = ("sandbox",)


def mirror(key: str, value: Any) -> None:
    """Set before the widget `key` is drawn, so the widget and the Sandbox never part."""
    st.session_state[key] = value


PLAIN = (str, int, float, bool, type(None))


def _said() -> dict[str, int]:
    """A fingerprint of each plain value the session holds (a widget's: a button pressed is True only in the
    run it began). A file, or anything else that is not plain, is left out: it is not a click's."""
    said = {}
    for key, value in st.session_state.items():
        if isinstance(value, Enum):
            value = value.value  # as the Sandbox's value was mirrored, or as the widget gives it back
        if isinstance(value, (list, tuple)):
            if not all(isinstance(v, PLAIN) for v in value):
                continue
            value = tuple(value)  # a multiselect's
        elif not isinstance(value, PLAIN):
            continue
        if key not in OWN_KEYS:
            said[key] = hash((isinstance(value, bool), value))  # True is not 1
    return said


def remember_widgets(box: Sandbox) -> None:
    """At a run's end (a Step's fragment run too): what the widgets say now."""
    box.page.widgets_seen = _said()


def begun_by_a_widget(box: Sandbox) -> bool:
    """Whether a widget began this run: a value that differs from the last run's end, or a button pressed.

    A button is True to the end of the run it began and False after, so a value gone from True to False is
    not counted (a switch turned off is missed), nor a widget the last run did not draw."""
    seen = box.page.widgets_seen
    if seen is None:
        return False
    return any(key not in seen and value != _FALSE or key in seen and value != seen[key] and
               not (seen[key] == _TRUE and value == _FALSE) for key, value in _said().items())


_TRUE, _FALSE = hash((True, True)), hash((True, False))
