"""The built-in tools: plain functions, their JSON schemas, and `run_tool`.

A tool is a function plus the schema the model sees. `run_tool` turns one
`tool_use` block into one `tool_result` block and never raises: a tool this
agent was not given, input that does not fit the schema, and an exception
inside the tool all come back as an error result the model can read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

# The files `read_file` and `list_files` see. They live here, in memory, so a
# tool call can never touch the disk of the machine running the sandbox.
NOTES: dict[str, str] = {
    "notes.txt": (
        "Shopping: oat milk, lemons, rice.\n"
        "Call the plumber about the kitchen tap.\n"
        "Book club reads 'The Remains of the Day' next month."
    ),
    "todo.txt": (
        "Send Omid the slides from Tuesday.\n"
        "Renew the library card.\n"
        "Water the plants on the balcony."
    ),
}


@dataclass(frozen=True)
class Tool:
    """One tool the model may ask for."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the model reads to decide when to use it."""
    input_schema: dict[str, Any]
    """JSON schema of the input object; `run_tool` checks input against it."""
    function: Callable[..., Any]
    """Called with the input's fields as keyword arguments."""

    def schema(self) -> dict[str, Any]:
        """The tool as the Messages API's `tools` parameter wants it."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


def _object(required: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {field: {"type": kind} for field, kind in required.items()},
        "required": list(required),
        "additionalProperties": False,
    }


def add(a: float, b: float) -> float:
    return a + b


def word_count(text: str) -> int:
    return len(text.split())


def upper(text: str) -> str:
    return text.upper()


def read_file(path: str) -> str:
    if path not in NOTES:
        raise ValueError(f"no file named {path!r}; the files are {', '.join(sorted(NOTES))}")
    return NOTES[path]


def list_files() -> str:
    return "\n".join(sorted(NOTES))


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool("add", "Add two numbers and return their sum.", _object({"a": "number", "b": "number"}), add),
        Tool("word_count", "Count the whitespace-separated words in a text.", _object({"text": "string"}),
             word_count),
        Tool("upper", "Return the text in upper case.", _object({"text": "string"}), upper),
        Tool("read_file", "Read one of the user's note files by name.", _object({"path": "string"}), read_file),
        Tool("list_files", "List the names of the user's note files.", _object({}), list_files),
    ]
}


def tool_schemas(tool_names: Iterable[str]) -> list[dict[str, Any]]:
    """The `tools` parameter for an agent given these tools, in the order given."""
    return [TOOLS[name].schema() for name in tool_names]


def _fits(value: Any, kind: str) -> bool:
    if kind == "number":  # bool is an int in Python, but not a number in JSON
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    return True


def input_problem(tool: Tool, tool_input: Any) -> str | None:
    """Why `tool_input` does not fit the tool's schema, or None when it does."""
    if not isinstance(tool_input, dict):
        return f"{tool.name} takes an object, got {json.dumps(tool_input)}"
    properties = tool.input_schema["properties"]
    for field in tool.input_schema["required"]:
        if field not in tool_input:
            return f'{tool.name} needs "{field}"'
    for field, value in tool_input.items():
        if field not in properties:
            return f'{tool.name} has no field "{field}" (it takes {", ".join(properties) or "nothing"})'
        kind = properties[field]["type"]
        if not _fits(value, kind):
            return f'{tool.name} needs "{field}" to be a {kind}, got {json.dumps(value)}'
    return None


def result_text(value: Any) -> str:
    """A tool's return value as the text of its result: 5, not 5.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value)


@dataclass
class ToolRun:
    """One tool call as the loop ran it."""

    id: str
    """The `tool_use` block's id, which the result answers."""
    name: str
    """The tool the model asked for."""
    input: Any
    """The input the model wrote, as it wrote it."""
    content: str
    """The result's text; an error's starts with `error: `."""
    is_error: bool
    """Whether the call failed (unknown tool, not allowed, bad input, exception)."""
    seconds: float
    """Wall time the call took."""

    def result_block(self) -> dict[str, Any]:
        """The `tool_result` block that answers this call."""
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.id, "content": self.content}
        if self.is_error:
            block["is_error"] = True
        return block


def call_tool(block: dict[str, Any], tool_names: Iterable[str], toolbox: Mapping[str, Tool] = TOOLS) -> ToolRun:
    """Run one `tool_use` block for an agent given `tool_names`; never raises.

    `toolbox` is where the tools are looked up: the built-in ones, unless a
    fault (`agent.models.faults`) lends one that breaks.
    """
    started = time.perf_counter()
    name, tool_input = block.get("name"), block.get("input")
    tool = toolbox.get(name) if isinstance(name, str) else None
    allowed = list(tool_names)
    problem = None
    if tool is None:
        problem = f"there is no tool named {json.dumps(name)}"
    elif name not in allowed:
        problem = f"{name} is not available to this agent (its tools: {', '.join(allowed) or 'none'})"
    else:
        problem = input_problem(tool, tool_input)
    if problem is None and tool is not None:  # no problem: the tool exists and its input is an object
        try:
            content, is_error = result_text(tool.function(**cast(dict[str, Any], tool_input))), False
        except Exception as exc:  # a failing tool is news for the model, not a crash for the loop
            content, is_error = f"error: {exc}", True
    else:
        content, is_error = f"error: {problem}", True
    return ToolRun(str(block.get("id")), str(name), tool_input, content, is_error,
                   time.perf_counter() - started)


def run_tool(block: dict[str, Any], tool_names: Iterable[str]) -> dict[str, Any]:
    """The `tool_result` block answering one `tool_use` block; never raises."""
    return call_tool(block, tool_names).result_block()
