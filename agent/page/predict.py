"""Predict, then Step: the questions the page asks about a turn, and the verdict on the learner's answer.

After each reply the loop has four moves: return the text, run every call and ask again, stop and say why, or
run the calls and stop at the turn limit. The move that is right is worked out here from the reply alone, by the
lesson's rule; the tests hold it to the path the loop itself took (`TurnRecord.path`), on every script.
Streamlit-free: the Sandbox keeps the answers, the views draw the questions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from agent.loop import StopReason, TurnPath, TurnRecord


class Move(StrEnum):
    """What the loop can do with a reply."""

    ANSWER = "answer"
    RUN_AND_ASK = "run_and_ask"
    STOP = "stop"
    LIMIT = "limit"


class Ask(StrEnum):
    """The two questions of a turn: the loop's move, then (when it asks again) the next request's length."""

    MOVE = "move"
    COUNT = "count"


MOVES = tuple(Move)  # the choices' order, keys 1-4
MOVE_OF_PATH = {TurnPath.ANSWER: Move.ANSWER, TurnPath.TOOL_USE: Move.RUN_AND_ASK, TurnPath.STOPPED: Move.STOP,
                TurnPath.LIMIT: Move.LIMIT}
"""The loop's own path, as the move it is: a turn on any other path got no reply, so there is nothing to predict."""


def calls_in(reply: dict[str, Any]) -> int:
    return sum(1 for block in reply.get("content") or [] if isinstance(block, dict) and block.get("type") == "tool_use")


def right_move(reply: dict[str, Any], turn: int, max_turns: int) -> Move:
    """The lesson's rule, from the reply alone: end_turn answers, anything but tool_use stops, and tool_use runs
    the calls, then asks again unless this was the last turn the limit allows."""
    stop = reply.get("stop_reason")
    if stop == StopReason.END_TURN:
        return Move.ANSWER
    if stop != StopReason.TOOL_USE:
        return Move.STOP
    return Move.LIMIT if turn >= max_turns else Move.RUN_AND_ASK


def move_words(move: Move, reply: dict[str, Any]) -> str:
    """A choice as the learner reads it."""
    calls = calls_in(reply)
    n = f"{calls} calls" if calls > 1 else "call" if calls else "calls it holds (none)"  # never a call it lacks
    return {Move.ANSWER: "Return the text as the answer",
            Move.RUN_AND_ASK: f"Run the {n}, append one message of results, and ask the model again",
            Move.STOP: "Stop and say why, running nothing",
            Move.LIMIT: f"Run the {n}, then stop: the turn limit is reached"}[move]


def move_why(move: Move, reply: dict[str, Any], turn: int, max_turns: int) -> str:
    """One sentence of why the loop made `move` (the right one)."""
    stop = reply.get("stop_reason")
    return {
        Move.ANSWER: "stop_reason is \"end_turn\": the model has finished, so its text blocks, joined, are the answer.",
        Move.RUN_AND_ASK: f"stop_reason is \"tool_use\" and turn {turn} is under the limit of {max_turns}: "
                          + ("the call runs, its result goes back in one user message" if calls_in(reply) == 1 else
                             "every call runs, all their results go back in ONE user message")
                          + ", and the loop goes round.",
        Move.STOP: f"stop_reason is {json.dumps(stop)}, neither \"end_turn\" nor \"tool_use\": the loop runs "
                   "nothing (a cut-off or refused reply may hold a half-written call) and says why it stopped.",
        Move.LIMIT: f"stop_reason is \"tool_use\", so the calls run and their results are appended, but turn {turn} "
                    f"is the last of {max_turns}: the loop gives up and says so.",
    }[move]


# The line of the lesson's run_agent that decides each move (an attribute of lesson_loop.LessonParts).
DECIDING_PART = {Move.ANSWER: "if_answer", Move.STOP: "if_other", Move.RUN_AND_ASK: "if_other",
                 Move.LIMIT: "limit"}
COUNTING_PART = "append_results"
"""The line that makes the next request's count: the one message of results appended after the reply."""


def count_choices(sent: int, calls: int) -> tuple[int, ...]:
    """How long `messages` may be when the loop asks again, as four choices in order: the right one is `sent + 2`
    (the reply, then one message of every result); the others are the mistakes the lesson warns of first."""
    right = sent + 2
    mistakes = [sent + 1 + calls, sent + 1, sent, sent + 3, sent + 4]  # a message per result; no results; nothing
    choices = [right]
    for count in mistakes:
        if count not in choices and len(choices) < 4:
            choices.append(count)
    return tuple(sorted(choices))


@dataclass(frozen=True)
class Question:
    """A question the page asks about the turn just taken."""

    branch: str
    turn: int
    ask: Ask
    choices: tuple[str, ...]
    """The choices, in order (keys 1-4)."""
    right: int
    """Index of the right choice."""
    why: str
    """One sentence of why the right one is right."""
    move: Move
    """The move the loop made (for the count question too: it follows a run-and-ask)."""

    @property
    def deciding_part(self) -> str:
        """The part of the lesson's loop (an attribute of lesson_loop.LessonParts) that settles this answer."""
        return COUNTING_PART if self.ask == Ask.COUNT else DECIDING_PART[self.move]

    @property
    def prompt(self) -> str:
        if self.ask == Ask.MOVE:
            return f"Turn {self.turn}'s reply is back. What does the loop do now?"
        return "The loop asks again. How many messages will the next request's `messages` array hold?"


def questions_for(record: TurnRecord, branch: str, max_turns: int) -> list[Question]:
    """The questions a turn asks, in order: none for a turn that got no reply."""
    reply = record.reply
    if reply is None or record.path not in MOVE_OF_PATH:
        return []
    move = right_move(reply, record.turn, max_turns)
    asked = [Question(branch, record.turn, Ask.MOVE, tuple(move_words(m, reply) for m in MOVES), MOVES.index(move),
                      move_why(move, reply, record.turn, max_turns), move)]
    if move == Move.RUN_AND_ASK:
        counts = count_choices(record.sent, calls_in(reply))
        right = counts.index(record.sent + 2)
        calls = calls_in(reply)
        results = "its result" if calls == 1 else f"all {calls} results"
        why = (f"The request held {record.sent} message{'s' if record.sent != 1 else ''}; the loop appended the "
               f"reply, then one user message holding {results}: {record.sent} + 2 = {record.sent + 2}.")
        asked.append(Question(branch, record.turn, Ask.COUNT, tuple(str(c) for c in counts), right, why, move))
    return asked


@dataclass(frozen=True)
class Verdict:
    """The learner's answer to a question, against what the loop did."""

    question: Question
    picked: int

    @property
    def right(self) -> bool:
        return self.picked == self.question.right

    @property
    def words(self) -> str:
        q = self.question
        said = f"You said: {q.choices[self.picked]}."
        if self.right:
            return f"Right. {said} {q.why}"
        return f"Not this time. {said} The loop did: {q.choices[q.right]}. {q.why}"
