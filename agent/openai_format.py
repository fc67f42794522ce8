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
from dataclasses import dataclass, field
from typing import Any

from agent.summary import result_text

# stop_reason -> finish_reason. A reason Chat Completions has no word for maps to None.
FINISH_REASONS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "stop_sequence": "stop",
                  "refusal": "content_filter"}
DIFFERENCES_HEAD = ("", "Messages API (this page)", "Chat Completions")
"""The columns of `DIFFERENCES`, as the page and the player head the table."""
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
    results becomes N `tool` messages); what has no place there is left out, and `left_out` names it."""
    if message.get("role") == "assistant":
        return [_assistant(message.get("content"))]
    return _user(message.get("content"))


# The blocks each role's translation carries; any other is left out, and said to be.
CARRIED = {"assistant": ("text", "tool_use"), "user": ("text", "tool_result")}
LEFT_OUT_WHY = {
    "thinking": "Chat Completions has no thinking blocks to send back",
    "redacted_thinking": "Chat Completions has no thinking blocks to send back",
    "image": "this translation carries text only (Chat Completions takes an image as an `image_url` part)",
    "document": "this translation carries text only (Chat Completions takes a file as a `file` part)",
}


def left_out(message: dict[str, Any]) -> list[str]:
    """The blocks of a message that its translation leaves out, by type, in order, each once: `thinking`,
    `image`, `document`, ..., and a result's own non-text blocks as e.g. `image in a tool_result`."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    carried = CARRIED.get(str(message.get("role")), ())
    kinds = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in carried:
            kinds.append(str(kind))
        elif kind == "tool_result" and isinstance(block.get("content"), list):
            kinds += [f"{part.get('type') if isinstance(part, dict) else None} in a tool_result"
                      for part in block["content"] if not (isinstance(part, dict) and part.get("type") == "text")]
    return list(dict.fromkeys(kinds))


def left_out_words(kinds: list[str]) -> str:
    """What a message's translation leaves out, and why, in one line; empty when it leaves out nothing."""
    if not kinds:
        return ""
    reasons = [LEFT_OUT_WHY.get(kind.split(" ")[0], "this translation carries only text, tool calls and results")
               for kind in kinds]
    return f"left out: {', '.join(kinds)} ({'; '.join(dict.fromkeys(reasons))})"


@dataclass(frozen=True)
class Pair:
    """One row of the side-by-side view: a message of this API and what Chat Completions carries instead."""

    index: int | None
    """The message's index in the Messages API's array; None for the system prompt, which is no message here."""
    anthropic: dict[str, Any] | None
    """The message as sent to the Messages API (None for the system prompt's row)."""
    openai: list[dict[str, Any]]
    """The Chat Completions messages that carry the same."""
    left_out: list[str] = field(default_factory=list)
    """The blocks of the message that Chat Completions' messages do not carry (`left_out`)."""


def side_by_side(messages: list[dict[str, Any]], system: str = "") -> list[Pair]:
    """The conversation row by row: the system prompt's message (if any), then each message and its translation."""
    rows = [Pair(None, None, [{"role": "system", "content": system}])] if system else []
    return rows + [Pair(i, m, translate_message(m), left_out(m)) for i, m in enumerate(messages)]


def chat_messages(messages: list[dict[str, Any]], system: str = "") -> list[dict[str, Any]]:
    """The whole `messages` array Chat Completions would be sent for this conversation."""
    return [message for pair in side_by_side(messages, system) for message in pair.openai]
