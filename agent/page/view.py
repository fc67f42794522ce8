"""What the page shows, worked out as plain data: no widgets and no streamlit here.

The page draws a run; this module answers its questions about one. What did
turn 3 add to the messages? What did the run look like after turn 2? Which
lines of the loop's own code did the last turn go through? How is the run's
outcome said in words? Everything here reads a `RunState` and never changes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.loop import RunState, StopReason, TurnPath, TurnRecord
from agent.models.hand_model import written_by_hand
from agent.page.names import OutcomeKind
from agent.real import cost_estimate, run_usage, total_input
from agent.scripts import Script, ScriptError, builtin_names, load_script

# The page starts here: the lesson's reference run.
REFERENCE_SCRIPT = "add_then_answer"

STOP_NOTES = {
    StopReason.MAX_TOKENS: "The reply ran into max_tokens and was cut off. A tool call in it may be half "
                           "written, so the loop ran nothing.",
    StopReason.REFUSAL: "The model declined to go on. Nothing in the reply was run.",
    StopReason.PAUSE_TURN: "The API paused a long turn of its own server tools. This loop has no server "
                           "tools, so it stops and says why.",
    StopReason.STOP_SEQUENCE: "A custom stop sequence fired. The loop stops and says so.",
    StopReason.MODEL_CONTEXT_WINDOW_EXCEEDED: "The conversation no longer fits in the model's context window.",
}
# What the loop did on each path of a turn that got a reply.
PATH_WORDS = {"answer": "returned the answer", "tool_use": "ran the tool calls and appended their results",
              "limit": "ran the tool calls, then stopped at the turn limit",
              "stopped": "stopped without running anything"}
NO_REPLY_NOTE = ("The model had no reply to give (a script that has run out of replies), so trying again cannot "
                 "help: the run ends here. A script plays only the replies written in it.")
UNKNOWN_STOP_NOTE = ("A stop reason this loop does not know. Anything other than end_turn and tool_use stops "
                     "the loop and runs nothing, so it stays safe for reasons added after it was written.")


def builtin_scripts() -> dict[str, Script]:
    """Every built-in script by name: the lesson's reference run first, then by title.

    A broken file is left out (`python -m agent validate` names its fault).
    """
    scripts = {}
    for name in builtin_names():
        try:
            scripts[name] = load_script(name)
        except ScriptError:  # one broken file must not take the page down
            continue
    order = sorted(scripts, key=lambda name: (name != REFERENCE_SCRIPT, scripts[name].title.lower()))
    return {name: scripts[name] for name in order}


def turn_limit_note(script: Script, max_turns: int) -> str | None:
    """A warning for the Turn limit field when the script's replies run out before that limit can stop its run.

    A script whose every reply asks for a tool never ends the run itself. With N replies and a limit L, the
    limit is checked after turn L's tools have run: L <= N, the limit stops the run at turn L (no note); L > N,
    the request for turn N + 1 gets no reply first, and the run stops there with N turns taken.
    """
    replies = [entry for entry in script.replies if "error" not in entry]  # an error entry is no turn
    if not replies or any(r.get("stop_reason") != "tool_use" for r in replies) or max_turns <= len(replies):
        return None
    n = len(replies)
    return (f"This script has {n} repl{'ies' if n != 1 else 'y'}, each asking for a tool, so the replies run out "
            f"before the turn limit of {max_turns:,} is reached: the request for turn {n + 1} gets no reply, and the "
            f"run stops there after {_plural(n, 'turn')}. A limit of {n} or less is reached first.")


def record_of_turn(state: RunState, turn: int) -> TurnRecord | None:
    """The record of a turn that was taken (not a failed attempt at it)."""
    return next((r for r in state.records if r.turn == turn and r.counted), None)


def failed_attempts(state: RunState, turn: int) -> list[TurnRecord]:
    """The attempts at a turn that failed before it was taken (or that are still failing)."""
    return [r for r in state.records if r.turn == turn and not r.counted]


def added_by_turn(state: RunState, turn: int) -> range:
    """The indices of the messages a turn added: the reply, and the tool results if any."""
    record = record_of_turn(state, turn)
    if record is None:
        return range(0)
    following = record_of_turn(state, turn + 1)
    return range(record.sent, following.sent if following else len(state.messages))


def snapshot(state: RunState, turn: int) -> RunState:
    """The run as it stood right after `turn` (0: before the first turn); the latest turn gives `state` itself."""
    if turn >= state.turn:
        return state
    return RunState(state.task, system=state.system, tool_names=list(state.tool_names), max_turns=state.max_turns,
                    max_tokens=state.max_tokens, messages=state.messages_after(turn),
                    records=[r for r in state.records if r.turn <= turn])


def first_card(state: RunState, turn: int, card_turns: int) -> int:
    """Where the messages of the latest `card_turns` turns (up to `turn`) begin; older ones are summarised."""
    record = record_of_turn(state, turn - card_turns + 1) if turn > card_turns else None
    return record.sent if record else 1


@dataclass(frozen=True)
class Outcome:
    """How a run stands, said for a person."""

    kind: OutcomeKind
    headline: str
    """The loop's own words: the answer, `stopped: ...`, `bad request: ...`, or the model's error."""
    note: str
    """What it means, in a sentence or two."""


def outcome(state: RunState) -> Outcome | None:
    """The run's outcome, or its pending model error; None while it is simply going on."""
    if state.error is not None:
        return Outcome(OutcomeKind.MODEL_ERROR, state.error,
                       f"The model call failed. The lesson's run_agent has no handler: it would raise here, and the "
                       f"exception would leave it. The sandbox catches the error and keeps everything the run has; a "
                       f"failed attempt is not a turn, and Step tries turn {state.turn + 1} again.")
    if not state.done:
        return None
    result = state.result or ""  # done: the loop's result is set
    branch = state.records[-1].path
    if branch == TurnPath.ANSWER:
        return Outcome(OutcomeKind.ANSWER, result,
                       "The model finished (end_turn): its text, without thinking, is the answer.")
    if branch == TurnPath.LIMIT:
        return Outcome(OutcomeKind.LIMIT, result, "The turn limit is the guard: the model kept asking for "
                                                        "tools, so the loop stopped instead of running on.")
    if branch == TurnPath.BAD_REQUEST:
        if state.records[-1].refused_unsent:
            return Outcome(OutcomeKind.BAD_REQUEST, result, "The request broke a rule of the Messages API, so "
                                                                  "it was refused before any model read it. The run "
                                                                  "ends here.")
        return Outcome(OutcomeKind.BAD_REQUEST, result, "The service received the request and refused it with "
                                                              "a 400: no model answered it. The run ends here.")
    if branch == TurnPath.NO_REPLY:
        return Outcome(OutcomeKind.STOPPED, result, NO_REPLY_NOTE)
    reason = (state.records[-1].reply or {}).get("stop_reason", "")
    return Outcome(OutcomeKind.STOPPED, result, STOP_NOTES.get(reason, UNKNOWN_STOP_NOTE))


