"""FakeModel scripts: loading, checking and saving script files.

A script is one JSON file (format: `docs/script-format.md` in the repository).
Loading checks every field before any turn runs; a bad file raises
`ScriptError` with one line naming the file, the reply index and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.requests import ID_PATTERN
from agent.tools import TOOLS

DEFAULT_TASK = "Use the tools to help with the task."
DEFAULT_MAX_TURNS = 40
TOP_LEVEL_KEYS = ("title", "about", "task", "system", "tools", "max_turns", "replies", "expected_output")
BLOCK_FIELDS = {
    "text": {"text": str},
    "thinking": {"thinking": str},
    "redacted_thinking": {"data": str},
    "tool_use": {"id": str, "name": str, "input": dict},
}


class ScriptError(ValueError):
    """A script file that cannot be played; `str()` is one line for a person."""


@dataclass
class Script:
    """The replies a FakeModel plays, and the settings a run starts with."""

    replies: list[dict[str, Any]]
    """Replies (`stop_reason`, `content`, optional `usage`) or `{"error": {...}}` entries, in order."""
    name: str = "script"
    """The file's stem, or the built-in script's name."""
    title: str = ""
    """One line for the script picker."""
    about: str = ""
    """What the script shows, in a sentence or two."""
    task: str = DEFAULT_TASK
    """The task a run starts with."""
    system: str = ""
    """The system prompt."""
    tools: list[str] = field(default_factory=lambda: list(TOOLS))
    """The tools the agent is given."""
    max_turns: int = DEFAULT_MAX_TURNS
    """The turn limit."""
    expected_output: list[str] | None = None
    """What `python -m agent run` prints for this script, line by line: a golden test."""

    def to_dict(self) -> dict[str, Any]:
        """The script as its file holds it."""
        data: dict[str, Any] = {"title": self.title or self.name, "about": self.about, "task": self.task,
                                "system": self.system, "tools": self.tools, "max_turns": self.max_turns,
                                "replies": self.replies}
        if self.expected_output is not None:
            data["expected_output"] = self.expected_output
        return data


def _fail(where: str, message: str) -> ScriptError:
    return ScriptError(f"{where}: {message}")


def _check_block(where: str, block: Any) -> None:
    if not isinstance(block, dict):
        raise _fail(where, "a content block must be an object")
    kind = block.get("type")
    if kind not in BLOCK_FIELDS:
        raise _fail(where, f"unknown block type {json.dumps(kind)} (known: {', '.join(BLOCK_FIELDS)})")
    for name, expected in BLOCK_FIELDS[kind].items():
        if name not in block:
            raise _fail(where, f'{kind} needs an "{name}"' if name[0] in "aeiou" else f'{kind} needs a "{name}"')
        if not isinstance(block[name], expected):
            kind_word = {str: "a string", dict: "an object"}[expected]
            raise _fail(f"{where}.{name}", f"{kind} {name} must be {kind_word}")
    if kind == "tool_use" and not ID_PATTERN.match(block["id"]):
        raise _fail(f"{where}.id", "a tool_use id may hold only letters, digits, _ and -")
    if kind == "thinking" and "signature" in block and not isinstance(block["signature"], str):
        raise _fail(f"{where}.signature", "thinking signature must be a string")


def _check_reply(where: str, reply: Any) -> None:
    if not isinstance(reply, dict):
        raise _fail(where, "a reply must be an object")
    if "error" in reply:
        error = reply["error"]
        if not isinstance(error, dict) or not isinstance(error.get("status"), int):
            raise _fail(f"{where}.error", 'an error entry needs a whole-number "status"')
        for name in ("type", "message"):
            if not isinstance(error.get(name), str):
                raise _fail(f"{where}.error", f'an error entry needs a string "{name}"')
        retry_after = error.get("retry_after", 0)
        if not isinstance(retry_after, int | float) or isinstance(retry_after, bool) or retry_after < 0:
            raise _fail(f"{where}.error.retry_after", "retry_after must be a number of seconds")
        if not isinstance(error.get("mid_stream", False), bool):
            raise _fail(f"{where}.error.mid_stream", "mid_stream must be true or false")
        return
    if "stop_reason" not in reply:
        raise _fail(where, 'a reply needs a "stop_reason"')
    if not isinstance(reply["stop_reason"], str):
        raise _fail(f"{where}.stop_reason", "stop_reason must be a string")
    content = reply.get("content")
    if not isinstance(content, list):
        raise _fail(f"{where}.content", "content must be a list of blocks")
    for j, block in enumerate(content):
        _check_block(f"{where}.content[{j}]", block)
    if reply["stop_reason"] == "tool_use" and not any(b["type"] == "tool_use" for b in content):
        raise _fail(f"{where}.content", "a tool_use reply needs at least one tool_use block")
    usage = reply.get("usage")
    if usage is not None and not (isinstance(usage, dict) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in usage.values())):
        raise _fail(f"{where}.usage", "usage must be an object of whole numbers")


def parse_script(data: Any, name: str = "script", source: str = "script") -> Script:
    """Check a script's parsed JSON and build it; `source` names the file in errors."""
    if not isinstance(data, dict):
        raise _fail(source, "a script is a JSON object")
    unknown = sorted(set(data) - set(TOP_LEVEL_KEYS))
    if unknown:
        raise _fail(source, f"unknown key {json.dumps(unknown[0])} (known: {', '.join(TOP_LEVEL_KEYS)})")
    if "replies" not in data:
        raise _fail(source, 'a script needs "replies"')
    if not isinstance(data["replies"], list) or not data["replies"]:
        raise _fail(f"{source}: replies", "replies must be a non-empty list")
    for k, reply in enumerate(data["replies"]):
        _check_reply(f"{source}: replies[{k}]", reply)
    for key in ("title", "about", "task", "system"):
        if key in data and not isinstance(data[key], str):
            raise _fail(f"{source}: {key}", f"{key} must be a string")
    tools = data.get("tools", list(TOOLS))
    if not isinstance(tools, list):
        raise _fail(f"{source}: tools", "tools must be a list of tool names")
    for k, tool in enumerate(tools):
        if tool not in TOOLS:
            raise _fail(f"{source}: tools[{k}]", f"no tool named {json.dumps(tool)} (the tools: {', '.join(TOOLS)})")
    max_turns = data.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise _fail(f"{source}: max_turns", "max_turns must be a whole number of at least 1")
    expected = data.get("expected_output")
    if expected is not None and not (isinstance(expected, list) and all(isinstance(x, str) for x in expected)):
        raise _fail(f"{source}: expected_output", "expected_output must be a list of lines")
    return Script(replies=data["replies"], name=name, title=data.get("title") or name,
                  about=data.get("about", ""), task=data.get("task") or DEFAULT_TASK,
                  system=data.get("system", ""), tools=list(tools), max_turns=max_turns,
                  expected_output=expected)


