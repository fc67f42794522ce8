"""A run as data: the screen of every Step, worked out at once, for the player to draw in the browser.

A script run and a toy run are pure functions of their settings and the Steps taken, so every screen they can
show is known before the learner asks for it. `frames_of` steps a copy of the Sandbox to the run's end and keeps,
after each Step, what the page's `Screen` says: the status line, the console, the turn's card, the lesson's loop
lit, the run graph's DOT and the questions Predict asks. The player (`agent/page/player/`) draws them; nothing
here knows of a browser or of Streamlit.

The messages of a run are only ever appended, so they are kept once, as data and as cards: a frame names how many
of them it holds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from agent.loop import RunState, TurnPath, TurnRecord
from agent.openai_format import DIFFERENCES, DIFFERENCES_HEAD, side_by_side
from agent.page import view
from agent.page.graph import loop_diagram, run_graph
from agent.page.html_cards import CHAT_HEAD_ROW, chat_finish_row, chat_pair_rows, message_html, source_html
from agent.page.lesson_loop import lesson_source, shown_record
from agent.page.lesson_path import PATH
from agent.page.names import ModelKind
from agent.page.predict import Verdict, questions_for
from agent.page.safe_text import literal
from agent.page.sandbox import Sandbox
from agent.page.screen import Screen, deciding_line, screen_of
from agent.page.shared_work import Outcomes
from agent.page.terms import first_terms
from agent.page.turn_details import TurnDetails, details_of, first_card, loop_view_caption, messages_caption
from agent.summary import message_line

GRAPH_TURNS = 5
"""The run graph draws this many latest turns and folds earlier ones into one node, here and on the page's views:
the browser lays the graph out again on every Step, at a cost that grows with its size (bench/page_step.py)."""
FRAMES_LIMIT = 200
"""Steps a player's run holds at most: a turn limit of 500 is the page's, not a lesson's to replay in a browser."""
FRAMES_KEPT = 256  # runs' frames kept for the process, as JSON: a class on a few scenarios shares them
FRAMES_SENT: Outcomes[bytes] = Outcomes(FRAMES_KEPT)
TOO_LONG = b""  # kept for a run too long to play, so it is not stepped to its end again


class NotPlayable(ValueError):
    """A run the player cannot hold: its next replies are not known in advance (a real model's, one changed by
    hand), or it is too long. The message says which, in words."""


@dataclass(frozen=True)
class Question:
    """One question Predict asks about a turn, with the verdict for each choice already said."""

    prompt: str
    choices: list[str]
    right: int
    verdicts: list[str]
    """What the page says for each choice picked, in the choices' order."""
    did: str = ""
    """What the line of run_agent that settles the answer does: "decided it" or "made the count"."""
    line: str = ""
    """That line, `line N: code`."""


@dataclass(frozen=True)
class Card:
    """The turn's card: what was sent, what came back, what the loop appended and why."""

    heading: str
    sent: str
    """What the request held, in words ("" before the first turn)."""
    came_back: str
    """The reply's stop_reason, or why no reply came, in words."""
    terms: list[str]
    """The beginner's terms this reply brings for the first time, each in a line."""
    reply: int | None
    """Index of the reply in the run's messages; None when no reply came."""
    appended: str
    """What the loop did with the reply and how long `messages` is now ("" while the question is open)."""
    results: list[int]
    """Indices of the messages the loop appended after the reply (the tool results)."""


