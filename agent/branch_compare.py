"""Two branches of a run tree compared: their messages side by side from where they part, and how they differ.

`compare` is a pure function of an `agent.branches.RunTree`: the rows from the first message the two branches
hold differently, that message marked, and the differences as data, each with its words (a tool input changed, a
result marked is_error, a reply that stopped where the other called a tool, the messages only one has, the
endings). The page draws it in Change the past (`views/change_the_past.py`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from agent.branches import BranchError, RunTree
from agent.loop import RunState


class Change(StrEnum):
    """What differs between the two branches at one place."""

    STOPPED_INSTEAD = "stopped where the other called a tool"
    STOP_REASON = "stop_reason"
    CALLS_NO_TOOL = "calls no tool where the other does"
    TOOL_NAME = "tool called"
    TOOL_INPUT = "tool input"
    TOOL_CALLS = "number of tool calls"
    TEXT = "reply text"
    IS_ERROR = "result marked is_error"
    RESULT = "result content"
    TOOL_RESULTS = "number of tool results"
    IDS_ONLY = "tool ids only"
    UNNAMED = "blocks, otherwise"
    ONLY_ONE_HAS = "messages only one branch has"
    ENDING = "how the runs ended"


@dataclass(frozen=True)
class Difference:
    """One difference: where, what, each side's value, and the sentence the page shows."""

    change: Change
    index: int | None
    """The message it is in (the first of them, for ONLY_ONE_HAS); None for ENDING."""
    left: Any
    """The left branch's side: a stop_reason, a tool's name or input, a text, a result's content or is_error, a
    count, or the run's result (None while it goes on); None where the change has no sides (IDS_ONLY, UNNAMED)."""
    right: Any
    words: str
    """The sentence the page shows, each branch named."""
    number: int | None = None
    """Which call or result (from 1), for TOOL_NAME, TOOL_INPUT, IS_ERROR and RESULT."""


@dataclass
class Comparison:
    """Two branches' messages side by side from where they part, and how they differ."""

    left: str
    """The first branch's name."""
    right: str
    """The second branch's name."""
    shared: int
    """How many messages, from the first, the two hold alike: the rows start there."""
    rows: list[tuple[int, dict[str, Any] | None, dict[str, Any] | None]]
    """From `shared` on: (index, the left branch's message, the right's), None where a branch has none."""
    differences: list[Difference]
    """What differs, in the order the conversation meets it; empty when the two are alike."""

    @property
    def first_difference(self) -> int | None:
        """The index of the first message that differs (the one to mark), or None when none does."""
        return self.rows[0][0] if self.rows else None


def compare(tree: RunTree, left: str, right: str) -> Comparison:
    """Branches `left` and `right` of `tree` (or a branch and main), set side by side from where they part."""
    for name in (left, right):
        if name not in tree.branches:
            raise BranchError(f"no branch {name!r} (the branches: {', '.join(tree.branches)})")
    a, b = tree.branches[left].state, tree.branches[right].state
    shared = 0
    while shared < min(len(a.messages), len(b.messages)) and a.messages[shared] == b.messages[shared]:
        shared += 1
    rows = [(i, a.messages[i] if i < len(a.messages) else None, b.messages[i] if i < len(b.messages) else None)
            for i in range(shared, max(len(a.messages), len(b.messages)))]
    found: list[Difference] = []
    for index, mine, theirs in rows:
        if mine is not None and theirs is not None:
            found += _message_change(left, right, index, mine, theirs, _stop_at(a, index), _stop_at(b, index))
    shorter = min(len(a.messages), len(b.messages))
    if len(a.messages) != len(b.messages):  # the messages only one branch has: one line for them all
        longer, other, state = (left, right, b) if len(a.messages) > len(b.messages) else (right, left, a)
        last = max(len(a.messages), len(b.messages)) - 1
        which = f"messages[{shorter}]" if last == shorter else f"messages[{shorter}]–[{last}]"
        why = "its run ended before them" if state.done else f"it has not got that far (turn {state.turn})"
        found.append(Difference(Change.ONLY_ONE_HAS, shorter, len(a.messages), len(b.messages),
                                f"{which}: only {longer} has {'it' if last == shorter else 'them'}; {other}: {why}"))
    if a.result != b.result:
        found.append(Difference(Change.ENDING, None, a.result, b.result,
                                f"{left} {_ending(a)}; {right} {_ending(b)}"))
    return Comparison(left, right, shared, rows, found)


def _stop_at(state: RunState, index: int) -> str | None:
    """The stop_reason of the reply that became message `index`, if that message is a reply."""
    for record in state.records:
        if record.reply is not None and record.counted and record.sent == index:
            return record.reply.get("stop_reason")
    return None


