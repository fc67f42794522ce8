"""The "write your own loop" exercise: a learner's run_agent, checked against the reference loop.

`check_loop(source)` runs the learner's file in a process of its own
(`agent.exercise.runner`, driven by `agent.exercise.judge`) against FakeModel
scripts, in the lesson's order, and judges each run against what the engine's
own loop prints for the same script (`agent.exercise.verdict`).
`iter_check` yields the verdicts one by one as the scripts finish, for a page
that shows them as they come.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any

from agent.exercise.judge import observe
from agent.exercise.runner import Limits, protection, protection_used
from agent.exercise.verdict import BadRequest, ScriptCheck, judge
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.scripts import Script, builtin_names, load_script
from agent.summary import message_line

ALLOW_CODE_ENV = "LOOP_SANDBOX_ALLOW_CODE"

# The lesson's order: the reference run first, then what a loop meets, simplest first; the runaways last.
LESSON_ORDER = ("add_then_answer", "thinking_then_answer", "two_calls_one_reply", "three_tool_chain",
                "two_file_search", "failing_tool", "bad_tool_input", "tool_not_given", "cut_off_reply", "refusal",
                "pause_turn", "unknown_stop_reason", "runaway", "short_leash")


class ExerciseError(ValueError):
    """A check that cannot be made as asked (a script the exercise cannot use); `str()` says why."""


@dataclass
class LoopCheck:
    """The check of one learner's file."""

    scripts: list[ScriptCheck] = field(default_factory=list)
    """One check per script, in the order asked."""
    problem: str | None = None
    """Why the file could not be checked at all (a syntax error, no run_agent); then `scripts` is empty."""
    protection: str = ""
    """Which wall stood around the learner's code (`bubblewrap` or `process limits`)."""

    @property
    def passed(self) -> bool:
        return self.problem is None and bool(self.scripts) and all(check.passed for check in self.scripts)

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


def _loopback(address: str | None) -> bool:
    host = (address or "").strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def code_runner_enabled(address: str | None, environ: Mapping[str, str] | None = None,
                        sandboxed: bool | None = None) -> bool:
    """Whether the page may run code typed into it: yes on a loopback address; on any other address only
    inside bubblewrap (`sandboxed`, by default whether it runs here) or if the operator set
    LOOP_SANDBOX_ALLOW_CODE=1. An empty address means every interface."""
    environ = os.environ if environ is None else environ
    if environ.get(ALLOW_CODE_ENV, "").strip().lower() in ("1", "true", "yes", "on") or _loopback(address):
        return True
    return protection().kind == "bubblewrap" if sandboxed is None else sandboxed


def code_runner_notice(address: str | None) -> str:
    """What the page says instead of running code when `code_runner_enabled` is False."""
    where = address or "every address"
    return (f"Checking code is off: this page listens on {where}, so anyone who can reach it could run code on "
            "this machine, and bubblewrap (bwrap), which would wall that code off, cannot run here. Install "
            "bubblewrap, or serve the page on 127.0.0.1 (the default), or, if you trust everyone who can reach "
            f"it, start it with {ALLOW_CODE_ENV}=1 in the environment.")


def protection_words() -> str:
    """Which protection the learner's code runs under, in a sentence."""
    return protection().words


def _has_error_entry(script: Script) -> bool:
    return any("error" in entry for entry in script.replies)


def exercise_script_names() -> list[str]:
    """The built-in scripts a loop is checked against by default, in the lesson's order: all but those that
    inject an API error, since the lesson's loop has no error handling and the reference's retry is the
    engine's, not the loop's."""
    return list(_exercise_script_names())


@functools.cache  # the built-in scripts are read once a process: a class's checks each ask
def _exercise_script_names() -> tuple[str, ...]:
    names = [name for name in builtin_names() if not _has_error_entry(load_script(name))]
    rank = {name: i for i, name in enumerate(LESSON_ORDER)}
    return tuple(sorted(names, key=lambda name: (rank.get(name, len(rank)), name)))


def reference_run(script: Script) -> RunState:
    """The engine's own loop on this script: what the learner's loop should do."""
    state = RunState(script.task, system=script.system, tool_names=list(script.tools), max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return state


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


def iter_check(source: str, scripts: Sequence[str | Script] | None = None, limits: Limits | None = None,
               filename: str = "my_loop.py", tick: Callable[[], None] | None = None) -> Iterator[ScriptCheck | str]:
    """Each script's verdict as soon as it is known, in order; or one string, why the file cannot be checked.
    `tick` is called a few times a second while a script runs; an exception from it, or closing the iterator,
    stops the check and ends the learner's process. Raises ExerciseError or ScriptError for unusable scripts."""
    chosen, limits = _scripts(scripts), limits or Limits()
    for script, seen in zip(chosen, observe(source, filename, chosen, limits, tick), strict=False):
        if isinstance(seen, str):
            yield seen
            return
        yield judge(script, reference_run(script), seen, limits, source)


def check_loop(source: str, scripts: Sequence[str | Script] | None = None, limits: Limits | None = None,
               filename: str = "my_loop.py") -> LoopCheck:
    """Check a learner's file (its source text) against scripts, by name or as Script; default: every
    built-in exercise script. Raises ExerciseError or ScriptError for scripts that cannot be used."""
    limits = limits or Limits()
    check = LoopCheck(protection=protection_used(limits))
    for item in iter_check(source, scripts, limits, filename):
        if isinstance(item, str):
            return LoopCheck(problem=item, protection=check.protection)
        check.scripts.append(item)
    return check


# ---- as text, for the terminal ------------------------------------------------------------------------------


_INDENT = "      "


def format_check(check: LoopCheck, source: str | None = None) -> list[str]:
    """The check as lines for the terminal: the protection, one line per script, details under each failure
    (with the learner's line when `source` is given), a summary last."""
    said = f" ({protection().words})" if check.protection == protection().kind else ""
    lines = [f"sandbox: {check.protection}{said}"] if check.protection else []
    if check.problem:
        return [*lines, f"not checked: {check.problem}"]
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
        code = source.splitlines() if source else []
        if result.line and 0 < result.line <= len(code) and not result.error:
            lines.append(f"{_INDENT}line {result.line} ({result.line_note}): {code[result.line - 1].strip()}")
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
