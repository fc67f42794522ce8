"""Inside the sandbox's child process: run a learner's `run_agent` on scripts and report what happened.

`python -m agent.exercise.child REQUEST.json` reads the learner's source and the
scripts, caps its own memory and CPU time, then for each script runs the
learner's loop against a FakeModel and writes one JSON line: what the loop
printed and returned, how many messages each request carried, the first
request the FakeModel refused (with a copy of its messages), the tools it ran
and after which stop reason, and what it raised, with the line of the
learner's file. `agent.exercise.runner` starts this process and reads the
lines; `agent.exercise` judges them.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import inspect
import io
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.fake import FakeModel, ScriptExhausted
from agent.requests import RequestRejected
from agent.scripts import Script, parse_script
from agent.tools import run_tool as run_allowed_tool

PRINTED_CHARS = 100_000  # what one script may print or return; beyond it the text is cut, not kept in memory
TEXT_CHARS = 2_000  # an exception's message, as reported
MEMORY_RESERVE = 8 << 20  # freed on MemoryError, so the child can still write its report


class _CappedWriter(io.TextIOBase):
    """Stands in for stdout while the learner's loop runs: keeps the first `limit` characters."""

    def __init__(self, limit: int) -> None:
        self._parts: list[str] = []
        self._room = limit

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self._room > 0:
            self._parts.append(text[:self._room])
            self._room -= min(len(text), self._room)
        return len(text)

    def getvalue(self) -> str:
        return "".join(self._parts)


def _json_copy(value: Any) -> Any:
    """A plain-data copy of what the loop sent, taken before the loop can change it."""
    try:
        return json.loads(json.dumps(value, default=repr))
    except (TypeError, ValueError, RecursionError):  # a list that holds itself, say
        return repr(value)[:TEXT_CHARS]


def _cut(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS] + " ..."


class WatchedModel:
    """The `model` a learner's loop is given: the script's FakeModel, noting what the loop sends."""

    def __init__(self, fake: FakeModel) -> None:
        self._fake = fake
        self.stop_reasons: list[Any] = []
        """The stop reason of each reply given, in order."""
        self.rejected: dict[str, Any] | None = None
        """The first refused request: its number, the API's reason, and a copy of its messages."""
        self.exhausted: int | None = None
        """The number of the request that came after the script's last reply."""

    @property
    def sizes(self) -> list[Any]:
        """How many messages each request carried, as the FakeModel recorded them."""
        return [request["messages"] for request in self._fake.requests]

    def create(self, messages: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
        """Check the request and answer with the script's next reply, a plain dict."""
        number = len(self._fake.requests) + 1
        try:
            reply = self._fake.create(messages, **options)
        except RequestRejected as exc:
            if self.rejected is None:  # a loop that catches the refusal and goes on is still caught
                self.rejected = {"request": number, "reason": exc.message, "messages": _json_copy(messages)}
            raise
        except ScriptExhausted:
            self.exhausted = self.exhausted or number
            raise
        self.stop_reasons.append(reply["stop_reason"])
        return reply


def _where(exc: BaseException, filename: str, lines: list[str]) -> dict[str, Any]:
    """An exception as plain data, with the line of the learner's file it was raised from."""
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):  # no source lookups: memory may be short
        if frame.f_code.co_filename == filename:
            line = lineno
    code = lines[line - 1].strip() if line and 0 < line <= len(lines) else ""
    try:
        message = str(exc)
    except Exception:  # an exception whose __str__ raises is still reported
        message = ""
    return {"type": type(exc).__name__, "message": _cut(message), "line": line, "code": code}


