"""The "write your own loop" exercise: a learner's run_agent, checked against the reference loop.

`check_loop(source)` runs the learner's file in a sandbox (`agent.exercise.runner`)
against FakeModel scripts, and judges each run against what the engine's own
loop prints for the same script (`agent.loop`: `RunState`, `run_to_end`,
`console_lines`). The verdict for each script is plain data the page and the
command line both show: pass, or the first line that differs, or the request
the FakeModel refused (the messages the learner's loop sent, the one the
refusal points at, and what the reference loop sent at that point), or the
exception and the line of the learner's file it came from; and, where the
evidence fits one, the name of the classic mistake behind it (`MISTAKES`).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any

from agent.exercise.mistakes import MISTAKES, bad_request_mistake, offending_index, output_mistake
from agent.exercise.runner import Limits, run_sandboxed
from agent.fake import FakeModel
from agent.loop import RunState, console_lines, run_to_end
from agent.scripts import Script, builtin_names, load_script
from agent.summary import message_line

ALLOW_CODE_ENV = "LOOP_SANDBOX_ALLOW_CODE"
VERDICTS = ("pass", "output", "bad_request", "too_many_requests", "exception", "time_limit", "memory_limit", "crash",
            "not_run")

__all__ = ["ALLOW_CODE_ENV", "MISTAKES", "VERDICTS", "BadRequest", "ExerciseError", "Limits", "LoopCheck",
           "RaisedError", "ScriptCheck", "check_loop", "code_runner_enabled", "code_runner_notice",
           "exercise_script_names", "format_check", "reference_run", "starter_source"]


class ExerciseError(ValueError):
    """A check that cannot be made as asked (a script the exercise cannot use); `str()` says why."""


@dataclass
class BadRequest:
    """A request the FakeModel refused, as the API would have."""

    reason: str
    """The API's words for what is wrong."""
    request: int
    """Which request it was, counting from 1."""
    messages: Any
    """The messages the learner's loop sent in it, as sent."""
    offending_index: int | None
    """Index in `messages` of the message the reason points at; None when it points at none."""
    reference_messages: list[dict[str, Any]] | None
    """What the reference loop sent in its request of the same number; None when it had stopped before it."""


@dataclass
class RaisedError:
    """An exception that came out of the learner's run_agent."""

    type: str
    """The exception's class name, e.g. `KeyError`."""
    message: str
    """Its message."""
    line: int | None
    """The line of the learner's file it was raised from (the deepest one); None if no line of theirs ran."""
    code: str
    """That line's text."""


@dataclass
class ScriptCheck:
    """How the learner's loop did on one script."""

    script: str
    """The script's name."""
    title: str
    """The script's one-line title."""
    verdict: str
    """One of VERDICTS: `pass`, or what kind of failure."""
    summary: str
    """One line saying what happened."""
    expected: list[str]
    """What the reference loop prints for this script, line by line."""
    actual: list[str]
    """What the learner's loop printed, then the result and request-size lines the harness prints."""
    first_difference: int | None = None
    """Index of the first line where `actual` differs from `expected`; None when they are the same."""
    mistake: str | None = None
    """The classic mistake this looks like (a key of MISTAKES), or None when none fits."""
    bad_request: BadRequest | None = None
    """The refused request, for `bad_request`."""
    error: RaisedError | None = None
    """The exception run_agent raised, when it raised one."""

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def mistake_text(self) -> str:
        """The mistake explained in a sentence or two, or "" when no mistake was named."""
        return MISTAKES.get(self.mistake or "", "")


@dataclass
class LoopCheck:
    """The check of one learner's file."""

    scripts: list[ScriptCheck] = field(default_factory=list)
    """One check per script, in the order asked."""
    problem: str | None = None
    """Why the file could not be checked at all (a syntax error, no run_agent); then `scripts` is empty."""

    @property
    def passed(self) -> bool:
        return self.problem is None and all(check.passed for check in self.scripts)

    @property
    def summary(self) -> str:
        if self.problem:
            return f"not checked: {self.problem}"
        passing = sum(check.passed for check in self.scripts)
        return f"{passing} of {len(self.scripts)} scripts pass" + (": well done" if self.passed else "")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def starter_source() -> str:
    """The starter file's text: the signature and the docstring of run_agent."""
    return resources.files("agent.exercise").joinpath("starter.py").read_text(encoding="utf-8")


