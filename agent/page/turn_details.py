"""The All controls views' words for one turn, as data: what the Run view says the turn sent and got back, the Loop
view's caption and the Messages view's. Worked out from the `Screen`; the page's views (`views/run_tabs.py`) and the
player's frames (`frames.py`) both draw these, so the two renderings cannot say different things.

A sentence here marks its `code` spans with backticks and its lead with `**`; the rest is plain text, maybe a
stranger's (a model's error), which each renderer shows as text (`safe_text.with_marks`, player.js `withMarks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.loop import RunState, TurnPath
from agent.page import view
from agent.page.lesson_loop import loop_caption, shown_record
from agent.page.safe_text import literal
from agent.page.screen import Screen

CARD_TURNS = 3  # the Messages view draws the latest turns as cards, older ones as one line a message


@dataclass(frozen=True)
class TurnDetails:
    """The Run view's account of the turn looked at: its heading, what was sent and what came back."""

    heading: str
    """`Turn 3`, or `Before the first turn`."""
    failures: str = ""
    """How often the next turn's request has failed so far ("" when it has not)."""
    attempts: list[str] = field(default_factory=list)
    """Each attempt at this turn that failed before it went through, in a sentence."""
    said: str = ""
    """The turn's request: what it held, its size, max_tokens and the tools (or, before the first turn, the state)."""
    came_back: str = ""
    """What came back and what the loop did with it."""
    thread_note: str = ""
    """Over a message thread: what the turn sent against the whole array."""
    cost_line: str = ""
    """The reply's usage and time, when a reply came."""
    usage_total: str = ""
    """The whole run's usage to this turn ("" when no reply reported any)."""


def details_of(screen: Screen) -> TurnDetails:
    run, turn, record = screen.run, screen.turn, screen.record
    tries = screen.next_failures
    failures = f"The request for turn {turn + 1} has failed {tries} time{'s' if tries != 1 else ''} so far." \
        if tries else ""
    usage_total = screen.usage_total or ""
    if record is None:
        said = ("The state before turn 1: `messages` held the task, alone, and turn 1 sent it." if run.records else
                "No turn has gone through yet. Step sends the first request: the task, alone.")
        return TurnDetails("Before the first turn", failures, said=said, usage_total=usage_total)
    attempts = [f"Attempt at turn {turn} failed first: {literal(sentence(str(attempt.error)))} It was not counted; "
                f"{retried}."
                for attempt, retried in zip(screen.attempts, screen.attempt_retries, strict=True)]
    sent = screen.turn_sent
    assert sent is not None and sent.record is record
    said = (f"**Turn {record.turn} {sent.went}** {sent.sent.words} · {sent.sent.bytes:,} bytes · "
            f"max_tokens {sent.request['max_tokens']} · tools: {sent.tools}")
    if record.reply is None:  # the run's outcome says why, in full: not twice
        why = "the model had no reply to give" if record.path == TurnPath.NO_REPLY else "the request was refused"
        came_back = f"**No reply came back**: {why}, and the run ended here (the notice above says why)."
    else:
        stop = literal(record.reply.get("stop_reason"))
        came_back = (f"**The reply came back** with stop_reason `{stop}`, and the loop "
                     f"{view.PATH_WORDS.get(str(record.path), str(record.path))}.")
    return TurnDetails(f"Turn {turn}", failures, attempts, said, came_back, view.thread_note(sent.sent) or "",
                       screen.cost_line or "", usage_total)


def sentence(text: str) -> str:
    """`text` with a full stop after it, unless it ends a sentence of its own."""
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def loop_view_caption(screen: Screen) -> str:
    """The Loop view's caption: which lines of the lesson's loop are lit, and for what."""
    return loop_caption(shown_record(screen.shown, screen.turn))


def messages_caption(shown: RunState, turn: int) -> str:
    """The Messages view's caption: how many messages, which are new, and what the next request sends."""
    threaded = any(r.thread is not None for r in shown.records)  # the model holds the thread: not the whole array
    after = ("This is where the run ended." if shown.done else "The next request sends only the messages after the "
             "last reply, over its message thread." if threaded else "The next request sends this whole array.")
    if turn == 0:
        return f"Before the first turn, `messages` holds one message: the task. {after}"
    return f"{len(shown.messages)} messages after turn {turn}; the ones turn {turn} added are marked. {after}"


def first_card(screen: Screen) -> int:
    """Where the Messages view's cards begin: the messages before are listed a line each."""
    return view.first_card(screen.shown, screen.turn, CARD_TURNS)