@dataclass(frozen=True)
class Frame:
    """The screen after one Step (the first frame: before any)."""

    turn: int
    status: str
    progress: float
    outcome: dict[str, str] | None
    """`kind`, `headline`, `note`: how the run ended, once it has."""
    console: list[str]
    card: Card
    loop: str
    """The lesson's run_agent as HTML, the lines this turn went through lit and the values beside them."""
    graph: str
    """The run graph's DOT, with the dashed node of where the next Step goes."""
    graph_back: str
    """The run graph's DOT as it is looked back at (no next Step from there)."""
    messages: int
    """How many of the run's messages `messages` holds after this Step."""
    new: list[int]
    """The range of messages this turn added, [start, stop)."""
    request: dict[str, Any] | None
    """The request this turn sent, its `messages` given as a [start, stop) range of the run's messages."""
    reply: dict[str, Any] | None
    questions: list[Question] = field(default_factory=list)
    """What Predict asks about this turn, in order; none for a turn that got no reply."""
    asking_status: str = ""
    asking_loop: str = ""
    """The loop lit only as far as the reply appended, while the question is open."""
    asking_terms: list[str] = field(default_factory=list)
    """The terms said while the question is open: none that would give the answer away."""
    details: TurnDetails = field(default_factory=lambda: TurnDetails(""))
    """All controls' Run view of this turn: what it sent and what came back."""
    loop_caption: str = ""
    """All controls' Loop view: which lines are lit, and for what."""
    path: str = ""
    """The way round the loop's cycle this turn took ("" before the first turn): the Loop view's diagram."""
    messages_caption: str = ""
    first_card: int = 1
    """All controls' Messages view draws the messages from here as cards, those before a line each."""
    chat_finish: str = ""
    """Chat Completions beside the messages: the row of the latest reply's `stop_reason` and `finish_reason`."""
    graph_whole: tuple[int, list[str]] = (0, [])
    """The run graph with every turn (All controls' Every turn): how many first lines of `Frames.graph_lines` it
    shares, and its own lines after them."""
    graph_whole_back: tuple[int, list[str]] = (0, [])
    """The same graph as it is looked back at."""


