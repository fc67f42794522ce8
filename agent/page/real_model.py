"""The real model on the page: its key found, the SDK imported ahead, the model set up, its reply as it streams.

Plain Python, no streamlit: `views/sandbox.py` asks these for the model a Step of the Real model uses, and
draws the live preview from `LiveReply`.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Mapping
from typing import Any

from agent.page.safe_text import scrub


class LiveReply:
    """A streaming reply as far as it has come, from the real model's `on_event` dicts, for a live preview."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._tool: str | None = None

    def add(self, event: dict[str, Any]) -> None:
        """Take one event: `{"type": "text", "text": ...}` or `{"type": "input_json", "partial_json": ...}`."""
        if event.get("type") == "text":
            if self._tool is not None:
                self.parts.append("\n")
                self._tool = None
            self.parts.append(str(event.get("text", "")))
        elif event.get("type") == "input_json":
            name = str(event.get("name") or "tool")
            if name != self._tool:
                self.parts.append(f"{chr(10) if self.parts else ''}tool_use {name} ")
                self._tool = name
            self.parts.append(str(event.get("partial_json", "")))

    def text(self) -> str:
        return "".join(self.parts)


def for_settings(api_key: str, model_name: str, base_url: str, on_event: Any,
               send_anyway: bool = False) -> tuple[Any, str | None]:
    """The real model for these settings, or None and why not, in words that never hold the key."""
    from agent.real import DEFAULT_MODEL, AnthropicModel  # only when a person picks the real model

    base_url = base_url.strip()
    if not api_key and not base_url:
        return None, ("The real model needs an API key: set ANTHROPIC_API_KEY, put it in st.secrets, or type it "
                      "in the sidebar of All controls. A local server (a base URL) needs none.")
    try:
        # No retries behind the person's back: a failed request is shown, and the next Step is the retry.
        model = AnthropicModel(api_key=api_key or "no-key-needed", model=model_name.strip() or DEFAULT_MODEL,
                               base_url=base_url or None, on_event=on_event, max_retries=0)
    except Exception as exc:  # a bad setting is a message, not a traceback
        return None, scrub(f"The real model could not be set up: {type(exc).__name__}: {exc}", api_key)
    model.send_anyway = send_anyway
    return model, None


def find_api_key(field: str, environ: Mapping[str, str], secrets: Any) -> tuple[str, str]:
    """The API key and where it came from: the page's field, then ANTHROPIC_API_KEY, then st.secrets."""
    if field.strip():
        return field.strip(), "the field above"
    if environ.get("ANTHROPIC_API_KEY"):
        return environ["ANTHROPIC_API_KEY"], "ANTHROPIC_API_KEY"
    try:
        return str(secrets["ANTHROPIC_API_KEY"]), "st.secrets"
    except Exception:  # no secrets file, or no key in it
        return "", ""


# The anthropic SDK takes about a second to import on an idle machine, and several on a busy one
# (bench/sdk_first_use.py measures it). A script's error entry, the 529 and timeout faults and the real model
# all need it; imported in the background as the page first opens, none of them stops the page for it.
_sdk_import: threading.Thread | None = None


def import_sdk_ahead() -> threading.Thread | None:
    """Start importing the anthropic SDK in a thread of its own, once a process; the thread, or None if the SDK
    was imported before any was needed."""
    global _sdk_import
    if _sdk_import is None and "anthropic" not in sys.modules:
        _sdk_import = threading.Thread(target=importlib.import_module, args=("anthropic",), daemon=True,
                                       name="import-anthropic")
        _sdk_import.start()
    return _sdk_import


def sdk_importing() -> bool:
    """Whether the background import of the SDK is still going on."""
    return _sdk_import is not None and _sdk_import.is_alive()


def wait_for_sdk(timeout: float | None = None) -> None:
    """Until the background import has finished: a step needing the SDK then finds it whole, and no two
    threads import it at once."""
    if _sdk_import is not None:
        _sdk_import.join(timeout)
