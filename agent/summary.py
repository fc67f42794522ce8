"""One-line summaries of messages and blocks, as the console, the page and the exercise's verdicts print them.

The engine's console lines, the page's cards and the exercise's side-by-side
arrays all say a message the same way, so they share this one module.
"""

from __future__ import annotations

import json
from typing import Any


def clip(text: str, limit: int = 60) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def compact_json(value: Any) -> str:
    """JSON on one line with its keys sorted, as the console prints tool input, characters as written."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def result_text(content: Any) -> str:
    """A tool_result's content as text: a string as it is, text blocks joined."""
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def block_line(block: Any, limit: int = 60) -> str:
    """One content block in one line: its type and what matters in it."""
    if not isinstance(block, dict):
        return clip(compact_json(block), limit)
    kind = block.get("type")
    if kind == "text":
        return f"text {clip(json.dumps(block.get('text', ''), ensure_ascii=False), limit)}"
    if kind == "thinking":
        thought = block.get("thinking", "")
        return f"thinking {clip(json.dumps(thought, ensure_ascii=False), limit)}" if thought else "thinking (empty)"
    if kind == "redacted_thinking":
        return "redacted_thinking (encrypted)"
    if kind == "tool_use":
        return f"tool_use {block.get('id')} {block.get('name')} {clip(compact_json(block.get('input')), limit)}"
    if kind == "tool_result":
        error = " (error)" if block.get("is_error") else ""
        return f"tool_result {block.get('tool_use_id')}{error}: {clip(result_text(block.get('content')), limit)}"
    return clip(compact_json(block), limit)


def message_line(message: Any, limit: int = 60) -> str:
    """One message in one line: its role, then each block's line (anything else: its JSON, clipped)."""
    if not isinstance(message, dict):
        return f"not a message: {clip(compact_json(message), limit)}"
    content = message.get("content")
    if isinstance(content, str):
        return f"{message.get('role')}: {clip(json.dumps(content, ensure_ascii=False), limit)}"
    if not isinstance(content, list):
        return f"{message.get('role')}: content {clip(compact_json(content), limit)}"
    return f"{message.get('role')}: " + (" · ".join(block_line(b, limit) for b in content) or "(no blocks)")


def printable(text: Any, limit: int = 200) -> str:
    """Text from a client, fit for one log line: control characters escaped, cut short when long."""
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text)[:limit])
    return shown + ("…" if len(str(text)) > limit else "")
