"""The judging side: plays each script's FakeModel for the learner's process and notes what it sees.

The learner's process (`child.py`, started by `agent.exercise.runner`) holds
only their file and two proxies. Here, out of its reach, live the FakeModel,
the script, and the record of what the loop did: every request is checked by
the FakeModel here, every tool runs here, and the printed output is read from
the child's real stdout. Everything the child says is untrusted data: each
message is size-bounded and checked against the protocol's shape, and one that
does not fit ends that child as a crash. A verdict can change only through what
a loop can legitimately do: send requests, run tools, print, and return.

The file is loaded once and every script then runs in the same process, in
order, so a loop that keeps state between calls shows it on the next script.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agent.api.requests import RequestRejected
from agent.exercise.runner import MESSAGE_BYTES, ChildProcess, Limits, why_ended
from agent.models.fake import FakeModel, ScriptExhausted
from agent.scripts import Script
from agent.tools import run_tool

START_SECONDS = 20.0  # the child's interpreter and sandbox start-up, on a busy machine


@dataclass
class Observation:
    """What the judge saw of the learner's loop on one script."""

    script: str
    """The script's name."""
    printed: str = ""
    """What the loop printed on stdout while it ran."""
    requests: list[Any] = field(default_factory=list)
    """The messages of each request, as sent (decoded from JSON)."""
    stop_reasons: list[Any] = field(default_factory=list)
    """The stop reason of each reply given, in order."""
    tool_calls: list[Any] = field(default_factory=list)
    """For each run_tool call, the stop reason of the reply before it (None before any reply)."""
    tool_call_replies: list[int] = field(default_factory=list)
    """For each run_tool call, how many replies the loop had been given by then."""
    rejected: dict[str, Any] | None = None
    """The first refused request: its number, the API's reason and its messages."""
    exhausted: int | None = None
    """The number of the first request that came after the script's last reply."""
    decided_lines: list[int] = field(default_factory=list)
    """The learner's lines that ran between the last reply and that request."""
    printed_cut: bool = False
    """Whether `printed` lost what the loop printed past the judge's limit (so later lines are missing)."""
    returned: dict[str, Any] | None = None
    """What run_agent returned: its type's name and its text."""
    error: dict[str, Any] | None = None
    """What run_agent raised: type, message, line of the learner's file and its code."""
    memory_error: bool = False
    """Whether what it raised was a MemoryError."""
    ended: str | None = None
    """`time_limit`, `crash` or `not_run` when the script never finished; None when it did."""
    message: str = ""
    """Why it never finished, in words."""
    earlier_tasks: list[str] = field(default_factory=list)
    """The tasks of the scripts this same process ran before this one, in order."""
    earlier_replies: list[Any] = field(default_factory=list)
    """The content of every reply the scripts run before this one in this process gave, in order."""
    earlier_turns: list[int] = field(default_factory=list)
    """For each earlier script of this process that printed a tool line, the turn number its first one said."""
    earlier_returns_on_tool_use: int = 0
    """How many earlier scripts of this process the loop returned from right after a tool_use reply."""
    request_times: list[float] = field(default_factory=list)
    """When each request came, in seconds after the run began."""
    seconds: float = 0.0
    """How long the run took, until it returned, raised or was ended."""
    cpu_seconds: float | None = None
    """The CPU time the learner's process used during the run; None where it cannot be read."""

    @property
    def earlier_scripts(self) -> int:
        """How many scripts this same process ran before this one."""
        return len(self.earlier_tasks)

    @property
    def sizes(self) -> list[int | None]:
        """How many messages each request carried (None for a request whose messages were not a list)."""
        return [len(messages) if isinstance(messages, list) else None for messages in self.requests]


class ProtocolError(ValueError):
    """A child message that does not fit the protocol."""


_SHAPES: dict[str, dict[str, tuple[type, ...]]] = {
    "loading": {},
    "loaded": {},
    "load_problem": {"text": (str,)},
    "request": {"messages": (object,), "options": (dict,), "trail": (list,)},
    "tool": {"block": (object,)},
    "returned": {"type": (str,), "text": (str,)},
    "raised": {"type": (str,), "message": (str,), "line": (int, type(None)), "code": (str,), "memory": (bool,)},
}