def code_runner_enabled(address: str | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the page may run code typed into it: yes when it listens on a loopback address only,
    otherwise only if the operator set LOOP_SANDBOX_ALLOW_CODE=1. An empty address means every interface."""
    environ = os.environ if environ is None else environ
    if environ.get(ALLOW_CODE_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    host = (address or "").strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def code_runner_notice(address: str | None) -> str:
    """What the page says instead of running code when `code_runner_enabled` is False."""
    where = address or "every address"
    return (f"Checking code is off: this page listens on {where}, so anyone who can reach it could run code on "
            "this machine. Serve it on 127.0.0.1 (the default), or, if you trust everyone who can reach it, "
            f"start it with {ALLOW_CODE_ENV}=1 in the environment.")


def _has_error_entry(script: Script) -> bool:
    return any("error" in entry for entry in script.replies)


def exercise_script_names() -> list[str]:
    """The built-in scripts a loop is checked against by default: all but those that inject an API error,
    since the lesson's loop has no error handling and the reference's retry is the engine's, not the loop's."""
    return [name for name in builtin_names() if not _has_error_entry(load_script(name))]


def reference_run(script: Script) -> RunState:
    """The engine's own loop on this script: what the learner's loop should do."""
    state = RunState(script.task, system=script.system, tool_names=list(script.tools), max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return state


def _lines(text: str) -> list[str]:
    # A tool result may hold newlines; compare line by line as a person reads the output.
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _first_difference(expected: list[str], actual: list[str]) -> int | None:
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            return i
    return None if len(expected) == len(actual) else min(len(expected), len(actual))


def _harness_output(seen: dict[str, Any]) -> list[str]:
    """What the lesson's harness prints after the loop's own lines: the result, then the request sizes."""
    text = seen.get("printed") or ""
    error, returned = seen.get("error"), seen.get("returned")
    if returned is not None:
        text += f"result: {returned['text']}\n"
    elif error and error["type"] == "RequestRejected" and seen.get("rejected"):
        text += f"result: bad request: {seen['rejected']['reason']}\n"
    sizes = ", ".join("?" if size is None else str(size) for size in seen.get("sizes", []))
    return _lines(text + f"messages sent each turn: {sizes}")


def _reference_messages(state: RunState, request: int) -> list[dict[str, Any]] | None:
    if request > len(state.records):
        return None
    return state.messages[:state.records[request - 1].sent]


def _unsafe_call(seen: dict[str, Any]) -> str | None:
    """The stop reason of a reply whose tool calls the loop ran although it was not `tool_use`."""
    for call in seen.get("tool_calls", []):
        if call["stop_reason"] is not None and call["stop_reason"] != "tool_use":
            return str(call["stop_reason"])
    return None


def judge(script: Script, state: RunState, seen: dict[str, Any], limits: Limits) -> ScriptCheck:
    """One script's verdict, from the reference run and what the sandbox saw."""
    expected = _lines("\n".join(console_lines(state)))
    check = ScriptCheck(script.name, script.title, "pass", "passed", expected, [])
    if seen.get("ended"):
        check.verdict, check.summary = seen["ended"], seen["message"]
        check.mistake = "endless_loop" if seen["ended"] == "time_limit" else None
        return check
    check.actual = _harness_output(seen)
    check.first_difference = _first_difference(expected, check.actual)
    error = seen.get("error")
    if error:
        check.error = RaisedError(error["type"], error["message"], error["line"], error["code"])
    sizes = seen.get("sizes", [])
    rejected = seen.get("rejected")
    at = f" at line {error['line']}: {error['code']}" if error and error["line"] else ""
    if seen.get("memory_error"):
        check.verdict = "memory_limit"
        check.summary = f"ran out of memory (the limit is {limits.memory_mb} MB){at}"
    elif rejected:
        messages, request = rejected["messages"], rejected["request"]
        index = offending_index(rejected["reason"], messages)
        check.verdict, check.summary = "bad_request", f"bad request (request {request}): {rejected['reason']}"
        check.bad_request = BadRequest(rejected["reason"], request, messages, index,
                                       _reference_messages(state, request))
        check.mistake = bad_request_mistake(rejected["reason"], messages, index, seen.get("stop_reasons", []),
                                            request)
    elif seen.get("exhausted"):
        check.verdict = "too_many_requests"
        sent = len(state.records)
        check.summary = (f"asked the model again (request {seen['exhausted']}) after the script's last reply; "
                         f"the reference loop sent {sent} request{'' if sent == 1 else 's'}")
    elif error:
        check.verdict, check.summary = "exception", f"{error['type']}: {error['message']}{at}"
        if error["type"] == "KeyError" and error["message"] == "'text'":
            check.mistake = "answer_text"
    elif check.first_difference is not None:
        line = check.first_difference
        check.verdict, check.summary = "output", f"the output differs from the reference at line {line + 1}"
        check.mistake = output_mistake(state, seen, expected, check.actual, line)
    # Evidence that outranks whatever the failure looked like on the surface.
    if len(sizes) > script.max_turns:
        check.mistake = "no_turn_limit"
    elif check.verdict == "too_many_requests" and seen.get("stop_reasons") \
            and seen["stop_reasons"][-1] != "tool_use":
        check.mistake = "kept_going"
    reason = _unsafe_call(seen)
    if reason is not None:
        check.mistake = "ran_stopped_call"
        if check.passed:  # it could not pass, but a loop that hides the call must not pass either
            check.verdict, check.summary = "output", f"ran a tool call from a reply whose stop_reason was {reason}"
    return check


def _scripts(scripts: Sequence[str | Script] | None) -> list[Script]:
    chosen = [load_script(item) if isinstance(item, str) else item
              for item in (exercise_script_names() if scripts is None else scripts)]
    for script in chosen:
        if _has_error_entry(script):
            raise ExerciseError(
                f"{script.name}: this script injects an API error, and the exercise's loop has no error handling "
                "(the lesson leaves retries to the SDK), so it cannot be checked against it")
    if not chosen:
        raise ExerciseError("no scripts to check against")
    return chosen


def check_loop(source: str, scripts: Sequence[str | Script] | None = None, limits: Limits | None = None,
               filename: str = "my_loop.py") -> LoopCheck:
    """Check a learner's file (its source text) against scripts, by name or as Script; default: every
    built-in exercise script. Raises ExerciseError or ScriptError for scripts that cannot be used."""
    chosen, limits = _scripts(scripts), limits or Limits()
    ran = run_sandboxed(source, chosen, limits, filename=filename)
    if ran.load_problem:
        return LoopCheck(problem=ran.load_problem)
    return LoopCheck([judge(script, reference_run(script), seen, limits)
                      for script, seen in zip(chosen, ran.observations, strict=True)])


# ---- as text, for the terminal ------------------------------------------------------------------------------


_INDENT = "      "


def format_check(check: LoopCheck) -> list[str]:
    """The check as lines for the terminal: one per script, details under each failure, a summary last."""
    if check.problem:
        return [f"not checked: {check.problem}"]
    lines = []
    for result in check.scripts:
        if result.passed:
            lines.append(f"pass  {result.script}")
            continue
        lines.append(f"FAIL  {result.script}: {result.summary}")
        if result.mistake:
            lines.append(f"{_INDENT}mistake ({result.mistake}): {result.mistake_text}")
        if result.bad_request:
            lines.extend(_format_bad_request(result.bad_request))
        elif result.first_difference is not None and result.actual:
            i = result.first_difference
            lines.append(f"{_INDENT}expected line {i + 1}: {_line_at(result.expected, i)}")
            lines.append(f"{_INDENT}your line {i + 1}:     {_line_at(result.actual, i)}")
    lines.append(check.summary)
    return lines


def _line_at(lines: list[str], i: int) -> str:
    return lines[i] if i < len(lines) else "(nothing)"


def _format_bad_request(bad: BadRequest) -> list[str]:
    lines = [f"{_INDENT}your loop sent:"]
    sent = bad.messages if isinstance(bad.messages, list) else [bad.messages]
    for i, message in enumerate(sent):
        marker = ">" if i == bad.offending_index else " "
        lines.append(f"{_INDENT}{marker} [{i}] {message_line(message)}")
    if bad.reference_messages is None:
        lines.append(f"{_INDENT}the reference loop had stopped before request {bad.request}")
    else:
        lines.append(f"{_INDENT}the reference loop sent:")
        lines.extend(f"{_INDENT}  [{i}] {message_line(message)}" for i, message in enumerate(bad.reference_messages))
    return lines

