"""The same conversation as OpenAI's Chat Completions API would carry it: a pure translation.

Many lessons teach the loop in the Chat Completions shape, and the habits they
build are mistakes in the Messages API. This module translates a conversation
in the Messages API's shape into that one, message by message, so the two can
be read side by side:

- the system prompt is a message of its own (`role: "system"`), not a parameter;
- an assistant's tool calls are a `tool_calls` list beside its `content`, each
  call's arguments a JSON *string*;
- each tool result is a message of its own (`role: "tool"`, `tool_call_id`),
  where the Messages API puts every result in ONE user message of blocks;
- a reply says `finish_reason` (`stop`, `tool_calls`, `length`, ...) where the
  Messages API says `stop_reason` (`end_turn`, `tool_use`, `max_tokens`, ...).

Nothing here calls any service; the translation is for reading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent.summary import result_text

# stop_reason -> finish_reason. A reason Chat Completions has no word for maps to None.
FINISH_REASONS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "stop_sequence": "stop",
                  "refusal": "content_filter"}
DIFFERENCES = [
    ("the system prompt", "a `system` parameter beside `messages`", "the first message, `role: \"system\"`"),
    ("tool calls", "`tool_use` blocks in the assistant's `content`, `input` an object",
     "a `tool_calls` list beside `content`, `arguments` a JSON string"),
    ("tool results", "ONE `user` message holding every `tool_result` block",
     "one `role: \"tool\"` message per result, with its `tool_call_id`"),
    ("why the reply ended", "`stop_reason`: `end_turn`, `tool_use`, `max_tokens`, ...",
     "`finish_reason`: `stop`, `tool_calls`, `length`, ..."),
    ("the loop's branch", "on `stop_reason`", "on whether the reply has `tool_calls`"),
]


def finish_reason(stop_reason: str | None) -> str | None:
    """The Chat Completions `finish_reason` for a Messages API `stop_reason`; None where it has no word for it."""
    return FINISH_REASONS.get(stop_reason or "")


def _text_of(blocks: list[Any]) -> str:
    return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def _assistant(content: Any) -> dict[str, Any]:
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    blocks = content if isinstance(content, list) else []
    calls = [{"id": b.get("id"), "type": "function",
              "function": {"name": b.get("name"), "arguments": json.dumps(b.get("input"), ensure_ascii=False)}}
             for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
    message: dict[str, Any] = {"role": "assistant", "content": _text_of(blocks) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _user(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    blocks = content if isinstance(content, list) else []
    results = [{"role": "tool", "tool_call_id": b.get("tool_use_id"), "content": result_text(b.get("content"))}
               for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
    text = _text_of(blocks)
    return results + ([{"role": "user", "content": text}] if text else [])


def translate_message(message: dict[str, Any]) -> list[dict[str, Any]]:
    """One Messages API message as the Chat Completions messages that carry the same (a user message of N
    results becomes N `tool` messages; thinking blocks have no place there and are left out)."""
    if message.get("role") == "assistant":
        return [_assistant(message.get("content"))]
    return _user(message.get("content"))


@dataclass(frozen=True)
class Pair:
    """One row of the side-by-side view: a message of this API and what Chat Completions carries instead."""

    index: int | None
    """The message's index in the Messages API's array; None for the system prompt, which is no message here."""
    anthropic: dict[str, Any] | None
    """The message as sent to the Messages API (None for the system prompt's row)."""
    openai: list[dict[str, Any]]
    """The Chat Completions messages that carry the same."""


def side_by_side(messages: list[dict[str, Any]], system: str = "") -> list[Pair]:
    """The conversation row by row: the system prompt's message (if any), then each message and its translation."""
    rows = [Pair(None, None, [{"role": "system", "content": system}])] if system else []
    return rows + [Pair(i, m, translate_message(m)) for i, m in enumerate(messages)]


def chat_messages(messages: list[dict[str, Any]], system: str = "") -> list[dict[str, Any]]:
    """The whole `messages` array Chat Completions would be sent for this conversation."""
    return [message for pair in side_by_side(messages, system) for message in pair.openai]


def chat_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Messages API's `tools` as Chat Completions' function tools: `input_schema` becomes `parameters`."""
    return [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                              "parameters": t["input_schema"]}} for t in tools]


def chat_request(request: dict[str, Any]) -> dict[str, Any]:
    """A whole Messages API request body as the Chat Completions body that asks the same."""
    body: dict[str, Any] = {"model": request.get("model", ""),
                            "messages": chat_messages(request.get("messages", []), request.get("system", "") or ""),
                            "max_tokens": request.get("max_tokens")}
    if request.get("tools"):
        body["tools"] = chat_tools(request["tools"])
    return body