def parse_message(line: bytes) -> dict[str, Any]:
    """One child message, checked against the protocol's shape; ProtocolError when it does not fit."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("not JSON") from exc
    if not isinstance(message, dict) or message.get("kind") not in _SHAPES:
        raise ProtocolError("not a message the child may send")
    for name, kinds in _SHAPES[message["kind"]].items():
        if name not in message or not isinstance(message[name], kinds) or isinstance(message[name], bool) \
                and bool not in kinds:
            raise ProtocolError(f"{message['kind']}.{name} is missing or of the wrong type")
    if message["kind"] == "request" and not all(isinstance(n, int) for n in message["trail"]):
        raise ProtocolError("request.trail must hold line numbers")
    return message


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


_OPTIONS = ("system", "tools", "max_tokens")  # what the FakeModel reads of a request besides its messages


class _Script:
    """One script's run in the child: the FakeModel answers, the tools run, the observation fills in."""

    def __init__(self, child: ChildProcess, script: Script, seen: Observation) -> None:
        self.child, self.script, self.seen = child, script, seen
        self.fake = FakeModel(script)
        self.started = time.monotonic()
        self.replies: list[Any] = []

    def answer_request(self, message: dict[str, Any]) -> bytes:
        seen, messages = self.seen, message["messages"]
        seen.requests.append(messages)
        seen.request_times.append(time.monotonic() - self.started)
        number = len(seen.requests)
        options = {name: message["options"][name] for name in _OPTIONS if name in message["options"]}
        try:
            reply = self.fake.create(messages, **options)
        except RequestRejected as exc:
            if seen.rejected is None:  # a loop that catches the refusal and goes on is still caught
                seen.rejected = {"request": number, "reason": exc.message, "messages": messages}
            return _line({"kind": "refused", "message": exc.message})
        except ScriptExhausted:
            if seen.exhausted is None:
                seen.exhausted, seen.decided_lines = number, message["trail"]
            return _line({"kind": "finished"})
        except Exception as exc:  # options of the wrong type: the API would refuse them too
            reason = f"{type(exc).__name__}: {exc}"
            if seen.rejected is None:
                seen.rejected = {"request": number, "reason": reason, "messages": messages}
            return _line({"kind": "refused", "message": reason})
        seen.stop_reasons.append(reply["stop_reason"])
        self.replies.append(reply["content"])
        return _line({"kind": "reply", "reply": reply})

    def answer_tool(self, message: dict[str, Any]) -> bytes:
        seen, block = self.seen, message["block"]
        seen.tool_calls.append(seen.stop_reasons[-1] if seen.stop_reasons else None)
        seen.tool_call_replies.append(len(seen.stop_reasons))
        if isinstance(block, dict):
            result = run_tool(block, self.script.tools)
        else:
            result = {"type": "tool_result", "tool_use_id": None, "is_error": True,
                      "content": "error: run_tool takes one tool_use block (a dict)"}
        return _line({"kind": "tool_result", "result": result})


def _remember(earlier: Observation, script: Script, seen: Observation, replies: list[Any]) -> None:
    """Note what one run showed that a later run in the same process may need as evidence of kept state."""
    earlier.earlier_tasks.append(script.task)
    earlier.earlier_replies.extend(replies)
    turn = _first_turn(seen.printed)
    if turn is not None:
        earlier.earlier_turns.append(turn)
    if seen.returned is not None and seen.stop_reasons[-1:] == ["tool_use"]:
        earlier.earlier_returns_on_tool_use += 1


def _run_one(child: ChildProcess, script: Script, seen: Observation, limits: Limits,
             tick: Callable[[], None] | None) -> list[Any] | None:
    """Run one script in the child: the content of the replies it was given when the child can go on to the
    next script, None when it cannot."""
    playing = _Script(child, script, seen)
    child.take_printed()  # what it printed before this script (loading, the script before) is not this one's
    cpu_before = process_cpu_seconds(child.process.pid)
    child.send(_line({"kind": "run", "task": script.task, "max_turns": script.max_turns}))
    deadline = time.monotonic() + limits.seconds
    while True:
        line = child.next_line(deadline, tick)
        if line is None or not line:  # how long it ran and what it used, while its process is still there
            seen.seconds = time.monotonic() - playing.started
            cpu_after = process_cpu_seconds(child.process.pid)
            seen.cpu_seconds = None if cpu_before is None or cpu_after is None else max(0.0, cpu_after - cpu_before)
        if line is None:
            seen.printed = child.take_printed()
            seen.ended, seen.message = "time_limit", f"did not finish within {limits.seconds:g} s (time limit)"
            child.end()
            return None
        if not line and child.oversized:
            seen.printed = child.take_printed()
            seen.ended, seen.message = "crash", f"the sandbox sent the judge more than {MESSAGE_BYTES >> 20} MB at once"
            child.end()
            return None
        if not line:
            seen.printed = child.take_printed()
            why = why_ended(child.wait_ended(), bytes(child.stderr))
            seen.ended, seen.message = ("time_limit" if "time limit" in why else "crash"), f"the process {why}"
            return None
        try:
            message = parse_message(line)
        except ProtocolError:  # the learner's code wrote into the protocol: this child can't be trusted
            seen.printed = child.take_printed()
            seen.ended, seen.message = "crash", "the sandbox's report could not be read"
            child.end()
            return None
        kind = message["kind"]
        if kind == "request":
            child.send(playing.answer_request(message))
        elif kind == "tool":
            child.send(playing.answer_tool(message))
        elif kind in ("returned", "raised"):
            seen.seconds = time.monotonic() - playing.started
            seen.printed, seen.printed_cut = child.take_printed(), child.printed_cut
            if kind == "returned":
                seen.returned = {"type": message["type"], "text": message["text"]}
            else:
                seen.error = {name: message[name] for name in ("type", "message", "line", "code")}
                seen.memory_error = message["memory"]
            return playing.replies
        # `loaded` or `load_problem` in the middle of a run: ignore, as it changes nothing


