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

from agent.api.requests import ID_PATTERN
from agent.tools import TOOLS
from agent.untrusted import UntrustedInputError, check_value, parse_json, read_file

DEFAULT_TASK = "Use the tools to help with the task."
DEFAULT_MAX_TURNS = 40
TOP_LEVEL_KEYS = ("title", "about", "task", "system", "tools", "max_turns", "replies", "expected_output",
                  "recorded_requests")
# The statuses the Messages API answers errors with (its errors page), and those the SDK retries (408, 409, 502,
# 503). 200 is a recorded error event in the middle of a stream, so it needs `mid_stream`.
ERROR_STATUSES = frozenset({400, 401, 402, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER = 24 * 3600  # seconds: a day; a header's number, not a promise to wait that long
MAX_USAGE = 10**12  # tokens in one reply's usage: far above any real count, low enough to add and price
BLOCK_FIELDS: dict[str, dict[str, type]] = {
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
    recorded_requests: list[list[dict[str, Any]]] | None = None
    """For a recording: the messages of the request each reply answered (a replay names where a request differs)."""

    def to_dict(self) -> dict[str, Any]:
        """The script as its file holds it."""
        data: dict[str, Any] = {"title": self.title or self.name, "about": self.about, "task": self.task,
                                "system": self.system, "tools": self.tools, "max_turns": self.max_turns,
                                "replies": self.replies}
        if self.expected_output is not None:
            data["expected_output"] = self.expected_output
        if self.recorded_requests is not None:
            data["recorded_requests"] = self.recorded_requests
        return data


def _fail(where: str, message: str) -> ScriptError:
    return ScriptError(f"{where}: {message}")


def _quoted(name: str, limit: int = 60) -> str:
    """A name from the file, quoted for an error line, and cut short when it is long."""
    return json.dumps(name if len(name) <= limit else name[:limit] + "…", ensure_ascii=False)


def _check_block(where: str, block: Any) -> None:
    if not isinstance(block, dict):
        raise _fail(where, "a content block must be an object")
    kind = block.get("type")
    if not isinstance(kind, str) or kind not in BLOCK_FIELDS:
        said = f"unknown block type {_quoted(kind)}" if isinstance(kind, str) else "a block's type must be a string"
        raise _fail(where, f"{said} (known: {', '.join(BLOCK_FIELDS)})")
    for name, expected in BLOCK_FIELDS[kind].items():
        if name not in block:
            raise _fail(where, f'{kind} needs an "{name}"' if name[0] in "aeiou" else f'{kind} needs a "{name}"')
        if not isinstance(block[name], expected):
            kind_word = "a string" if expected is str else "an object"  # the two kinds BLOCK_FIELDS holds
            raise _fail(f"{where}.{name}", f"{kind} {name} must be {kind_word}")
    if kind == "tool_use" and not ID_PATTERN.match(block["id"]):
        raise _fail(f"{where}.id", "a tool_use id may hold only letters, digits, _ and -")
    if kind == "thinking" and "signature" in block and not isinstance(block["signature"], str):
        raise _fail(f"{where}.signature", "thinking signature must be a string")


def is_error_status(status: Any, mid_stream: bool = False) -> bool:
    """Whether an error entry may carry this status: one the API answers errors with, or 200 mid-stream."""
    if not isinstance(status, int) or isinstance(status, bool):
        return False
    return status in ERROR_STATUSES or (status == 200 and mid_stream)


def _check_error(where: str, error: Any) -> None:
    if not isinstance(error, dict):
        raise _fail(where, 'an error entry is an object with "status", "type" and "message"')
    status, mid_stream = error.get("status"), error.get("mid_stream", False)
    if not isinstance(mid_stream, bool):
        raise _fail(f"{where}.mid_stream", "mid_stream must be true or false")
    if not isinstance(status, int) or isinstance(status, bool):
        raise _fail(where, 'an error entry needs a whole-number "status"')
    if not is_error_status(status, mid_stream):
        said = str(status) if len(str(status)) <= 12 else f"a number of {len(str(status))} digits"
        raise _fail(f"{where}.status", f"{said} is not a status the API answers errors with (one of "
                                       f"{', '.join(map(str, sorted(ERROR_STATUSES)))}, or 200 with mid_stream)")
    for name in ("type", "message"):
        if not isinstance(error.get(name), str):
            raise _fail(where, f'an error entry needs a string "{name}"')
    retry_after = error.get("retry_after", 0)
    if not isinstance(retry_after, int | float) or isinstance(retry_after, bool) \
            or not 0 <= retry_after <= MAX_RETRY_AFTER:  # NaN fails every comparison, so it lands here too
        raise _fail(f"{where}.retry_after", f"retry_after must be a number of seconds from 0 to {MAX_RETRY_AFTER}")


def _check_reply(where: str, reply: Any) -> None:
    if not isinstance(reply, dict):
        raise _fail(where, "a reply must be an object")
    if "error" in reply:
        _check_error(f"{where}.error", reply["error"])
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
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_USAGE for v in usage.values())):
        raise _fail(f"{where}.usage", f"usage must be an object of whole numbers from 0 to {MAX_USAGE:,}")


def parse_script(data: Any, name: str = "script", source: str = "script") -> Script:
    """Check a script's parsed JSON and build it; `source` names the file in errors."""
    if not isinstance(data, dict):
        raise _fail(source, "a script is a JSON object")
    try:
        check_value(data, source)  # parsed elsewhere, maybe not through `parse_json`: the same limits hold
    except UntrustedInputError as exc:
        raise ScriptError(str(exc)) from None
    unknown = sorted(set(data) - set(TOP_LEVEL_KEYS))
    if unknown:
        raise _fail(source, f"unknown key {_quoted(unknown[0])} (known: {', '.join(TOP_LEVEL_KEYS)})")
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
        if not isinstance(tool, str):
            raise _fail(f"{source}: tools[{k}]", "a tool is named by a string")
        if tool not in TOOLS:
            raise _fail(f"{source}: tools[{k}]", f"no tool named {_quoted(tool)} (the tools: {', '.join(TOOLS)})")
    max_turns = data.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise _fail(f"{source}: max_turns", "max_turns must be a whole number of at least 1")
    expected = data.get("expected_output")
    if expected is not None and not (isinstance(expected, list) and all(isinstance(x, str) for x in expected)):
        raise _fail(f"{source}: expected_output", "expected_output must be a list of lines")
    recorded = data.get("recorded_requests")
    if recorded is not None and not (
            isinstance(recorded, list) and len(recorded) == len(data["replies"])
            and all(isinstance(sent, list) and all(isinstance(m, dict) for m in sent) for sent in recorded)):
        raise _fail(f"{source}: recorded_requests", "recorded_requests must be a list of messages lists, one for "
                                                    "each reply")
    return Script(replies=data["replies"], name=name, title=data.get("title") or name,
                  about=data.get("about", ""), task=data.get("task") or DEFAULT_TASK,
                  system=data.get("system", ""), tools=list(tools), max_turns=max_turns,
                  expected_output=expected, recorded_requests=recorded)


def parse_script_text(text: str | bytes, name: str = "script", source: str = "script") -> Script:
    """Parse and check a script from the text of its file."""
    try:
        data = parse_json(text, source)  # parse_script says what a script must be
    except UntrustedInputError as exc:
        raise ScriptError(str(exc)) from None
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
        text = read_file(path, source=str(name_or_path))  # a FIFO, a device or a huge file is refused unread
    except UntrustedInputError as exc:
        raise ScriptError(str(exc)) from None
    return parse_script_text(text, name=path.stem, source=str(name_or_path))


def save_script(script: Script, path: str | Path) -> None:
    """Write a script file that `load_script` reads back."""
    Path(path).write_text(json.dumps(script.to_dict(), indent=2) + "\n")