def _ending(state: RunState) -> str:
    if state.result is None:
        return f"is still going on after turn {state.turn}"
    if state.result.startswith(("stopped:", "bad request:")):
        return f"ended {state.result}"
    return f"answered “{_short(state.result)}”"


def _short(value: Any, limit: int = 48) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind] if isinstance(content, list) else []


def _message_change(left: str, right: str, index: int, mine: dict[str, Any], theirs: dict[str, Any],
                    my_stop: str | None, their_stop: str | None) -> list[Difference]:
    """What differs between the two branches' message `index`."""
    where = f"messages[{index}]"
    if mine == theirs:
        return []  # alike again after an earlier difference (a script replays the same reply whatever came before)
    said: list[Difference] = []  # the roles are alike: every branch's messages alternate user, assistant

    def differ(change: Change, left_side: Any, right_side: Any, words: str, number: int | None = None) -> None:
        said.append(Difference(change, index, left_side, right_side, f"{where}: {words}", number))

    def counted(change: Change, noun: str, mine: list[Any], theirs: list[Any]) -> None:
        if len(mine) != len(theirs):
            differ(change, len(mine), len(theirs),
                   f"{len(mine)} {noun}{'s' if len(mine) != 1 else ''} in {left}, {len(theirs)} in {right}")
    if mine.get("role") == "assistant":
        calls, their_calls = _blocks(mine, "tool_use"), _blocks(theirs, "tool_use")
        stops = {left: my_stop, right: their_stop}
        if my_stop != their_stop and "tool_use" in stops.values() and None not in stops.values():
            calling, stopping = (left, right) if my_stop == "tool_use" else (right, left)
            differ(Change.STOPPED_INSTEAD, my_stop, their_stop,
                   f"the reply in {stopping} stopped ({stops[stopping]}) where the one in {calling} called a tool")
        elif my_stop != their_stop and None not in stops.values():
            differ(Change.STOP_REASON, my_stop, their_stop,
                   f"the reply's stop_reason is {my_stop} in {left}, {their_stop} in {right}")
        elif bool(calls) != bool(their_calls):
            calling, stopping = (left, right) if calls else (right, left)
            differ(Change.CALLS_NO_TOOL, len(calls), len(their_calls),
                   f"the reply in {stopping} calls no tool where the one in {calling} does")
        else:
            for n, (call, their_call) in enumerate(zip(calls, their_calls, strict=False), 1):
                if call.get("name") != their_call.get("name"):
                    differ(Change.TOOL_NAME, call.get("name"), their_call.get("name"),
                           f"tool call {n} is {call.get('name')} in {left}, {their_call.get('name')} in {right}", n)
                elif call.get("input") != their_call.get("input"):
                    differ(Change.TOOL_INPUT, call.get("input"), their_call.get("input"),
                           f"the input of {call.get('name')} changed: {_short(call.get('input'))} in {left}, "
                           f"{_short(their_call.get('input'))} in {right}", n)
            counted(Change.TOOL_CALLS, "tool call", calls, their_calls)
        texts = ["".join(b.get("text", "") for b in _blocks(m, "text")) for m in (mine, theirs)]
        if texts[0] != texts[1]:
            differ(Change.TEXT, texts[0], texts[1],
                   f"the reply's text changed: “{_short(texts[0])}” in {left}, “{_short(texts[1])}” in {right}")
    else:
        results, their_results = _blocks(mine, "tool_result"), _blocks(theirs, "tool_result")
        for n, (result, theirs_result) in enumerate(zip(results, their_results, strict=False), 1):
            if bool(result.get("is_error")) != bool(theirs_result.get("is_error")):
                marked, plain = (left, right) if result.get("is_error") else (right, left)
                differ(Change.IS_ERROR, bool(result.get("is_error")), bool(theirs_result.get("is_error")),
                       f"tool result {n} is marked is_error in {marked}, not in {plain}", n)
            if result.get("content") != theirs_result.get("content"):
                differ(Change.RESULT, result.get("content"), theirs_result.get("content"),
                       f"tool result {n} changed: {_short(result.get('content'))} in {left}, "
                       f"{_short(theirs_result.get('content'))} in {right}", n)
        counted(Change.TOOL_RESULTS, "tool result", results, their_results)
    if not said and _without_ids(mine) == _without_ids(theirs):
        differ(Change.IDS_ONLY, None, None, "the two differ only in their tool ids")
    elif not said:
        differ(Change.UNNAMED, None, None,
               f"the {mine.get('role')} message's blocks differ in a way not named here (see the cards below)")
    return said


def _without_ids(message: dict[str, Any]) -> Any:
    """A message with its tool ids blanked: what it says, apart from the bookkeeping that ties calls to results."""
    content = message.get("content")
    if not isinstance(content, list):
        return content
    return [{k: v for k, v in b.items() if k not in ("id", "tool_use_id")} if isinstance(b, dict) else b
            for b in content]