@dataclass(frozen=True)
class Frames:
    """A whole run, Step by Step, and what every frame shares."""

    title: str
    about: str
    model: str
    """`Script` or `Toy`."""
    model_words: str
    """What the model is, in a line for a newcomer."""
    task: str
    max_turns: int
    messages: list[dict[str, Any]]
    """The run's messages as sent (plain dicts in the API's shape): each frame holds a prefix of them."""
    cards: list[str]
    """Each message as a card (escaped HTML)."""
    lines: list[str]
    """Each message in one line: the messages before the latest turns are listed so, as the page's Messages view
    lists them."""
    frames: list[Frame]
    predict: bool = False
    """Whether the player asks before each turn is shown, from the start."""
    scenario: str = ""
    """The run's place on the lesson's path, for a built-in script on it ("" off the path)."""
    watch: str = ""
    """What to watch in this scenario."""
    diagrams: dict[str, str] = field(default_factory=dict)
    """The loop's cycle as DOT, for each `path` a frame names, lit along it."""
    start_looked_back: str = ""
    """The Run view's words for the state before turn 1, looked back at once the run has gone on."""
    graph_lines: list[str] = field(default_factory=list)
    """The last frame's run graph with every turn, line by line. A Step only adds to the graph's bottom, so each
    frame's is most of these lines and a few of its own: a long run's frames do not hold every whole graph."""
    chat_differences: list[tuple[str, str, str]] = field(default_factory=list)
    """Chat Completions beside the messages: the table of what differs, its head first, then each difference as
    this API has it and as that one does (Markdown)."""
    chat_rows: list[str] = field(default_factory=list)
    """Chat Completions beside the messages: the head's row, then the system prompt's (if any) and each
    message's, unmarked (a frame holds those of its messages)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        # `</` never appears raw, so the JSON can sit inside a <script> element of a page as it is.
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


MODEL_WORDS = {
    ModelKind.SCRIPT: "The model here is a script: replies written in advance and played back one per request, so "
                      "the run is the same every time.",
    ModelKind.TOY: "The model here is the toy: a few fixed patterns that read the task (sums, word counts, the note "
                   "files, shouting). It is not a language model; it shows the loop working on the task.",
}


def _request(run: RunState, record: TurnRecord, model_name: str) -> dict[str, Any]:
    """The request as sent, its messages named by their place in the run when they are a slice of it."""
    request = view.request_sent(run, record, model_name)
    sent = request.get("messages")
    start = record.sent_from
    if isinstance(sent, list) and run.messages[start:start + len(sent)] == sent:
        request = {**request, "messages": [start, start + len(sent)]}
    return request


def card_of(screen: Screen) -> Card:
    """The turn's card, for the player's frames and for the page's own Start here (a run it steps itself): while
    the turn's questions are open, the asking turn's, its terms none that would give the answer away."""
    run = screen.run
    record = screen.asking or screen.record
    if record is None:
        return Card("Before the first turn", "", "`messages` holds one message, the task. Step sends it to the "
                    "model: that is turn 1.", [], None, "", [])
    said = screen.asking_sent or screen.turn_sent
    sent = said.sent.words if said is not None else ""
    if record.refused_unsent:
        sent += " (refused before sending: the request broke a rule of the API)"
    if record.reply is None:
        why = "the model had no reply to give" if record.path == TurnPath.NO_REPLY else \
            f"the request failed: {literal(record.error)}"
        return Card(f"Turn {record.turn}", sent, f"No reply came back: {why}.", [], None, "", [])
    came_back = f"a reply with stop_reason \"{literal(record.reply.get('stop_reason'))}\""
    if screen.asking is not None:  # what the loop does with the reply is the question's answer
        return Card(f"Turn {record.turn}", sent, came_back, first_terms(run, record, asking=True), record.sent, "", [])
    added = screen.added
    appended = (f"Then the loop {view.PATH_WORDS.get(str(record.path), str(record.path))}: `messages` now holds "
                f"{added.stop}.")
    return Card(f"Turn {record.turn}", sent, came_back, first_terms(run, record), record.sent, appended,
                [i for i in added if i > record.sent])


def _questions(record: TurnRecord | None, max_turns: int) -> list[Question]:
    if record is None:
        return []
    questions = []
    for q in questions_for(record, "", max_turns):
        settled = deciding_line(Verdict(q, q.right))
        questions.append(Question(q.prompt, list(q.choices), q.right,
                                  [Verdict(q, i).words for i in range(len(q.choices))],
                                  settled.did if settled else "", settled.line if settled else ""))
    return questions


def _frame(screen: Screen) -> Frame:
    run = screen.run
    record = screen.record
    lit = shown_record(run, screen.turn)
    ended = lit is not None and run.done and lit is run.records[-1]
    outcome = asdict(screen.outcome) if screen.outcome is not None else None
    questions = _questions(record if record is not None and record.reply is not None else None, run.max_turns)
    asking = record if record is not None and questions else None
    return Frame(
        turn=screen.turn, status=screen.status, progress=screen.progress, outcome=outcome,
        console=list(screen.console), card=card_of(screen),
        loop=source_html(lesson_source(lit, run.result if ended else None)),
        graph=run_graph(run, GRAPH_TURNS, next_step=not run.done).source,
        graph_back=run_graph(run, GRAPH_TURNS, next_step=False).source,
        messages=len(run.messages), new=[r.start, r.stop] if (r := screen.added) else [0, 0],
        request=_request(run, record, screen.model_name) if record is not None else None,
        reply=record.reply if record is not None else None,
        questions=questions,
        asking_status=(f"turn {asking.turn} of {run.max_turns} · the reply is back: what does the loop do now?"
                       if asking else ""),
        asking_loop=source_html(lesson_source(asking, asking=True)) if asking else "",
        asking_terms=first_terms(run, asking, asking=True) if asking else [],
        details=details_of(screen), loop_caption=loop_view_caption(screen),
        path=str(lit.path) if lit is not None else "", messages_caption=messages_caption(screen.shown, screen.turn),
        first_card=first_card(screen), chat_finish=chat_finish_row(view.latest_stop_reason(run)))


def _whole_graphs(run: RunState) -> tuple[str, str]:
    """The run graph with every turn: with where the next Step goes, and as looked back at."""
    return run_graph(run, None, next_step=not run.done).source, run_graph(run, None, next_step=False).source


def _sharing(lines: list[str], dot: str) -> tuple[int, list[str]]:
    """`dot` as the count of `lines` it begins with and its own lines after them."""
    own = dot.split("\n")
    kept = 0
    while kept < min(len(lines), len(own)) and own[kept] == lines[kept]:
        kept += 1
    return kept, own[kept:]


def playable(box: Sandbox) -> str | None:
    """Why the run on screen cannot be played in the browser; None when it can."""
    if box.run_model == ModelKind.REAL:
        return "A real model's next replies are not known until it is asked."
    if box.from_file:
        return "A run tree loaded from a file is played on the page, turn by turn."
    if len(box.tree.branches) > 1 or box.tree.branch.marks:
        return "A run with forks, edits, faults or replies by hand is played on the page, turn by turn."
    return None


def frames_of(box: Sandbox) -> Frames:
    """Every Step of the run on screen from its start to its end, as the page would show each.

    The Sandbox is not changed: a copy with the run's own settings steps from the start."""
    if (why := playable(box)) is not None:
        raise NotPlayable(why)
    copy = Sandbox(builtin=box.builtin, uploaded=dict(box.uploaded), model=box.run_model, script=box.script)
    run = box.run
    copy.settings.task, copy.settings.system = run.task, run.system
    copy.settings.tools, copy.settings.max_turns = list(run.tool_names), run.max_turns
    copy.settings.max_tokens, copy.settings.threads = run.max_tokens, run.threads
    copy.start_afresh()
    frames = [_frame(screen_of(copy))]
    wholes = [_whole_graphs(copy.run)]
    while not copy.run.done:
        if len(frames) > FRAMES_LIMIT:
            raise NotPlayable(f"The run goes on past {FRAMES_LIMIT} Steps: lower its turn limit to play it here.")
        copy.step()
        frames.append(_frame(screen_of(copy)))
        wholes.append(_whole_graphs(copy.run))
    lines = wholes[-1][0].split("\n")
    frames = [replace(frame, graph_whole=_sharing(lines, whole), graph_whole_back=_sharing(lines, back))
              for frame, (whole, back) in zip(frames, wholes, strict=True)]
    looked_back = ""
    if copy.run.records:
        copy.look_at(0)
        looked_back = details_of(screen_of(copy)).said
    script = box.picked_script
    place = box.scenario
    scenario = f"Scenario {place + 1} of {len(PATH)}: {script.title}." if place is not None else ""
    return Frames(title=script.title if box.run_model == ModelKind.SCRIPT else "The toy model",
                  about=script.about if box.run_model == ModelKind.SCRIPT else "",
                  model=box.run_model.value, model_words=MODEL_WORDS[box.run_model], task=run.task,
                  max_turns=run.max_turns, messages=copy.run.messages,
                  cards=[message_html(m, i) for i, m in enumerate(copy.run.messages)],
                  lines=[f"[{i}] {message_line(m)}" for i, m in enumerate(copy.run.messages)], frames=frames,
                  predict=box.predicting, scenario=scenario,
                  watch=PATH[place].watch if place is not None else "",
                  diagrams={path: loop_diagram(TurnPath(path) if path else None).source
                            for path in sorted({frame.path for frame in frames})},
                  start_looked_back=looked_back, graph_lines=lines, chat_differences=[DIFFERENCES_HEAD, *DIFFERENCES],
                  chat_rows=[CHAT_HEAD_ROW, *chat_pair_rows(side_by_side(copy.run.messages, run.system), range(0))])


