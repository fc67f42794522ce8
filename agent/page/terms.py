"""The words a beginner meets, each said in one line where it first appears on the page: not before.

Streamlit-free: the Start here page asks which terms a turn's reply brings for the first time in its run.
"""

from __future__ import annotations

from typing import Any

from agent.loop import RunState, StopReason, TurnRecord

TERMS = {
    "stop_reason": "stop_reason is the reply saying why the model stopped writing: the loop decides on it, and on "
                   "nothing else.",
    "tool_use": "A tool_use block is a call the model asks for: a tool's name, its input, and an id. The result goes "
                "back as a tool_result naming that id (tool_use_id), so the model knows which call it answers.",
    "thinking": "A thinking block is the model's reasoning before it answers: the loop sends it back unchanged with "
                "the reply, and leaves it out of the answer.",
    "other_stop": "A stop reason other than end_turn and tool_use: the loop runs nothing in this reply and stops, "
                  "saying which reason it was.",
}

EMPTY_THINKING = " This one is empty (the model showed none of its reasoning), and it still goes back as it came."


def terms_in(reply: dict[str, Any]) -> set[str]:
    blocks = [b for b in reply.get("content") or [] if isinstance(b, dict)]
    found = {"stop_reason"}
    if any(b.get("type") == "tool_use" for b in blocks):
        found.add("tool_use")
    if any(b.get("type") in ("thinking", "redacted_thinking") for b in blocks):
        found.add("thinking")
    if reply.get("stop_reason") not in (StopReason.END_TURN, StopReason.TOOL_USE):
        found.add("other_stop")
    return found


def first_terms(run: RunState, record: TurnRecord, asking: bool = False) -> list[str]:
    """One line for each term `record`'s reply brings that no earlier reply of the run brought; while `asking`
    what the loop does with it, none that says what the loop does (the answer comes after the question)."""
    if record.reply is None:
        return []
    seen: set[str] = set()
    for earlier in run.records:
        if earlier.turn >= record.turn:
            break
        if earlier.reply is not None:
            seen |= terms_in(earlier.reply)
    new = terms_in(record.reply) - seen - ({"other_stop"} if asking else set())
    empty = any(isinstance(b, dict) and b.get("type") == "thinking" and not str(b.get("thinking") or "").strip()
                for b in record.reply.get("content") or [])
    said = {**TERMS, "thinking": TERMS["thinking"] + EMPTY_THINKING} if empty else TERMS
    return [said[name] for name in TERMS if name in new]
