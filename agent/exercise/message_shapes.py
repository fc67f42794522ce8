"""The shapes of the messages a loop sends, read for the evidence of a mistake: roles, blocks, the message a
refusal points at, the task, OpenAI's habits, and what a first request carried over from an earlier run.

`mistakes.py` names the mistakes from these; nothing here names one.
"""

from __future__ import annotations

import re
from typing import Any

_INDEX = re.compile(r"^messages\.(\d+)")


def role_of(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def blocks_of(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def typed_blocks(message: Any, kind: str) -> list[dict[str, Any]]:
    """The message's blocks of one type."""
    return [b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == kind]


def only_results(message: Any) -> bool:
    blocks = blocks_of(message)
    return bool(blocks) and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)


def blank_text(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return not content.strip()
    return any(isinstance(b, dict) and b.get("type") == "text" and not str(b.get("text") or "").strip()
               for b in blocks_of(message))


def offending_index(reason: str, messages: Any) -> int | None:
    """The index of the message a refusal points at: the API's `messages.N`, or for the reasons worded
    without one, the message the rule tripped on."""
    match = _INDEX.match(reason)
    if match:
        return int(match.group(1))
    if not isinstance(messages, list) or not messages:
        return None
    roles = [role_of(m) for m in messages]
    if "final message" in reason:
        return len(messages) - 1
    if "first message" in reason:
        return 0
    if "roles must alternate" in reason:
        return next((i for i in range(1, len(roles)) if roles[i] == roles[i - 1]), None)
    if 'role "system"' in reason:
        return roles.index("system") if "system" in roles else None
    if "text content blocks" in reason:
        return next((i for i, m in enumerate(messages) if blank_text(m)), None)
    if "final block in an assistant message" in reason:
        return next((i for i, m in enumerate(messages) if roles[i] == "assistant" and blocks_of(m)
                     and isinstance(blocks_of(m)[-1], dict) and blocks_of(m)[-1].get("type") == "thinking"), None)
    return None


def output_lines(text: str) -> list[str]:
    """Printed text line by line, as a person reads it (a tool result may hold newlines)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def is_text(content: Any, text: str) -> bool:
    """Whether a message's content is this text, as a string or as one text block."""
    return bool(content == text or content == [{"type": "text", "text": text}])


def starts_with_task(messages: Any, task: str) -> bool:
    """Whether a request's first message is the task, as the user's (a string or one text block)."""
    if not isinstance(messages, list) or not messages or role_of(messages[0]) != "user":
        return False
    return is_text(messages[0].get("content"), task)


def openai_shape(messages: list[Any]) -> tuple[str, int] | None:
    """The first message in OpenAI's chat format, and which OpenAI habit it shows: a result with role "tool"
    or "function", or naming its call in tool_call_id, or as a function_call_output item; a system message;
    calls as tool_calls, function_call or function_call items."""
    for i, message in enumerate(messages):
        if role_of(message) in ("tool", "function"):
            return "openai_tool_role", i
        if role_of(message) == "system":
            return "openai_system_message", i
        if isinstance(message, dict) and ("tool_calls" in message or "function_call" in message):
            return "openai_tool_calls", i
        blocks = [b for b in blocks_of(message) if isinstance(b, dict)]
        if any(b.get("type") == "function_call" for b in blocks):
            return "openai_tool_calls", i
        if any(b.get("type") == "function_call_output" or "tool_call_id" in b for b in blocks):
            return "openai_tool_role", i
    return None


def carried_reply(messages: list[Any], earlier_replies: list[Any]) -> int | None:
    """The index of an assistant message, in a run's first request, holding a reply an earlier run was given:
    the model has not answered this run yet, so that message can only have been kept from before."""
    for i, message in enumerate(messages):
        if role_of(message) == "assistant" and message.get("content") in earlier_replies:
            return i
    return None


def duplicate_result(messages: list[Any], start: int = 1) -> int | None:
    """The index of a user message (from `start` on) holding one call's result twice, the very same block: one
    call run or answered twice. Results with one id and different contents are not this: a stale or wrong id
    put on another call's output looks the same from here, and is another mistake."""
    for i in range(max(start, 1), len(messages)):
        if role_of(messages[i]) != "user":
            continue
        calls = {b.get("id") for b in typed_blocks(messages[i - 1], "tool_use")}
        results = typed_blocks(messages[i], "tool_result")
        for call in calls:
            answers = [b for b in results if b.get("tool_use_id") == call]
            if len(answers) > 1 and all(answer == answers[0] for answer in answers):
                return i
    return None


def earlier_task(messages: list[Any], earlier_tasks: list[str], task: str) -> int | None:
    """The index of a user message holding the task of a script run before this one (and not this one's)."""
    for i, message in enumerate(messages):
        if role_of(message) == "user" and isinstance(message, dict) and any(
                old != task and is_text(message.get("content"), old) for old in earlier_tasks):
            return i
    return None
