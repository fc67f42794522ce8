"""A widget shows the Sandbox's value: the one way the views set a widget's state before drawing it."""

from __future__ import annotations

from typing import Any

import streamlit as st


def mirror(key: str, value: Any) -> None:
    """Set before the widget `key` is drawn, so the widget and the Sandbox never part."""
    st.session_state[key] = value