def latest_stop_reason(state: RunState) -> str | None:
    """The `stop_reason` of the run's latest reply; None while its latest turn got none."""
    reply = state.records[-1].reply if state.records else None
    return str(reply.get("stop_reason")) if reply is not None and reply.get("stop_reason") is not None else None


def request_size(request: dict[str, Any]) -> int:
    """How many bytes the request's JSON body holds."""
    return len(json.dumps(request, ensure_ascii=False).encode())


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class Sent:
    """What one turn's request carried, and what it would have carried with the whole array (the same, unthreaded).

    Every counter of a turn on the page (the graph, the console, the turn's heading and caption, the loop view)
    is said from this, so they cannot disagree."""

    messages: int
    bytes: int
    whole_messages: int
    whole_bytes: int
    thread: str | None
    """The message thread's request type (`create`, `continue`), or None for a request that sent the whole array."""
    lost: str | None = None
    """Why a thread could not be continued, when this turn fell back to the whole array (`TurnRecord.thread_lost`)."""

    @property
    def words(self) -> str:
        return " ".join(sent_words(self.messages, self.whole_messages, self.thread is not None))


def sent_words(messages: int, whole_messages: int, threaded: bool) -> list[str]:
    """A turn's messages sent, as every counter says it: [`3 messages`], or over a thread
    [`1 message`, `over a thread (the whole array: 7)`] (two pieces, for a graph's two lines)."""
    said = _plural(messages, "message")
    return [said, f"over a thread (the whole array: {whole_messages:,})"] if threaded else [said]


def sent_by_turn(state: RunState, record: TurnRecord, model_name: str = "") -> Sent:
    """What a turn sent, counted in messages and in the bytes of the whole request body (the model named first)."""
    size = request_size(request_sent(state, record, model_name))
    if record.thread is None:  # it sent the whole array: the same body, not measured twice (a Step draws this)
        return Sent(record.messages_sent, size, record.sent, size, None, record.thread_lost)
    whole = TurnRecord(record.turn, record.sent)
    return Sent(record.messages_sent, size, record.sent, request_size(request_sent(state, whole, model_name)),
                str(record.thread.get("type")), record.thread_lost)


def thread_note(sent: Sent) -> str | None:
    """For a turn sent over a message thread: what it sent against the whole array, both ways; None otherwise."""
    if sent.thread is None:
        return None
    if sent.lost:
        return (f"The thread could not be continued ({sent.lost}), so this turn fell back to the whole array under "
                f"a new thread: {_plural(sent.messages, 'message')}, {sent.bytes:,} bytes.")
    return (f"Over a message thread ({sent.thread}): this turn sent {_plural(sent.messages, 'message')}, "
            f"{sent.bytes:,} bytes; the whole array would have been {_plural(sent.whole_messages, 'message')}, "
            f"{sent.whole_bytes:,} bytes. The server holds the rest.")


