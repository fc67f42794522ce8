"""One-line summaries of messages and blocks, and a run's console (what the exercise prints), said alike everywhere.

The engine's console lines, the page's cards and the exercise's side-by-side
arrays all say a message the same way, so they share this one module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent.loop import RunState, TurnPath  # the loop never imports this module: its console is said here


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


def console_lines(state: RunState, notes: Mapping[int, str] | None = None, *, returned: bool = True,
                  readable: bool = False) -> list[str]:
    """What the lesson's exercise prints for this run so far: the calls, the result, the request sizes.

    `returned=False` is for a run that goes on after a failed attempt (the page's): the loop has not
    returned, so there is no `result:` line for the failure, only the failed attempt's own line.
    `notes` (by index into `state.records`) are words to show beside a record's lines, e.g. the page
    marking a fault it injected; without them the lines are exactly the exercise's.
    `readable=True` is the page's console, for a person rather than for comparing with the exercise:
    non-ASCII input shown as itself (not `\\u00e9`), a run with no turn yet saying so, and a run over a
    message thread saying what the whole array would have been beside what was sent.
    """
    lines, notes = list[str](), notes or {}
    for index, record in enumerate(state.records):
        said = len(lines)
        if record.path == TurnPath.MODEL_ERROR:
            lines.append(f"turn {record.turn}: model error: {record.error}")
        if record.thread_lost:
            lines.append(f"turn {record.turn}: the thread could not be continued ({record.thread_lost}): "
                         f"sent the whole array, {record.sent} messages, under a new thread")
        lines.extend(f"turn {record.turn}: {run.name} "
                     f"{json.dumps(run.input, sort_keys=True, ensure_ascii=not readable)} -> {run.content}"
                     for run in record.tool_runs)
        if index in notes:
            if len(lines) == said:  # a turn that printed nothing: the note stands alone, said not to be output
                lines.append(f"<- turn {record.turn}: {notes[index]} (a note of the page's: run_agent printed "
                             "nothing this turn)")
            else:
                lines[said] += f"   <- {notes[index]}"
    if state.done:
        lines.append(f"result: {state.result}")
    elif state.error and returned:
        lines.append(f"result: model error: {state.error}")
    counted = [r for r in state.records if r.counted]
    sizes = ", ".join(str(r.messages_sent) + (" (refused before sending)" if readable and r.refused_unsent else "")
                      for r in counted)
    if readable and not counted:
        sizes = "none yet (no turn has gone through)"
    elif readable and any(r.thread is not None for r in counted):
        sizes += f" over a message thread (the whole array each turn: {', '.join(str(r.sent) for r in counted)})"
    lines.append(f"messages sent each turn: {sizes}")
    return lines