def start_of(box: Sandbox) -> dict[str, Any]:
    """Where the Sandbox's run stands, in the frames' terms: the player on the page starts there."""
    run = box.run
    questions = box.questions()
    return {"at": len(run.records),  # every Step adds one record: a turn, or an attempt at one that failed
            "look": box.looked_at if box.looked_at is not None and box.looked_at < run.turn else None,
            "asked": bool(questions),
            "picks": [v.picked for v in box.verdicts()],
            "score": list(box.score)}


def frames_key(box: Sandbox) -> str:
    """What a run's frames are a function of: its model, script and settings, and whether it predicts. A script
    from a file is named by what it holds: two learners' files of the same name are two scripts."""
    run = box.run
    script = box.script if box.script in box.builtin else box.picked_script.to_dict()
    said = [box.run_model.value, script, run.task, run.system, run.tool_names, run.max_turns,
            run.max_tokens, run.threads, box.predicting, box.scenario]
    return hashlib.sha256(json.dumps(said, default=str).encode()).hexdigest()


def frames_sent(box: Sandbox, key: str) -> bytes | None:
    """The frames of the run on screen as the page sends them (JSON, with their `key`), worked out once for the
    process: every learner on the same scenario shares them. None: a run too long to play in the browser."""

    def make() -> bytes:
        try:
            frames = frames_of(box)
        except NotPlayable:
            return TOO_LONG
        return json.dumps({**frames.to_dict(), "key": key}, ensure_ascii=False, separators=(",", ":")).encode()

    return FRAMES_SENT.made(key, make) or None