def parse_script_text(text: str | bytes, name: str = "script", source: str = "script") -> Script:
    """Parse and check a script from the text of its file."""
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(source, f"not JSON ({exc})") from None
    return parse_script(data, name=name, source=source)


def builtin_dir() -> Path:
    """Where the built-in scripts are: in the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent
    installed = here / "builtin_scripts"  # where the wheel puts scripts/ (see pyproject.toml)
    return installed if installed.is_dir() else here.parent / "scripts"


def builtin_names() -> list[str]:
    """The built-in scripts' names, sorted."""
    return sorted(path.stem for path in builtin_dir().glob("*.json"))


def load_script(name_or_path: str | Path) -> Script:
    """A built-in script by name, or a script file by path."""
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        builtin = builtin_dir() / f"{path.name}.json"
        if builtin.exists():
            path = builtin
        else:
            raise ScriptError(f"{name_or_path}: no such file, and no built-in script of that name "
                              f"(the built-in scripts: {', '.join(builtin_names())})")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ScriptError(f"{name_or_path}: cannot read it ({exc.strerror or exc})") from None
    return parse_script_text(text, name=path.stem, source=str(name_or_path))


def save_script(script: Script, path: str | Path) -> None:
    """Write a script file that `load_script` reads back."""
    Path(path).write_text(json.dumps(script.to_dict(), indent=2) + "\n")
