"""What the sandbox page shows, worked out once a rerun from the Sandbox: one value the views draw.

Every counter, heading and caption that more than one place could say comes from here, so two places on
screen read the same field and cannot disagree. Streamlit-free; `views/` draws it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agent.branches import MAIN, MarkKind
from agent.loop import RunState, TurnRecord
from agent.models.hand_model import written_by_hand
from agent.models.toy import TOY_MODEL_NAME
from agent.page import view
from agent.page.branches_view import console_notes
from agent.page.lesson_loop import LESSON_FILE, LessonParts, find_parts
from agent.page.lesson_path import PATH, Scenario
from agent.page.names import Layout, ModelKind
from agent.page.predict import Ask, Question, Verdict
from agent.page.sandbox import Sandbox
from agent.real import DEFAULT_MODEL
from agent.summary import console_lines

SETTINGS_CHANGED_MID_RUN = ("The settings changed since this run started. Reset starts a run with them; Step "
                            "carries on with the old ones.")
SETTINGS_CHANGED_AFTER_END = ("The settings changed since this run finished. Step (or Run to end) starts a new run "
                              "with them.")


@dataclass(frozen=True)
class TurnSent:
    """What the turn shown sent, as its heading says it."""

    record: TurnRecord
    request: dict[str, Any]
    """The whole request body, the model named first."""
    sent: view.Sent
    went: str
    """`sent`, or, for a request the check refused before it left, words that say so."""
    tools: str
    """The tools the request carried, in words (a thread's `continue` carries none: the thread keeps them)."""

    @property
    def line(self) -> str:
        return (f"**Turn {self.record.turn} {self.went}** {self.sent.words} · {self.sent.bytes:,} bytes · "
                f"max_tokens {self.request['max_tokens']} · tools: {self.tools}")


@dataclass(frozen=True)
class DecidingLine:
    """The line of the lesson's run_agent that settled an answer, and what it did there."""

    did: str
    """"decided it" (the move's branch) or "made the count" (the append that gives the next request's length)."""
    number: int
    code: str

    @property
    def line(self) -> str:
        return f"line {self.number}: {self.code}"


@dataclass(frozen=True)
class Screen:
    """The page as it stands after this rerun's actions."""

    run: RunState
    """The run on screen (the current branch's)."""
    turn: int
    """The turn looked at."""
    shown: RunState
    """The run as it stood after `turn`."""
    status: str
    """The status line under the Step row."""
    progress: float
    outcome: view.Outcome | None
    settings_note: str | None
    """Why the controls and the run's settings differ, when they do."""
    looking_back: str | None
    """The caption under the slider while it looks back."""
    model_name: str
    """The model the run's requests name."""
    priced_model: str
    """The model whose prices the usage lines use ("" for a script or the toy: nobody pays)."""
    turn_sent: TurnSent | None
    """What the turn looked at sent; None before the first turn."""
    record: TurnRecord | None
    """The record of the turn looked at; None before the first turn."""
    added: range
    """The messages the turn looked at added (its reply, and its tool results if any), as indices of `messages`."""
    attempts: list[TurnRecord]
    """The attempts at the turn looked at that failed before it was taken."""
    next_failures: int
    """How often the next turn's request has failed so far, while the latest turn is looked at (0 otherwise)."""
    console: list[str]
    """The console of the run as it stood after `turn`, with what was injected, edited or written by hand."""
    usage_total: str | None
    """The whole run's usage (to `turn`) in words; None when no reply reported any."""
    layout: Layout
    cost_line: str | None
    """The turn's usage and time, in words that fit the model (None: no reply came)."""
    attempt_retries: tuple[str, ...]
    """For each of `attempts`, how the failed attempt was tried again."""
    recorded_source: str
    """Where the run's replies came from, in words (what a recorded script says about itself)."""
    edited_replies: int
    """Replies of the branch on screen edited in the panel."""
    asking: TurnRecord | None
    """The turn whose reply is shown while its questions are open: the page shows the run as it stood before it."""
    asking_sent: TurnSent | None
    """What the asking turn sent."""
    question: Question | None
    """The question open (Predict, then Step)."""
    verdicts: list[Verdict]
    """The latest turn's answered questions, each against what the loop did."""
    deciding_lines: tuple[DecidingLine | None, ...]
    """For each verdict, in order, the line of the lesson's run_agent that settled it (None: the file unread)."""
    score: tuple[int, int]
    """Right answers and questions answered this session."""
    scenario: tuple[int, Scenario] | None
    """The run's place on the lesson's path and what to watch, for a script on it."""
    next_scenario: Scenario | None
    """The scenario after it (or the path's first, off the path); None at the path's end."""


def priced_model_of(box: Sandbox, name: str) -> str:
    """The model whose prices the usage lines use: a real run's sent to Anthropic's API only (a Base URL elsewhere,
    such as the free local stand-in, charges what its owner says, not Anthropic's price)."""
    host = urlsplit(box.base_url.strip()).hostname or ""
    anthropic = not box.base_url.strip() or host == "anthropic.com" or host.endswith(".anthropic.com")
    return name if box.run_model == ModelKind.REAL and anthropic else ""


def model_name_of(box: Sandbox) -> str:
    return {ModelKind.REAL: box.real_model_name or DEFAULT_MODEL, ModelKind.TOY: TOY_MODEL_NAME}.get(
        box.run_model, "fake")


def cost_line(box: Sandbox, record: TurnRecord | None, priced_model: str) -> str | None:
    """A turn's usage and time, in words that fit the model: a script's reply may carry no usage, and takes no time."""
    if record is None or record.reply is None:
        return None
    if written_by_hand(record.reply):
        return "Written by hand: a reply you write has no usage, and no model took time over it"
    mark = box.tree.branch.mark_of(record)
    cut = mark is not None and mark.kind == MarkKind.INJECTED and mark.fault == "cut_off"  # its usage predates the cut
    if box.run_model == ModelKind.SCRIPT:
        usage = view.reply_usage_line(record.usage, injected_cut=cut) if record.usage else \
            "the script gives this reply no usage"
        return f"Usage: {usage} · a script answers at once"
    usage = view.reply_usage_line(record.usage, priced_model, cut)
    if box.run_model == ModelKind.TOY:
        return f"Usage: {usage} (the toy's estimate: about four characters a token)"
    return f"Usage: {usage} · the model took {record.model_seconds * 1000:.0f} ms"


def retried(box: Sandbox, attempt: TurnRecord) -> str:
    """How a failed attempt was tried again: an injected 529 inside its own Step (agent.models.faults)."""
    mark = box.tree.branch.mark_of(attempt)
    return "the same click sent the retry at once" if mark is not None and mark.fault == "overloaded" else \
        "the next Step tried again"


def recorded_source(box: Sandbox, model_name: str) -> str:
    return {ModelKind.SCRIPT: f"the script “{box.script_models[MAIN].script.title}”", ModelKind.TOY: "the toy model",
            ModelKind.REAL: f"the real model {model_name}"}[box.run_model]


def turn_sent(run: RunState, record: TurnRecord, model_name: str) -> TurnSent:
    request = view.request_sent(run, record, model_name)
    sent = view.sent_by_turn(run, record, model_name)
    tools = "kept by the thread" if "tools" not in request and sent.thread == "continue" else \
        ", ".join(tool["name"] for tool in request.get("tools", [])) or "none"
    went = "was refused before sending: it held" if record.refused_unsent else "sent"
    return TurnSent(record, request, sent, went, tools)


@functools.cache
def lesson_parts() -> tuple[str, LessonParts | None]:
    """The lesson's loop and its parts, read once a process: the file is the package's own."""
    source = LESSON_FILE.read_text()
    try:
        return source, find_parts(source)
    except (SyntaxError, ValueError):
        return source, None


def deciding_line(verdict: Verdict) -> DecidingLine | None:
    """The line of the lesson's loop that settled the verdict: the move's branch, or the append making the count."""
    source, parts = lesson_parts()
    if parts is None:
        return None
    span = getattr(parts, verdict.question.deciding_part)
    number = span[0] if isinstance(span, tuple) else span
    did = "made the count" if verdict.question.ask == Ask.COUNT else "decided it"
    return DecidingLine(did, number, source.splitlines()[number - 1].strip())


def screen_of(box: Sandbox) -> Screen:
    run = box.run
    question = box.open_question()
    asking = run.records[-1] if question is not None else None
    turn = run.turn - 1 if asking is not None else box.turn_shown  # the turn's outcome waits for the answer
    name = model_name_of(box)
    settings_note = None
    if box.settings_changed:
        settings_note = SETTINGS_CHANGED_AFTER_END if run.done else SETTINGS_CHANGED_MID_RUN
    looking_back = (f"Looking back at turn {turn} of {run.turn}. Step and Run to end carry on from turn "
                    f"{run.turn}.") if turn < run.turn and asking is None else None
    record = view.record_of_turn(run, turn)
    shown = view.snapshot(run, turn)
    priced = priced_model_of(box, name)
    marks = box.tree.branch.marks
    attempts = view.failed_attempts(run, turn)
    console = console_lines(shown, returned=False, notes=console_notes(box.tree.branch) if marks else None,
                            readable=True)
    verdicts = box.verdicts()
    place = box.scenario
    following = 0 if place is None else place + 1
    status = view.run_summary(run) if asking is None else \
        f"turn {asking.turn} of {run.max_turns} · the reply is back: what does the loop do now?"
    return Screen(run=run, turn=turn, shown=shown, status=status,
                  progress=min(view.turns_taken(shown if asking else run) / run.max_turns, 1.0),
                  outcome=view.outcome(run) if asking is None else None,
                  settings_note=settings_note, looking_back=looking_back, model_name=name,
                  priced_model=priced, turn_sent=turn_sent(run, record, name) if record is not None else None,
                  record=record, added=view.added_by_turn(run, turn), attempts=attempts,
                  attempt_retries=tuple(retried(box, attempt) for attempt in attempts),
                  cost_line=cost_line(box, record, priced),
                  recorded_source=recorded_source(box, name),
                  edited_replies=sum(mark.kind == MarkKind.EDITED for mark in marks.values()),
                  next_failures=len(view.failed_attempts(run, turn + 1)) if turn == run.turn and run.error else 0,
                  console=console, usage_total=view.run_usage_line(shown, priced), layout=box.layout,
                  asking=asking, question=question, verdicts=verdicts,
                  asking_sent=turn_sent(run, asking, name) if asking is not None else None,
                  deciding_lines=tuple(deciding_line(v) for v in verdicts), score=box.score,
                  scenario=(place, PATH[place]) if place is not None else None,
                  next_scenario=PATH[following] if following < len(PATH) else None)