# Beside the usage of a reply the cut_off fault cut: the model counted its whole reply, and nobody counted the cut.
CUT_USAGE_NOTE = "counted for the whole reply, before the injected fault cut its output at max_tokens"


def usage_line(usage: dict[str, int], model_name: str = "") -> str:
    """Token usage in words, with its cost when the pricing table knows the model."""
    if not usage:
        return "no usage reported"
    line = f"{total_input(usage):,} input tokens · {usage.get('output_tokens', 0):,} output tokens"
    cost = cost_estimate(model_name, usage) if model_name else None
    return line if cost is None else f"{line} · about ${cost:.4f}"


def reply_usage_line(usage: dict[str, int], model_name: str = "", injected_cut: bool = False) -> str:
    """A reply's usage in words; for a reply the cut_off fault cut, said to be the count from before the cut."""
    line = usage_line(usage, model_name)
    return f"{line}, {CUT_USAGE_NOTE}" if injected_cut and usage else line


def run_usage_line(state: RunState, model_name: str = "") -> str | None:
    """The whole run's usage in words, or None when no reply reported any."""
    usage = run_usage(state, model_name)
    if not usage.per_turn:
        return None
    line = usage_line(usage.total)  # priced once, below, from the per-turn sum
    reported, replies = len(usage.per_turn), sum(r.reply is not None for r in state.records)
    cost = f" · about ${usage.cost:.4f}" if model_name and usage.cost is not None else ""
    if reported == replies:
        return f"In total, over {replies} repl{'ies' if replies != 1 else 'y'}: {line}{cost}"
    return f"In total, over the {reported} of {replies} replies that reported usage: {line}{cost}"


def recorded_about(state: RunState, model_words: str, entries: int, edited: int = 0) -> str:
    """What a script recorded from a run says about where it came from, from the run's own records.

    `model_words` names the run's model, `entries` is how many entries the script holds (replies and errors),
    `edited` how many of the run's turns were edited at a fork. Replies written by hand are said to be.
    """
    replies = [r.reply for r in state.records if r.reply is not None]
    by_hand = sum(map(written_by_hand, replies)) - edited
    source = f"a run of {model_words}"
    if replies and by_hand == len(replies):
        source, by_hand = "a run written by hand (Be the model)", 0
    if edited:
        source += f", {edited} turn{'s' if edited != 1 else ''} edited at a fork"
    if by_hand > 0:
        source += f", {by_hand} repl{'ies' if by_hand != 1 else 'y'} written by hand (Be the model)"
    said = outcome(state)
    ending = {"answer": "it answered", "limit": "it stopped at the turn limit",
              "bad_request": "it ended in a bad request", "stopped": "it stopped"}.get(
        said.kind if said else "", f"it stopped after turn {state.turn}")
    return f"Recorded on the page from {source}: {entries} entr{'ies' if entries != 1 else 'y'}, and {ending}."


def request_sent(state: RunState, record: TurnRecord, model_name: str) -> dict[str, Any]:
    """The whole request body a turn sent, with the model it named first, as the API's reference writes it."""
    return {"model": model_name, **state.request(record)}


@dataclass(frozen=True)
class LoopSource:
    """A loop's code, with lines lit and values beside them."""

    lines: list[str]
    """The source, line by line."""
    first_line: int
    """The line number of `lines[0]` in its file."""
    marked: frozenset[int] = field(default_factory=frozenset)
    """Indices into `lines` of the lines lit."""
    anchor: int | None = None
    """Index of the line that the note given with the source belongs beside."""
    notes: dict[int, str] = field(default_factory=dict)
    """Values to show beside lines, by index into `lines` (e.g. `stop_reason = "tool_use"`)."""


def turns_taken(state: RunState) -> int:
    """The turns that got a reply: a request refused, or one the model had no reply to, took no turn."""
    last = state.records[-1] if state.records else None
    return state.turn - int(last is not None and last.counted and last.reply is None)


def run_summary(state: RunState) -> str:
    """One line for the status bar: turns taken against the limit, messages and tool calls."""
    calls = sum(len(r.tool_runs) for r in state.records)
    errors = sum(run.is_error for r in state.records for run in r.tool_runs)
    count = len(state.messages)
    parts = [f"turn {turns_taken(state)} of {state.max_turns}"]
    last = state.records[-1] if state.records else None
    if last is not None and last.counted and last.reply is None:  # the run ended on a request, not a turn
        parts.append(f"the request for turn {last.turn} "
                     f"{'was refused' if last.path == TurnPath.BAD_REQUEST else 'got no reply'}")
    parts += [f"{count} message{'s' if count != 1 else ''}", f"{calls} tool call{'s' if calls != 1 else ''}"]
    if errors:
        parts.append(f"{errors} failed")
    return " · ".join(parts)


def settings_of(state: RunState) -> dict[str, Any]:
    """The settings a run was started with, to compare with what the page's controls now say."""
    return {"task": state.task, "system": state.system, "tool_names": list(state.tool_names),
            "max_turns": state.max_turns, "max_tokens": state.max_tokens, "threads": state.threads}