def _learner_namespace(filename: str, run_tool: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    return {"__name__": "learner_loop", "__file__": filename, "__builtins__": builtins, "run_tool": run_tool}


def load_problem(code: Any, filename: str, lines: list[str]) -> str | None:
    """Why this compiled file cannot be checked, or None: it must define run_agent(task, model, max_turns)."""
    namespace = _learner_namespace(filename, lambda block: {})
    try:
        with contextlib.redirect_stdout(_CappedWriter(0)), contextlib.redirect_stderr(_CappedWriter(0)):
            exec(code, namespace)
    except BaseException as exc:  # noqa: B036  the learner's SystemExit is a problem to report, not our exit
        where = _where(exc, filename, lines)
        at = f" at line {where['line']}" if where["line"] else ""
        return f"running the file raised {where['type']}: {where['message']}{at}"
    run_agent = namespace.get("run_agent")
    if not callable(run_agent):
        return "the file defines no run_agent function"
    try:
        inspect.signature(run_agent).bind("task", "model", 40)
    except TypeError:
        return "run_agent must take three arguments: run_agent(task, model, max_turns)"
    except ValueError:  # a callable without a signature: let the call decide
        pass
    return None


def observe(code: Any, filename: str, lines: list[str], script: Script) -> dict[str, Any]:
    """Run the learner's run_agent on one script and say what happened, as plain data."""
    model = WatchedModel(FakeModel(script))
    tool_calls: list[dict[str, Any]] = []

    def run_tool(block: dict[str, Any]) -> dict[str, Any]:
        """The tool_result block answering one tool_use block (only this script's tools run)."""
        tool_calls.append({"stop_reason": model.stop_reasons[-1] if model.stop_reasons else None})
        return run_allowed_tool(block, script.tools)

    namespace = _learner_namespace(filename, run_tool)
    printed = _CappedWriter(PRINTED_CHARS)
    seen: dict[str, Any] = {"script": script.name, "returned": None, "error": None, "memory_error": False}
    try:
        with contextlib.redirect_stdout(_CappedWriter(0)), contextlib.redirect_stderr(_CappedWriter(0)):
            exec(code, namespace)  # afresh for each script: nothing carries over from the one before
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(_CappedWriter(0)):
            returned = namespace["run_agent"](script.task, model, script.max_turns)
        try:
            seen["returned"] = {"type": type(returned).__name__, "text": str(returned)[:PRINTED_CHARS]}
        except Exception as exc:
            seen["error"] = _where(exc, filename, lines)
    except BaseException as exc:  # noqa: B036  the learner's SystemExit or KeyboardInterrupt ends their run only
        if isinstance(exc, MemoryError):
            _release_reserve()
            seen["memory_error"] = True
        seen["error"] = _where(exc, filename, lines)
    seen.update(printed=printed.getvalue(), sizes=model.sizes, stop_reasons=model.stop_reasons,
                rejected=model.rejected, exhausted=model.exhausted, tool_calls=tool_calls)
    return seen


_reserve: bytearray | None = None


def _release_reserve() -> None:
    global _reserve
    _reserve = None
    gc.collect()


def _set_limits(memory_mb: int, cpu_seconds: int) -> None:
    import resource

    def cap(kind: int, value: int) -> None:
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, hard))

    cap(resource.RLIMIT_CORE, 0)
    # The CPU limit is a backstop for a child whose parent is gone; the parent's wall clock acts first.
    cap(resource.RLIMIT_CPU, cpu_seconds)
    cap(resource.RLIMIT_AS, memory_mb << 20)


def child_main(request_path: str) -> int:
    """The child: read the request, cap memory and CPU, run every script, one JSON line each."""
    global _reserve
    # The report gets a private copy of stdout; fd 1 itself goes nowhere, so code that writes
    # straight to the file descriptor cannot garble the report.
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)

    def send(message: dict[str, Any]) -> None:
        report.write(json.dumps(message) + "\n")
        report.flush()

    request = json.loads(Path(request_path).read_text(encoding="utf-8"))
    scripts = [parse_script(item["data"], name=item["name"]) for item in request["scripts"]]
    filename, source = request["filename"], request["source"]
    _set_limits(request["memory_mb"], request["cpu_seconds"])
    send({"ready": True})
    lines = source.splitlines()
    try:
        code = compile(source, filename, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, nesting too deep, ...
        line = getattr(exc, "lineno", None)
        send({"load_problem": f"line {line}: {exc.msg}" if isinstance(exc, SyntaxError) and line
              else f"the file cannot be compiled ({type(exc).__name__}: {exc})"})
        return 0
    problem = load_problem(code, filename, lines)
    if problem:
        send({"load_problem": problem})
        return 0
    send({"loaded": True})
    for script in scripts:
        _reserve = _reserve or bytearray(MEMORY_RESERVE)
        seen = observe(code, filename, lines, script)
        gc.collect()  # what a failed script left behind must not count against the next one
        send({"observation": seen})
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1]))
