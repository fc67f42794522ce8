"""The lesson's `run_agent` with the lines one turn went through lit, and the values they saw beside them.

The code shown is `examples/correct_loop.py`, the same file the exercise's
tests run, so the page can never show a loop that differs from the lesson's.
The engine says which path a turn took (`TurnRecord.path`); this module finds
the lesson's lines for each part of that path by reading the file's syntax tree
(the call to `model.create`, the `if` on `"end_turn"`, the `if` on
`"tool_use"`, ...), never by line numbers, so the example can be edited freely.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from agent.loop import RunState, TurnPath, TurnRecord
from agent.page.view import LoopSource, record_of_turn, sent_words
from agent.summary import clip

LESSON_FILE = Path(__file__).resolve().parents[2] / "examples" / "correct_loop.py"
FUNCTION = "run_agent"


@dataclass(frozen=True)
class LessonParts:
    """Where each part of the lesson's loop is: 1-based line spans, found in its syntax tree."""

    start: tuple[int, int]
    """`messages = [task]` and anything else before the `for`."""
    loop: int
    """The `for turn in ...` line."""
    send: tuple[int, int]
    """The statement that calls `model.create`."""
    append_reply: tuple[int, int]
    """The statement after it: the whole reply appended."""
    if_answer: tuple[int, int, int]
    """The `if` on `"end_turn"`: its test's first line, the test's last line, the end of its body."""
    if_other: tuple[int, int, int]
    """The `if` that stops on any reason but `"tool_use"`: test start, test end, body end."""
    tools: tuple[int, int]
    """Running the tool calls: from after that `if` to before the results are appended."""
    run_tool: int
    """The line that runs one tool call."""
    append_results: tuple[int, int]
    """The last statement of the loop: one user message of results appended."""
    limit: tuple[int, int]
    """What comes after the loop: the turn limit's return."""


def _span(node: ast.stmt) -> tuple[int, int]:
    return node.lineno, node.end_lineno or node.lineno


def _compares_to(node: ast.stmt, value: str) -> bool:
    return isinstance(node, ast.If) and any(isinstance(n, ast.Constant) and n.value == value
                                            for n in ast.walk(node.test))


def _calls(node: ast.AST, attribute: str) -> bool:
    return any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) == attribute
                                            or getattr(n.func, "id", None) == attribute) for n in ast.walk(node))


def find_parts(source: str) -> LessonParts:
    """The parts of the lesson's loop in `source`; ValueError when it does not have the lesson's shape."""
    tree = ast.parse(source)
    function = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == FUNCTION), None)
    if function is None:
        raise ValueError(f"no function named {FUNCTION}")
    at = next((i for i, n in enumerate(function.body) if isinstance(n, ast.For)), None)
    if at is None or at == 0:
        raise ValueError("run_agent has no `for` loop after its first line")
    loop = cast(ast.For, function.body[at])  # found as one above
    body = loop.body
    send = next((i for i, n in enumerate(body) if _calls(n, "create")), None)
    answer = next((i for i, n in enumerate(body) if _compares_to(n, "end_turn")), None)
    other = next((i for i, n in enumerate(body) if _compares_to(n, "tool_use")), None)
    if send is None or answer is None or other is None or not send < answer < other < len(body) - 2:
        raise ValueError("run_agent's loop does not send, branch on end_turn, then on tool_use, then run tools")
    runner = next((n for statement in body[other + 1:-1] for n in ast.walk(statement)
                   if isinstance(n, ast.stmt) and not isinstance(n, ast.For | ast.If) and _calls(n, "run_tool")), None)
    after = function.body[at + 1:]

    def branch(i: int) -> tuple[int, int, int]:
        test = cast(ast.If, body[i]).test  # found by _compares_to: an `if`
        return body[i].lineno, test.end_lineno or body[i].lineno, body[i].end_lineno or body[i].lineno

    return LessonParts(
        start=(function.body[0].lineno, function.body[at - 1].end_lineno or function.body[at - 1].lineno),
        loop=loop.lineno, send=_span(body[send]), append_reply=_span(body[send + 1]), if_answer=branch(answer),
        if_other=branch(other), tools=(body[other + 1].lineno, body[-2].end_lineno or body[-2].lineno),
        run_tool=runner.lineno if runner else body[other + 1].lineno, append_results=_span(body[-1]),
        limit=(after[0].lineno, after[-1].end_lineno or after[-1].lineno) if after else (loop.lineno, loop.lineno))


# What a call that raised does: run_agent has no handler, so the exception leaves it; the sandbox around it is
# what catches the exception (graph.HARNESS draws those exits apart from the loop's own paths).
RAISED: dict[TurnPath | None, str] = {
    TurnPath.BAD_REQUEST: "the request was refused: run_agent would raise here (the exception leaves it); "
                   "the sandbox catches it and ends the run",
    TurnPath.NO_REPLY: "no reply to give: run_agent would raise here (the exception leaves it); "
                "the sandbox catches it and ends the run",
    TurnPath.MODEL_ERROR: "the call failed: run_agent would raise here (the exception leaves it); "
                   "the sandbox keeps the run, and the next Step tries again",
}
RAISED_ELSE = "the call raised: run_agent would raise here (the exception leaves it)"