def process_cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) used so far by a process and every process under it, from /proc; None
    where /proc cannot be read (another system, or the process already gone)."""
    total, todo, seen = 0, [pid], set()
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            with open(f"/proc/{current}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime and stime, after the name's closing bracket
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as children:
                    todo.extend(int(child) for child in children.read().split())
    except (OSError, ValueError, IndexError):
        return None
    return total / ticks


_TURN_LINE = re.compile(r"turn (\d+):", re.MULTILINE)


def _first_turn(printed: str) -> int | None:
    """The turn number the first tool line a run printed says, if it printed one."""
    match = _TURN_LINE.search(printed)
    return int(match.group(1)) if match else None


def _load(child: ChildProcess, source: str, filename: str, limits: Limits, scripts: int) -> str | None:
    """Send the file; None once it is loaded, else why it cannot be checked."""
    cpu_seconds = math.ceil(limits.seconds * (scripts + 1)) + 1
    child.send(_line({"kind": "load", "source": source, "filename": filename, "memory_mb": limits.memory_mb,
                      "cpu_seconds": cpu_seconds, "guard": limits.audit_guard}))
    line = child.next_line(time.monotonic() + START_SECONDS)
    if line and line.strip() == b'{"kind": "loading"}':
        line = child.next_line(time.monotonic() + limits.seconds)
    elif line is None:
        child.end()
        return "the sandbox did not start in time"
    if line is None:
        child.end()
        return f"loading the file took longer than {limits.seconds:g} s (time limit)"
    if not line:
        return f"the sandbox process {why_ended(child.wait_ended(), bytes(child.stderr))}"
    try:
        message = parse_message(line)
    except ProtocolError:
        child.end()
        return "the sandbox's report could not be read while loading the file"
    if message["kind"] == "load_problem":
        child.end()
        return str(message["text"])[:2000]
    return None if message["kind"] == "loaded" else "the sandbox's report could not be read while loading the file"


def observe(source: str, filename: str, scripts: list[Script], limits: Limits,
            tick: Callable[[], None] | None = None) -> Iterator[Observation | str]:
    """Run the learner's file on each script in turn, yielding each script's Observation as it finishes; or
    yield one string (why the file cannot be checked) and stop. A script that ends its process is reported
    as such and the rest go on in a new one. `tick` is called while a script runs (see `next_line`); closing
    the iterator, or an exception from `tick`, ends the learner's process and all it started."""
    stop_at = time.monotonic() + limits.total_seconds
    done = 0
    while done < len(scripts):
        if done and time.monotonic() > stop_at:  # only after a script ended its child
            for script in scripts[done:]:
                yield Observation(script.name, ended="not_run",
                                  message=f"not run: the check had already taken over {limits.total_seconds:g} s")
            return
        child = ChildProcess(limits)
        try:
            problem = _load(child, source, filename, limits, len(scripts) - done)
            if problem:
                yield problem
                return
            earlier = Observation("earlier")  # what this process's earlier runs showed, for the next run's evidence
            while done < len(scripts):
                seen = Observation(scripts[done].name, earlier_tasks=list(earlier.earlier_tasks),
                                   earlier_replies=list(earlier.earlier_replies),
                                   earlier_turns=list(earlier.earlier_turns),
                                   earlier_returns_on_tool_use=earlier.earlier_returns_on_tool_use)
                replies = _run_one(child, scripts[done], seen, limits, tick)
                alive = replies is not None
                _remember(earlier, scripts[done], seen, replies or [])
                done += 1
                yield seen
                if not alive:
                    break
        finally:
            child.end()
