"""Small builders shared by the engine tests."""

import importlib
import os
from types import ModuleType

import pytest

from agent.api.signing import sign
from agent.loop import RunState
from agent.models.fake import FakeModel
from agent.scripts import parse_script


def tool_use(tool_id, name="add", tool_input=None):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"a": 2, "b": 3} if tool_input is None
            else tool_input}


def reply(stop_reason, *content, usage=None):
    entry = {"stop_reason": stop_reason, "content": list(content)}
    if usage:
        entry["usage"] = usage
    return entry


def text(value):
    return {"type": "text", "text": value}


def thinking(value=""):
    """A thinking block signed as the FakeModel signs one (the API sends every thinking block signed)."""
    return {"type": "thinking", "thinking": value, "signature": sign(value)}


def fake_run(*replies, task="What is 2 + 3?", tools=None, max_turns=40, mode="lesson", **settings):
    """A fresh RunState and the FakeModel that plays `replies`."""
    script = parse_script({"replies": list(replies), "task": task, "max_turns": max_turns,
                           **({"tools": tools} if tools is not None else {})}, name="test")
    state = RunState(script.task, tool_names=script.tools, max_turns=max_turns, **settings)
    return state, FakeModel(script, mode=mode)


def peer(module: str) -> ModuleType:
    """A client library of the `peers` extra, or a skip that says how to get it.

    Under CI=true a missing one fails, except in the run `.ci/run` makes before it installs the extra
    (`LOOP_SANDBOX_PEERS=later`): that run is the README's test command on a venv holding nothing else.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        message = f'{module} is not installed: pip install -e ".[peers]" runs these conformance tests'
        if os.environ.get("CI") == "true" and os.environ.get("LOOP_SANDBOX_PEERS") != "later":
            pytest.fail(message)
        pytest.skip(message)
