"""One script's verdict: what the judge saw of the learner's loop, held against the reference run.

The verdict is plain data the page and the command line both show: pass, or
the first line that differs, or the request the FakeModel refused (the
messages the learner's loop sent, the one that is really wrong, and what the
reference loop sent at that point), or the exception and the line of the
learner's file it came from; the learner's line to look at; and, where the
evidence fits one, the classic mistake behind it (`MISTAKES`), in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.exercise.judge import Observation
from agent.exercise.learner_source import decision_line, loop_line, own_turn_limit, whole_numbers
from agent.exercise.mistake_words import MISTAKES
from agent.exercise.mistakes import (
    bad_request_mistake,
    exception_mistake,
    history_mistake,
    offending_index,
    output_lines,
    output_mistake,
)
from agent.exercise.runner import PRINTED_BYTES, Limits
from agent.exercise.timing import timed_out
from agent.loop import RunState
from agent.scripts import Script
from agent.summary import console_lines

VERDICTS = ("pass", "output", "bad_request", "too_many_requests", "exception", "time_limit", "too_slow", "memory_limit",
            "crash", "not_run")


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
    """Index in `messages` of the message that is wrong (the API's pointer, or the message behind it);
    None when it points at none."""
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
    line: int | None = None
    """The line of the learner's file to look at (where it raised, or where it decided to go on); None if none."""
    line_note: str = ""
    """What to say beside that line."""

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def mistake_text(self) -> str:
        """The mistake explained in a sentence or two, or "" when no mistake was named."""
        return MISTAKES.get(self.mistake or "", "")


def _first_difference(expected: list[str], actual: list[str]) -> int | None:
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            return i
    return None if len(expected) == len(actual) else min(len(expected), len(actual))


def _harness_output(seen: Observation) -> list[str]:
    """What the lesson's harness prints after the loop's own lines: the result, then the request sizes."""
    text = seen.printed
    if seen.returned is not None:
        text += f"result: {seen.returned['text']}\n"
    elif seen.error and seen.rejected:
        text += f"result: bad request: {seen.rejected['reason']}\n"
    sizes = ", ".join("?" if size is None else str(size) for size in seen.sizes)
    return output_lines(text + f"messages sent each turn: {sizes}")


def _reference_messages(state: RunState, request: int) -> list[dict[str, Any]] | None:
    if request > len(state.records):
        return None
    return state.messages[:state.records[request - 1].sent]


def _unsafe_call(seen: Observation) -> str | None:
    """The stop reason of a reply whose tool calls the loop ran although it was not `tool_use`."""
    for stop_reason in seen.tool_calls:
        if stop_reason is not None and stop_reason != "tool_use":
            return str(stop_reason)
    return None


def _gave_up_at(seen: Observation, max_turns: int, source: str) -> str | None:
    """What a loop that gave up before the limit shows: one turn short is the off-by-one of stopped_early; a
    limit message naming the turn it stopped at is a limit of its own, and so is a stop short of the limit,
    after going round on every turn before it, at a number the file writes out (give or take the one of a
    range's end or a budget spent after the turn); anything else, no single mistake."""
    sent = len(seen.requests)
    if sent == max_turns - 1:
        return "stopped_early"
    said = (seen.returned or {}).get("text")
    if said == f"stopped: no answer after {sent} turns":
        return "own_turn_limit"
    went_round = bool(seen.tool_call_replies) and set(seen.tool_call_replies) == set(range(1, sent + 1))
    written = any(abs(sent - number) <= 1 for number in whole_numbers(source))
    return "own_turn_limit" if 1 < sent < max_turns - 1 and went_round and written else None


def _threw_away_a_call(seen: Observation) -> bool:
    """Whether the loop sent a request the same as the one before, after a tool_use reply whose calls it never
    ran: it threw that reply away, so the failure's surface (the answer, the turns) says nothing of why."""
    for number in range(2, len(seen.requests) + 1):
        if seen.requests[number - 1] == seen.requests[number - 2] \
                and seen.stop_reasons[number - 2:number - 1] == ["tool_use"] \
                and number - 1 not in seen.tool_call_replies:
            return True
    return False


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _another_reply(seen: Observation, sent: int) -> str:
    """The summary of a request the script had no reply for, within the turn limit, saying what the reply before
    it was: only end_turn is the model having finished; max_tokens cut the reply off; any other reason is named
    as it came. After a tool call it says only that the replies ran out."""
    last = seen.stop_reasons[-1] if seen.stop_reasons else None
    reference = f"the reference loop sent {_plural(sent, 'request')}"
    if last == "tool_use" or last is None:
        return f"your loop sent request {seen.exhausted}, when the script had no reply left ({reference})"
    after = {"end_turn": "after the model had finished",
             "max_tokens": "after the model's reply was cut off at max_tokens"}.get(
        last, f"after a reply that stopped with stop_reason {last}")
    return f"your loop asked for another reply {after} (request {seen.exhausted}; {reference})"


def _past_the_limit(seen: Observation, limit: int, sent: int) -> str:
    """A runaway's summary: the requests past the turn limit that the script still had replies for, told apart
    from the first one it had none for (and any the loop sent after that)."""
    exhausted = seen.exhausted or 0
    if exhausted == limit + 1:
        went_on = f"it sent request {limit + 1}, when the script had no reply left"
    else:
        one = exhausted == limit + 2
        answered = f"request {limit + 1}" if one else \
            f"requests {limit + 1} {'and' if exhausted == limit + 3 else 'to'} {exhausted - 1}"
        went_on = (f"it sent {answered}, which the script still had {'a reply' if one else 'replies'} for, then "
                   f"request {exhausted}, when the script had no reply left")
    more = len(seen.requests) - exhausted
    if more > 0:
        went_on += f" (and {more} more after it)"
    model = "the model never finished (every reply called a tool)" \
        if all(reason == "tool_use" for reason in seen.stop_reasons) else "the script's last reply called a tool"
    return (f"your loop went on past the turn limit: max_turns is {limit}, yet {went_on}; {model}, and the "
            f"reference loop stopped after {_plural(sent, 'request')}")


def judge(script: Script, state: RunState, seen: Observation, limits: Limits, source: str) -> ScriptCheck:
    """One script's verdict, from the reference run and what the judge saw."""
    expected = output_lines("\n".join(console_lines(state)))
    check = ScriptCheck(script.name, script.title, "pass", "passed", expected, [])
    if seen.ended:
        check.verdict, check.summary = seen.ended, seen.message
        if seen.ended == "time_limit":
            timed = timed_out(seen, state, script, limits)
            check.verdict, check.summary, check.mistake = timed.verdict, timed.summary, timed.mistake
            if check.mistake == "no_turn_limit" and own_turn_limit(source):
                check.mistake = "own_turn_limit"
        return check
    check.actual = _harness_output(seen)
    check.first_difference = _first_difference(expected, check.actual)
    error = seen.error
    if error:
        check.error = RaisedError(error["type"], error["message"], error["line"], error["code"])
        check.line, check.line_note = error["line"], f"{error['type']} raised here"
    at = f" at line {error['line']}: {error['code']}" if error and error["line"] else ""
    if seen.memory_error:
        check.verdict = "memory_limit"
        check.summary = f"ran out of memory (the limit is {limits.memory_mb} MB){at}"
    elif seen.rejected:
        rejected = seen.rejected
        messages, request = rejected["messages"], rejected["request"]
        index = offending_index(rejected["reason"], messages)
        check.verdict, check.summary = "bad_request", f"bad request (request {request}): {rejected['reason']}"
        check.mistake, index = bad_request_mistake(rejected["reason"], messages, index, seen.stop_reasons, request)
        check.bad_request = BadRequest(rejected["reason"], request, messages, index,
                                       _reference_messages(state, request))
        if check.error and check.error.type == "BadRequestError":  # the refusal itself, raised where it was sent
            check.line, check.line_note = None, ""
    elif seen.exhausted:
        check.verdict = "too_many_requests"
        sent = len(state.records)
        check.error = None
        check.line = decision_line(source, seen.decided_lines)
        if seen.stop_reasons[-1:] == ["tool_use"] and seen.exhausted > script.max_turns:
            check.summary = _past_the_limit(seen, script.max_turns, sent)
            check.line = loop_line(source, seen.decided_lines) or check.line
            check.line_note = f"here your loop went round again, past {_plural(script.max_turns, 'turn')}"
        else:
            check.summary = _another_reply(seen, sent)
            check.line_note = "here your loop decided to ask again"
        check.mistake = "kept_going" if seen.stop_reasons and seen.stop_reasons[-1] != "tool_use" else None
    elif error:
        check.verdict, check.summary = "exception", f"{error['type']}: {error['message']}{at}"
        check.mistake = exception_mistake(error, seen)
    elif check.first_difference is not None:
        line = check.first_difference
        check.verdict, check.summary = "output", f"the output differs from the reference at line {line + 1}"
        if seen.printed_cut:
            check.summary += f" (your loop printed more than {PRINTED_BYTES:,} bytes: the rest was not kept)"
        check.mistake = output_mistake(state, seen, expected, check.actual, line)
    _outranking_evidence(check, script, seen, source)
    return check


def _outranking_evidence(check: ScriptCheck, script: Script, seen: Observation, source: str) -> None:
    """Evidence that outranks whatever the failure looked like on the surface."""
    history = history_mistake(seen, script.task, script.replies)
    if history and history[0] == "kept_state" and check.passed:  # the FakeModel replays its script whatever the task
        check.verdict, check.summary = "output", (f"request {history[2]} carried the task of a script run before "
                                                  "this one")
    if history and not check.passed:
        check.mistake = history[0]
        if check.bad_request and (check.bad_request.request == history[2] or history[0] == "kept_state"):
            check.bad_request.offending_index = history[1]
    elif len(seen.requests) > script.max_turns:
        check.mistake = "no_turn_limit"
    if check.mistake in ("no_turn_limit", "stopped_early") and own_turn_limit(source):
        check.mistake = "own_turn_limit"  # the limit it kept was its own number, not max_turns
    elif check.mistake == "stopped_early":
        check.mistake = _gave_up_at(seen, script.max_turns, source)
    if not history and _threw_away_a_call(seen):
        check.mistake = None  # it asked again as if a reply had never come: model.create called twice, say
    reason = _unsafe_call(seen)
    if reason is not None:
        check.mistake = "ran_stopped_call"
        if check.passed:  # it could not pass, but a loop that hides the call must not pass either
            check.verdict, check.summary = "output", f"ran a tool call from a reply whose stop_reason was {reason}"
