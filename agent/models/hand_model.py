"""Be the model: a model whose next reply a person writes.

`HandModel` has the FakeModel's `create`, so the loop cannot tell it from any
other model: each request is checked as the API would check it, and the answer
is the reply the person gave with `give` beforehand. `reply_from_form` turns
what a small form holds (a `stop_reason` and a list of text, thinking and
tool_use blocks) into a reply in the API's shape: tool names must be the
agent's, inputs must fit their schemas, and tool_use ids are generated.

A session played this way is a run like any other, so it saves as a script
(`agent.real.record_script`) that the FakeModel replays to the same console:
this is how a teacher writes a scenario without opening a JSON file.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from agent.api import signing
from agent.api.requests import RequestChecker, as_message_list, request_body, thinking_enabled
from agent.loop import StopReason
from agent.tools import TOOLS, input_problem

STOP_REASONS = tuple(reason.value for reason in StopReason)  # the form's choices, in the API's order
FORM_BLOCK_TYPES = ("text", "thinking", "tool_use")
HAND_MODEL = "you"  # the `model` of a reply a person wrote
HAND_ID = "toolu_hand_"  # the start of a tool_use id made for a person's reply


class HandReplyError(ValueError):
    """A reply the form cannot send as it stands; `str()` says what to change, in one line."""


class NoReplyGiven(Exception):
    """The loop asked the hand model before the person wrote its reply."""


def reply_from_form(stop_reason: str, blocks: list[dict[str, Any]], tool_names: list[str],
                    next_id: int = 1, check_inputs: bool = True, taken: Collection[str] = ()) -> dict[str, Any]:
    """A reply in the API's shape from a form's blocks; raises HandReplyError in words.

    Each block is `{"type": "text", "text": ...}`, `{"type": "thinking", "thinking": ...}` or
    `{"type": "tool_use", "name": ..., "input": {...}}`. A tool_use block without an `id` gets
    `toolu_hand_0001`, `toolu_hand_0002`, ... counting from `next_id` and passing over every id in `taken`
    (the conversation's, see `tool_use_ids`) and in the blocks themselves, so a made id is never a
    duplicate. One with an id keeps it (an edit of a reply the model gave), and the request checks judge it
    on the next request. With `check_inputs`, a tool must be one of `tool_names` and its input must fit its
    schema.
    """
    if not isinstance(stop_reason, str) or not stop_reason.strip():
        raise HandReplyError("pick a stop_reason")
    fresh = _fresh_ids(next_id, {*taken, *(b.get("id") for b in blocks if b.get("type") == "tool_use")})
    content: list[dict[str, Any]] = []
    for position, block in enumerate(blocks, start=1):
        kind = block.get("type")
        if kind == "text":
            content.append({"type": "text", "text": str(block.get("text", ""))})
        elif kind == "thinking":
            thinking = {"type": "thinking", "thinking": str(block.get("thinking", ""))}
            # A signature the model gave stays with its block, so text changed under it is refused as the API
            # refuses it; a block the person wrote is signed as the model would sign its own.
            if isinstance(block.get("signature"), str):
                thinking["signature"] = block["signature"]
            content.append(signing.signed(thinking))
        elif kind == "tool_use":  # named as the Be the model form numbers its calls, beside the block's place
            calls = sum(1 for b in content if b["type"] == "tool_use") + 1
            content.append(_tool_use(f"block {position} (Tool {calls})", block, tool_names, check_inputs, fresh))
        else:
            raise HandReplyError(f"block {position}: a reply's blocks here are {', '.join(FORM_BLOCK_TYPES)}, "
                                 f"not {kind!r}")
    if stop_reason == "tool_use" and not any(b["type"] == "tool_use" for b in content):
        raise HandReplyError("a tool_use reply needs at least one tool_use block: add one, or pick another "
                             "stop_reason")
    return {"stop_reason": stop_reason, "content": content}


def _fresh_ids(number: int, taken: Collection[Any]) -> Iterator[str]:
    while True:
        if (made := f"{HAND_ID}{number:04d}") not in taken:
            yield made
        number += 1


def _tool_use(where: str, block: dict[str, Any], tool_names: list[str], check_inputs: bool,
              fresh: Iterator[str]) -> dict[str, Any]:
    name, tool_input = block.get("name"), block.get("input", {})
    if not isinstance(name, str) or not name:
        raise HandReplyError(f"{where}: a tool_use block needs a tool name")
    if not isinstance(tool_input, dict):
        raise HandReplyError(f"{where}: a tool's input is a JSON object, like {{\"a\": 2}}")
    if check_inputs:
        if name not in tool_names:
            raise HandReplyError(f"{where}: this agent has no tool {name!r} "
                                 f"(its tools: {', '.join(tool_names) or 'none'})")
        problem = input_problem(TOOLS[name], tool_input)
        if problem:
            raise HandReplyError(f"{where}: {problem}")
    block_id = block.get("id") if "id" in block else next(fresh)
    return {"type": "tool_use", "id": block_id, "name": name, "input": copy.deepcopy(tool_input)}


def tool_use_ids(messages: list[dict[str, Any]]) -> set[str]:
    """Every tool_use id in a conversation: the ids a new reply's calls must not take."""
    return {block["id"] for message in messages if isinstance(message.get("content"), list)
            for block in message["content"] if isinstance(block, dict) and block.get("type") == "tool_use"
            and isinstance(block.get("id"), str)}


def written_by_hand(reply: dict[str, Any] | None) -> bool:
    """Whether a reply is one a person wrote (Be the model, or an edit), not a model's."""
    return (reply or {}).get("model") == HAND_MODEL


@dataclass
class HandModel:
    """A model that answers each request with the reply a person gave it, after checking the request."""

    mode: str = "lesson"
    """The request rules it checks by: `lesson` (strict) or `real-api`."""
    pending: dict[str, Any] | None = None
    """The reply the next request gets (`stop_reason`, `content`); None until `give` is called."""
    calls: int = 0
    """Replies given to the loop so far."""
    ids_given: int = 0
    """tool_use ids generated so far, so every id of a session is new."""
    replies: list[dict[str, Any]] = field(default_factory=list)
    """Every reply the loop received from this model, in order."""

    def __post_init__(self) -> None:
        self._checker = RequestChecker(self.mode)

    def give(self, stop_reason: str, blocks: list[dict[str, Any]], tool_names: list[str],
             check_inputs: bool = True, taken: Collection[str] = ()) -> dict[str, Any]:
        """Set the next reply from a form's blocks (see `reply_from_form`; `taken`: the conversation's ids)."""
        reply = reply_from_form(stop_reason, blocks, tool_names, self.ids_given + 1, check_inputs, taken)
        made = [given["id"] for asked, given in zip(blocks, reply["content"], strict=True)
                if given["type"] == "tool_use" and "id" not in asked]
        if made:
            self.ids_given = int(made[-1].removeprefix(HAND_ID))
        self.pending = reply
        return reply

    def create(self, messages: Any, *, system: Any = "", tools: Any = None, max_tokens: Any = 1024,
               **options: Any) -> dict[str, Any]:
        """Check the request as the FakeModel and the toy do (the body's fields, then the conversation), then
        answer with the reply the person gave."""
        messages = as_message_list(messages)
        self._checker.require_fields(request_body(options.pop("model", HAND_MODEL), max_tokens, system, tools,
                                                  options))
        self._checker.require(messages, thinking=thinking_enabled(options))
        if self.pending is None:
            raise NoReplyGiven("you are the model: write its reply first, then send it")
        reply, self.pending = self.pending, None
        self.calls += 1
        self.replies.append(copy.deepcopy(reply))
        return {"id": f"msg_hand_{self.calls:04d}", "type": "message", "role": "assistant", "model": HAND_MODEL,
                **copy.deepcopy(reply)}
