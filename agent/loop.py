"""The agent loop, one turn at a time.

Start with the task. Each turn, send the whole conversation and append the
model's whole reply. Branch on `stop_reason`: `end_turn` is the answer;
`tool_use` means run every call and append one user message of results; any
other reason stops the loop without running anything. Stop at the turn limit.

`step` runs exactly one turn and returns its record; `run_to_end` is `step`
until the loop has finished. The whole state of a run is plain data
(`RunState`) that can be written to JSON and read back.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from agent.api.error_types import error_words, retryable_status
from agent.api.requests import RequestRejected
from agent.api.watched import Conversation
from agent.tools import TOOLS, Tool, ToolRun, call_tool, tool_schemas

MAX_TURNS = 40
MAX_TOKENS = 1024


class Model(Protocol):
    """Anything that answers a request with a reply dict in the API's shape."""

    def create(self, messages: list[dict[str, Any]], *, system: str = "", tools: list[dict[str, Any]] | None = None,
               max_tokens: int, **options: Any) -> dict[str, Any]: ...


class StopReason(StrEnum):
    """The stop reasons the Messages API gives a reply: the loop goes on for `tool_use` only."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    PAUSE_TURN = "pause_turn"
    REFUSAL = "refusal"
    MODEL_CONTEXT_WINDOW_EXCEEDED = "model_context_window_exceeded"


class TurnPath(StrEnum):
    """What the loop did with a turn: the paths through it, and the harness's two around it."""

    ANSWER = "answer"
    """end_turn: the text is the answer."""
    TOOL_USE = "tool_use"
    """Every call run, one message of results appended, and round again."""
    STOPPED = "stopped"
    """Any other stop_reason: nothing run, the loop says why it stopped."""
    LIMIT = "limit"
    """The calls run, then the turn limit reached."""
    BAD_REQUEST = "bad_request"
    """The request was refused (400): the run ends."""
    NO_REPLY = "no_reply"
    """The model had no reply to give (a script that ran out): the run ends."""
    MODEL_ERROR = "model_error"
    """The call failed (an overload, a timeout): not a turn; the next step tries again."""


@dataclass
class TurnRecord:
    """What happened in one turn (or in one failed attempt at a turn)."""

    turn: int
    """The turn's number, counting from 1."""
    sent: int
    """How long the conversation was when the request went: the request carried messages[sent_from:sent]."""
    sent_from: int = 0
    """Where the request's messages began: 0 (the whole array), or past what a message thread already holds."""
    thread: dict[str, Any] | None = None
    """The `thread` field the request carried (`create`, or `continue` from the last reply), when threads are on."""
    thread_lost: str | None = None
    """Why the model could not continue the thread (its error, in words), when this turn fell back to the whole
    array under a new thread."""
    path: TurnPath | None = None
    """The path the turn took through the loop; the page lights the lesson's lines from it. None until decided."""
    reply: dict[str, Any] | None = None
    """The model's reply, as it came back; None when the request failed."""
    tool_runs: list[ToolRun] = field(default_factory=list)
    """Every tool call of the reply, in order, as it ran."""
    error: str | None = None
    """Why the request failed, for `bad_request` and `model_error`."""
    status: int | None = None
    """The HTTP status of a failed request, when the service (or a script's error entry) gave one."""
    script_reply: int | None = None
    """Which reply of a FakeModel's script this is (1 for the first; kept through a fault or an edit), else None."""
    refused_unsent: bool = False
    """For `bad_request`: True when the request rules refused it before it was sent, False when a service did."""
    retryable: bool = False
    """Whether the failure is one worth trying again (overload, rate limit, 5xx, network), as the SDK judges."""
    model_seconds: float = 0.0
    """Wall time of the model call."""
    seconds: float = 0.0
    """Wall time of the whole turn: the model call and the tools."""

    @property
    def counted(self) -> bool:
        """A failed attempt is not a turn: the next step tries the same turn again."""
        return self.path != TurnPath.MODEL_ERROR

    @property
    def messages_sent(self) -> int:
        """How many messages the request carried: the whole array (`sent`), or over a thread only the new ones."""
        return self.sent - self.sent_from

    @property
    def usage(self) -> dict[str, int]:
        return dict((self.reply or {}).get("usage") or {})