def loop_caption(record: TurnRecord | None) -> str:
    """The words above the lit loop: which lines are lit, and for what (None: before the first turn)."""
    if record is None:
        lit = "the lines that run before the first turn lit, and the value they set beside them"
        below = "Below it, the same place on the loop's cycle"
    else:
        what = f"turn {record.turn}" if record.counted else f"the failed attempt at turn {record.turn}"
        lit = f"the lines {what} went through lit, and the values they saw beside them"
        below = f"Below it, {what} round the loop's cycle"
    return (f"The lesson's `run_agent` (examples/correct_loop.py), with {lit}. {below}: dashed grey is the "
            "sandbox's own harness around run_agent (what happens when a call raises), not run_agent.")


def _lines(span: tuple[int, int]) -> set[int]:
    return set(range(span[0], span[1] + 1))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def path_lines(parts: LessonParts, record: TurnRecord | None, result: str | None = None
               ) -> tuple[set[int], dict[int, str]]:
    """The 1-based lines a turn went through and the values beside them; no record: the state before turn 1."""
    if record is None:
        return _lines(parts.start), {parts.start[0]: "len(messages) = 1: the task, alone"}
    lit = {parts.loop} | _lines(parts.send) | (_lines(parts.start) if record.turn == 1 else set())
    sends = "sends " + " ".join(sent_words(record.messages_sent, record.sent, record.thread is not None))
    notes = {parts.loop: f"turn = {record.turn}", parts.send[0]: sends}
    if record.reply is None:  # the call raised: nothing after it ran, and run_agent has no handler for it
        notes[parts.send[0]] = f"{sends} → {RAISED.get(record.path, RAISED_ELSE)}"
        return lit, notes
    stop_reason = record.reply.get("stop_reason")
    lit |= _lines(parts.append_reply) | _lines(parts.if_answer[:2])
    notes[parts.append_reply[0]] = f"len(messages) = {record.sent + 1}"
    notes[parts.if_answer[0]] = f"stop_reason = {json.dumps(stop_reason)}"
    if record.path == TurnPath.ANSWER:
        lit |= set(range(parts.if_answer[0], parts.if_answer[2] + 1))
        notes[parts.if_answer[1] + 1] = f"returns {json.dumps(clip(result or '', 40), ensure_ascii=False)}"
        return lit, notes
    lit |= _lines(parts.if_other[:2])
    if record.path == TurnPath.STOPPED:
        lit |= set(range(parts.if_other[0], parts.if_other[2] + 1))
        notes[parts.if_other[1] + 1] = f"returns {json.dumps(result or '')}"
        return lit, notes
    calls = record.tool_runs
    lit |= _lines(parts.tools) | _lines(parts.append_results)
    names = ", ".join(run.name for run in calls)
    notes[parts.run_tool] = f"ran {_plural(len(calls), 'call')}" + (f": {clip(names, 40)}" if calls else "")
    notes[parts.append_results[0]] = f"len(messages) = {record.sent + 2}"
    if record.path == TurnPath.LIMIT:
        lit |= _lines(parts.limit)
        notes[parts.limit[0]] = f"turn = max_turns: returns {json.dumps(result or '')}"
    return lit, notes


def asking_lines(parts: LessonParts, record: TurnRecord) -> tuple[set[int], dict[int, str]]:
    """The lines a turn has gone through when its reply is back and the loop has not yet decided (Predict)."""
    lit = {parts.loop} | _lines(parts.send) | _lines(parts.append_reply) | (_lines(parts.start) if record.turn == 1
                                                                             else set())
    sends = "sends " + " ".join(sent_words(record.messages_sent, record.sent, record.thread is not None))
    stop_reason = (record.reply or {}).get("stop_reason")
    return lit, {parts.loop: f"turn = {record.turn}", parts.send[0]: sends,
                 parts.append_reply[0]: f"len(messages) = {record.sent + 1}",
                 parts.if_answer[0]: f"stop_reason = {json.dumps(stop_reason)}: and now?"}


def shown_record(state: RunState, turn: int) -> TurnRecord | None:
    """The record the page shows for `turn`: the turn's own, or at the latest turn a failed attempt after it."""
    if turn == state.turn and state.records and not state.records[-1].counted:
        return state.records[-1]  # the attempt at the next turn that failed is the latest news
    return record_of_turn(state, turn) if turn else None


def lesson_source(record: TurnRecord | None, result: str | None = None, source: str | None = None,
                  asking: bool = False) -> LoopSource:
    """The lesson's loop with the path of `record`'s turn lit (None: before the first turn).

    `result` is what the loop returned when this turn ended the run. `source` replaces the example file's text.
    `asking`: lit only to the reply appended, while the learner predicts what the loop does with it.
    """
    text = source if source is not None else LESSON_FILE.read_text()
    lines = text.splitlines()
    try:
        parts = find_parts(text)
    except (SyntaxError, ValueError):  # an example of another shape is shown plain rather than wrongly lit
        return LoopSource(lines, 1)
    lit, notes = asking_lines(parts, record) if asking and record is not None else path_lines(parts, record, result)
    return LoopSource(lines, 1, frozenset(n - 1 for n in lit), None, {n - 1: note for n, note in notes.items()})
