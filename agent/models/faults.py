"""Faults on demand: make one turn go wrong on purpose, and watch what the loop does.

A fault never re-implements the loop. It changes what the loop is handed and
lets `agent.loop.step` do the rest:

- `tool_raises`: the toolbox the step runs from lends a tool that raises, so
  the loop's own `call_tool` catches it and the model reads an error result;
- `cut_off`: the model's reply comes back cut off by `max_tokens` in the
  middle of its first tool call (its input half written), so the loop runs
  nothing, or mid-text when it holds no call;
  its usage is the model's own count for the whole reply, never invented;
- `refusal`: the reply comes back with `stop_reason: refusal`;
- `overloaded`: the service answers 529 overloaded (the SDK's own
  `OverloadedError`), a failed attempt that is not a turn, and then the
  retry goes out as `run_to_end` would send it;
- `timeout`: no reply within the timeout (the SDK's own `APITimeoutError`).

`step_with_fault` returns the records it made; the caller marks them as
injected (`agent.branches` does), so a page and a console can say so.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

from agent.loop import Model, RunState, TurnRecord, step
from agent.models.fake import sdk_error
from agent.tools import TOOLS, Tool

FAULTS = {
    "tool_raises": "the tool raises",
    "cut_off": "the reply is cut off by max_tokens",
    "refusal": "the model refuses",
    "overloaded": "the service answers 529 overloaded, then the retry",
    "timeout": "the reply takes longer than the timeout",
}
FAILS_BEFORE_ASKING = ("overloaded", "timeout")  # no reply is asked for: a script's next reply stays unplayed
OVERLOADED = {"status": 529, "type": "overloaded_error", "message": "Overloaded"}  # the API's own error body


class InjectedToolFailure(RuntimeError):
    """What a tool broken on purpose raises."""


@dataclass(frozen=True)
class Fault:
    """What goes wrong on one turn."""

    kind: str
    """One of `FAULTS`' keys."""
    tool: str = ""
    """For `tool_raises`: the tool that breaks; empty means every tool the turn calls."""

    def __post_init__(self) -> None:
        if self.kind not in FAULTS:
            raise ValueError(f"no fault {self.kind!r} (the faults: {', '.join(FAULTS)})")
        if self.tool and self.tool not in TOOLS:
            raise ValueError(f"no tool {self.tool!r} to break (the tools: {', '.join(TOOLS)})")

    def words(self, reply: dict[str, Any] | None = None) -> str:
        """The fault in a few words, for the graph and the console; with the `reply` it changed, where it cut."""
        if self.kind == "tool_raises":
            return f"{self.tool or 'every tool'} raises"
        if self.kind == "cut_off" and reply is not None:
            calls = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in reply.get("content") or [])
            return f"{FAULTS[self.kind]} in the middle of {'a tool call' if calls else 'its text'}"
        return FAULTS[self.kind]


def broken_toolbox(tool: str = "") -> dict[str, Tool]:
    """The built-in tools with `tool` (or every tool, when empty) swapped for one that raises."""

    def breaks(name: str) -> Tool:
        def raise_instead(**_: Any) -> Any:
            raise InjectedToolFailure(f"{name} broke down (an injected fault)")
        return replace(TOOLS[name], function=raise_instead)

    return {name: breaks(name) if not tool or name == tool else real for name, real in TOOLS.items()}


def cut_input(tool_input: Any) -> dict[str, Any]:
    """A tool input as far as it got when the tokens ran out: the first half of its fields, the last one cut short."""
    if not isinstance(tool_input, dict) or not tool_input:
        return {}
    keep = list(tool_input.items())[:max(1, (len(tool_input) + 1) // 2)]
    name, last = keep[-1]
    cut = dict(keep)
    if isinstance(last, str):
        cut[name] = last[:len(last) // 2]
    return cut


def cut_off(reply: dict[str, Any], max_tokens: int) -> dict[str, Any]:
    """The reply as `max_tokens` would have cut it: ending inside its first tool call (or mid-text when it has none)."""
    content = copy.deepcopy(reply.get("content") or [])
    first_call = next((i for i, b in enumerate(content) if b.get("type") == "tool_use"), None)
    if first_call is not None:
        content = content[:first_call + 1]
        content[first_call]["input"] = cut_input(content[first_call].get("input"))
    else:
        texts = [i for i, b in enumerate(content) if b.get("type") == "text" and b.get("text")]
        if texts:
            content = content[:texts[0] + 1]
            text = content[texts[0]]["text"]
            content[texts[0]]["text"] = text[:max(1, len(text) // 2)]
    # The usage stays as the model counted it, for its whole reply, or stays absent: nobody measured the cut.
    return {**reply, "content": content, "stop_reason": "max_tokens"}


def timeout_error() -> Exception:
    """The exception the `anthropic` SDK raises when no answer comes within its timeout."""
    import anthropic  # only a run that injects this fault pays for the import
    import httpx2

    return anthropic.APITimeoutError(request=httpx2.Request("POST", "https://api.anthropic.com/v1/messages"))


@dataclass
class FaultyModel:
    """A model wrapped so that its next answer goes wrong the way `fault` says."""

    inner: Model
    """The model that would have answered."""
    fault: Fault
    """What goes wrong."""

    @property
    def holds_threads(self) -> bool:
        """As the inner model: a fault injected into a run over threads goes over the thread too."""
        return bool(getattr(self.inner, "holds_threads", False))

    @property
    def script_reply(self) -> int | None:
        """As the inner model: a reply cut off or refused is still the script's reply it changed."""
        return getattr(self.inner, "script_reply", None)

    def create(self, messages: list[dict[str, Any]], *, max_tokens: int, **options: Any) -> dict[str, Any]:
        """Fail, or answer with the inner model's reply changed, as the fault says (`options`: system, tools,
        thread, passed on as they came)."""
        if self.fault.kind in FAILS_BEFORE_ASKING:
            raise sdk_error(OVERLOADED) if self.fault.kind == "overloaded" else timeout_error()
        reply = self.inner.create(messages, max_tokens=max_tokens, **options)
        if self.fault.kind == "cut_off":
            return cut_off(reply, max_tokens)
        if self.fault.kind == "refusal":  # the reply as far as it got; a complete-looking call must still not run
            return {**reply, "stop_reason": "refusal"}
        return reply


def fault_applied(fault: Fault, records: list[TurnRecord]) -> bool:
    """Whether the fault met anything to act on: a broken tool needs a call, a changed reply needs a reply."""
    if fault.kind in FAILS_BEFORE_ASKING:
        return True
    if fault.kind == "tool_raises":
        return any(record.tool_runs for record in records)
    return records[0].reply is not None


def step_with_fault(state: RunState, model: Model, fault: Fault) -> list[TurnRecord]:
    """One Step with `fault` injected, through `agent.loop.step`; returns the records made, injected one first.

    An overload is followed at once by the retry, as `run_to_end` (and the
    SDK) would send it: the same turn, to the same model, with no fault.
    """
    if fault.kind == "tool_raises":
        return [step(state, model, broken_toolbox(fault.tool))]
    records = [step(state, FaultyModel(model, fault))]
    if fault.kind == "overloaded" and not state.done:
        records.append(step(state, model))
    return records