@dataclass
class RunState:
    """Everything about one run of the loop, as plain data."""

    task: str
    """What the person asked; the first user message."""
    system: str = ""
    """The system prompt sent with every request."""
    tool_names: list[str] = field(default_factory=lambda: list(TOOLS))
    """The tools this agent is given."""
    max_turns: int = MAX_TURNS
    """The turn limit."""
    max_tokens: int = MAX_TOKENS
    """The most tokens one reply may have."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """The conversation, in the API's own shape."""
    records: list[TurnRecord] = field(default_factory=list)
    """One record per turn, and one per failed attempt."""
    result: str | None = None
    """What the loop returned, once it has finished."""
    threads: bool = False
    """Send each turn only the new messages over a message thread, when the model holds threads (the FakeModel)."""
    new_thread: str | None = None
    """Why the next request cannot continue the message thread (the history changed since the thread's last
    reply, e.g. an edit): it goes out whole under a new thread, and its record says why."""

    def __post_init__(self) -> None:
        # Plain dicts to every reader; watched copies, so the request checks need not go over them every turn.
        self.messages = Conversation(self.messages)
        if not self.messages:
            self.messages.append({"role": "user", "content": self.task})

    @property
    def turn(self) -> int:
        """Turns taken so far (a failed attempt at a turn does not count)."""
        if not self.records:
            return 0
        last = self.records[-1]
        return last.turn if last.counted else last.turn - 1

    @property
    def done(self) -> bool:
        return self.result is not None

    @property
    def error(self) -> str | None:
        """Why the latest attempt failed, while the turn it tried is still to be done."""
        if not self.done and self.records and not self.records[-1].counted:
            return self.records[-1].error
        return None

    def messages_after(self, turn: int) -> list[dict[str, Any]]:
        """The messages as they stood right after `turn` (0: the task alone): what the next turn sent."""
        following = next((r for r in self.records if r.turn == turn + 1), None)
        return self.messages[:following.sent] if following else self.messages[:]

    def request(self, record: TurnRecord) -> dict[str, Any]:
        """The request that a turn sent: the conversation only grows, so it is a prefix (or, on a thread, its end)."""
        if record.thread is not None and record.thread.get("type") == "continue":  # the thread keeps system, tools
            return {"max_tokens": self.max_tokens, "thread": record.thread,
                    "messages": self.messages[record.sent_from:record.sent]}
        # An empty system prompt or tool list is not sent: the models leave it out of the body.
        request = {"max_tokens": self.max_tokens, **({"system": self.system} if self.system else {}),
                   **({"tools": tool_schemas(self.tool_names)} if self.tool_names else {}),
                   "messages": self.messages[:record.sent]}
        return {**request, "thread": record.thread} if record.thread is not None else request

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunState:
        return cls(**{**data, "records": [_record_from_dict(r) for r in data.get("records", [])]})

    @classmethod
    def from_json(cls, text: str) -> RunState:
        return cls.from_dict(json.loads(text))


def _is_retryable(exc: Exception) -> bool:
    # A model adapter may say so itself; otherwise the SDK's own rule: 408, 409, 429 and 5xx are retried, and so
    # is a lost connection or an overload said in the middle of a stream (status 200, told apart by its type).
    said = getattr(exc, "retryable", None)
    if isinstance(said, bool):
        return said
    status = getattr(exc, "status_code", None)
    if status is not None:
        return retryable_status(status, getattr(exc, "type", None))
    return type(exc).__name__ in ("APIConnectionError", "APITimeoutError")


def _is_bad_request(exc: Exception) -> bool:
    # The real API's refusal (a 400) is the same news as the FakeModel's.
    return isinstance(exc, RequestRejected) or getattr(exc, "status_code", None) == 400


def _record_from_dict(data: dict[str, Any]) -> TurnRecord:
    """A record as `asdict` wrote it, or an older version (`branch`, `msg_fake_0005`, `529 overloaded...`)."""
    fields = {("path" if key == "branch" else key): value for key, value in data.items()}
    fields["path"] = TurnPath(fields["path"]) if fields.get("path") else None
    fields["tool_runs"] = [ToolRun(**run) for run in fields.get("tool_runs", [])]
    reply_id, words = str((fields.get("reply") or {}).get("id", "")), fields.get("error") or ""
    fields.setdefault("script_reply", int(reply_id[9:]) if re.fullmatch(r"msg_fake_\d+", reply_id) else None)
    fields.setdefault("status", int(words[:3]) if words[:3].isdigit() else None)
    return TurnRecord(**fields)


def step(state: RunState, model: Model, toolbox: Mapping[str, Tool] = TOOLS) -> TurnRecord:
    """Run exactly one turn of the loop and return its record.

    The tools run from `toolbox`: the built-in tools, unless a fault injected
    on purpose (`agent.models.faults`) swaps one for a tool that breaks.
    """
    if state.done:
        raise RuntimeError(f"the loop has finished: {state.result}")
    started = time.perf_counter()
    record = TurnRecord(turn=state.turn + 1, sent=len(state.messages))
    try:
        if state.threads and getattr(model, "holds_threads", False):
            reply = ask_on_thread(state, model, record)  # only the new messages: the model holds the rest
        else:
            reply = model.create(state.messages, system=state.system,
                                 tools=tool_schemas(state.tool_names), max_tokens=state.max_tokens)
    except Exception as exc:  # a failing model is a state of the run, never a crash
        record.error, record.status = error_words(exc), getattr(exc, "status_code", None)
        if _is_bad_request(exc):
            record.path = TurnPath.BAD_REQUEST
            record.refused_unsent = isinstance(exc, RequestRejected)
            state.result = f"bad request: {getattr(exc, 'api_message', None) or exc}"
        elif getattr(exc, "ends_run", False):  # e.g. a script that has run out: trying again cannot help
            record.path = TurnPath.NO_REPLY
            state.result = f"stopped: {record.error}"
        else:
            record.path = TurnPath.MODEL_ERROR
            record.retryable = _is_retryable(exc)
        record.model_seconds = record.seconds = time.perf_counter() - started
        state.records.append(record)
        return record
    record.model_seconds = time.perf_counter() - started
    record.reply = reply
    record.script_reply = getattr(model, "script_reply", None)
    state.messages.append({"role": "assistant", "content": reply["content"]})

    stop_reason = reply.get("stop_reason")
    if stop_reason == StopReason.END_TURN:
        record.path = TurnPath.ANSWER
        state.result = "".join(b["text"] for b in reply["content"] if b.get("type") == "text")
    elif stop_reason != StopReason.TOOL_USE:  # max_tokens, refusal, ...: a cut-off call must never run
        record.path = TurnPath.STOPPED
        state.result = f"stopped: {stop_reason}"
    else:
        calls = [b for b in reply["content"] if b.get("type") == "tool_use"]
        record.tool_runs = [call_tool(b, state.tool_names, toolbox) for b in calls]
        results = [run.result_block() for run in record.tool_runs]
        state.messages.append({"role": "user", "content": results})
        record.path = TurnPath.TOOL_USE
        if record.turn >= state.max_turns:
            record.path = TurnPath.LIMIT
            state.result = f"stopped: no answer after {state.max_turns} turns"
    record.seconds = time.perf_counter() - started
    state.records.append(record)
    return record


# `error.details.error_code` of the rejections a whole array under a new thread recovers from (the SDK's list).
THREAD_LOST_CODES = ("thread_not_found", "thread_already_continued", "thread_continue_in_flight")


def thread_lost(exc: Exception) -> bool:
    """Whether a `continue` failed because the model cannot resume the thread: one of `THREAD_LOST_CODES`, or a
    404 (a server that has no such thread, or no threads beta, may say no more)."""
    return getattr(exc, "error_code", None) in THREAD_LOST_CODES or getattr(exc, "status_code", None) == 404


def ask_on_thread(state: RunState, model: Model, record: TurnRecord) -> dict[str, Any]:
    """Send a turn over a message thread: the first creates it; later ones continue from the last reply with only
    the messages after it, and without system and tools, which the thread keeps.

    When the model cannot resume the thread, the turn sends the whole array under a new thread, as the SDK's tool
    runner does, and its record says why (`thread_lost`).
    """
    previous = next((r for r in reversed(state.records) if r.reply is not None), None)
    if previous is not None and state.new_thread:  # the thread holds a history that is no longer this one
        record.thread_lost, previous = state.new_thread, None
    if previous is not None:
        record.thread = {"type": "continue", "previous_message_id": (previous.reply or {}).get("id")}
        record.sent_from = previous.sent + 1  # the thread holds the conversation up to and with that reply
        try:
            return model.create(state.messages[record.sent_from:], max_tokens=state.max_tokens, thread=record.thread)
        except Exception as exc:
            if not thread_lost(exc):
                raise
            record.thread_lost, record.sent_from = error_words(exc), 0
    record.thread = {"type": "create"}
    reply = model.create(state.messages, system=state.system, tools=tool_schemas(state.tool_names),
                         max_tokens=state.max_tokens, thread=record.thread)
    state.new_thread = None  # the new thread holds the history as it is now
    return reply


def run_to_end(state: RunState, model: Model, retries: int = 2) -> str:
    """Step until the loop finishes; returns what the loop returned.

    A failed request that is worth retrying (an overload, say) is tried again,
    but only `retries` times in a row; any other failure stops the run at
    once. Either way the state stays intact and a later `step` can try again.
    """
    failures = 0
    while not state.done:
        record = step(state, model)
        failures = 0 if record.counted else failures + 1
        if failures and (failures > retries or not record.retryable):
            return f"model error: {state.error}"
    return state.result or ""  # done: the result is set


def reopen(state: RunState) -> None:
    """Take back the ending of a run that a refused request ended, so the same turn can be sent again.

    This is how a person sends on purpose a request that the pre-flight check
    refused: reopen the run, tell the model to send anyway, and step.
    """
    if not (state.records and state.records[-1].path == TurnPath.BAD_REQUEST):
        raise ValueError("only a run that a refused request ended can be reopened")
    state.records.pop()
    state.result = None


def run_agent(task: str, model: Model, tool_names: list[str] | None = None, system: str = "",
              max_turns: int = MAX_TURNS) -> str:
    """The lesson's `run_agent`: the whole loop for one task."""
    state = RunState(task, system=system, tool_names=list(TOOLS) if tool_names is None else tool_names,
                     max_turns=max_turns)
    return run_to_end(state, model)
