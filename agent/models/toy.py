"""ToyModel: a handful of patterns that read the typed task, offline. Not a language model.

It answers a task with the built-in tools the way a model would, so a person
without a key can type a task and watch the loop work on it. What it reads in
a task is `agent.models.toy_tasks`, the jobs it does `agent.models.toy_jobs`:
sums and differences (`add`, one call a turn for a chain, several calls in one
reply for separate sums; "subtract 4 from 10" is 10 - 4), word counts
(`word_count`, of a quoted text, of a file's content or of the answer of the
part before), the note files (`list_files` to list or count them, `read_file`,
a file named by a word as "my todo list" found among those listed, and which
of them mentions a word, the files read in one reply) and shouting (`upper`,
of a text, of a file's content or of the answer of the part before); a task of
several parts gets every part answered, and a question about the files it has
no pattern for ("how many lines?") is declined, never answered with a file.
What it cannot read it declines politely, in a few declines that quote a few
words of the task at most, and the answer then says what it can do: it never
says a result it has not worked out with the tools.

Its replies have the Messages API's exact shape (ids, usage, `stop_reason`).
One estimate, four characters a token, gives both the usage it reports and
where `max_tokens` cuts a reply off; a reply cut inside a tool call ends in that
call, its input half written, as the API's does. Every request goes through
the FakeModel's checks first (`RequestChecker.require_fields`, then the
messages). It decides from the conversation alone, so a run of it records into
a script like any other run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from agent.api.requests import RequestChecker, as_message_list, request_body, thinking_enabled
from agent.models.toy_jobs import CAN_DO, CANNOT, Call, Job, OfAnswer, Said, Step, Sum, joined, short
from agent.models.toy_tasks import jobs
from agent.summary import result_text

__all__ = ["CAN_DO", "EXAMPLE_TASKS", "TOY_MODEL_NAME", "ToyModel", "estimate_tokens"]
TOY_MODEL_NAME = "toy-patterns"
# Tasks that show each pattern, for a person to try.
EXAMPLE_TASKS = ["What is 2 + 3?", "What is 10 - 3 + 2.5?", "What is 2 + 3 and 10 + 20?",
                 "Count the words in 'a b c d'", "Count the words in todo.txt", "What is in my notes?",
                 "Which file mentions Omid?",  # short enough for its pill at 900 px; the lesson asks it longer
                 "Shout good morning", "Write me a poem"]
CHARACTERS_A_TOKEN = 4
DECLINES_SHOWN = 5
"""The most declines one answer names; the rest are said together, so a long task's answer stays short."""
FAILURE_SAID = 160
"""The most characters of a failed tool's error the answer repeats."""
NOT_MINE = ("I cannot go on from here: the tool calls in this conversation are not the ones I would have made "
            "(a reply was written or changed by hand), so I cannot tell what their results answer.")


def estimate_tokens(text: str) -> int:
    """About how many tokens a text takes: one for every four characters, rounded up."""
    return -(-len(text) // CHARACTERS_A_TOKEN)


@dataclass
class _Turn:
    """What the toy says in one reply: tool calls or, when there are none, the answer."""

    calls: list[Call]
    text: str = ""
    """Text before the calls, or the answer when there are no calls."""


@dataclass
class _Made:
    """One tool call of the conversation so far, with the result the loop sent back."""

    tool: str | None
    """The call's name as the conversation holds it (a hand-written reply may leave it out)."""
    input: Any
    result: str
    is_error: bool


def _task(messages: list[dict[str, Any]]) -> str:
    content: Any = messages[0].get("content")  # a string or a list of blocks: the request was checked
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def _calls_so_far(messages: list[dict[str, Any]]) -> list[list[_Made]]:
    """Each assistant turn's tool calls so far, in order, with their results (read by id from the next message)."""
    turns = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            continue
        following = messages[i + 1].get("content") if i + 1 < len(messages) else None
        results = {b.get("tool_use_id"): b for b in following if isinstance(b, dict)} \
            if isinstance(following, list) else {}
        made = [_Made(b.get("name"), b.get("input"), result_text(results.get(b.get("id"), {}).get("content")),
                      bool(results.get(b.get("id"), {}).get("is_error")))
                for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        if made:
            turns.append(made)
    return turns


def _plan(work: list[Job], got: list[list[list[str]]], tools: set[str]) -> list[tuple[int, list[Call], str]]:
    """Each job's next step: (job, its calls, its words); a job that lacks a tool ends with saying so."""
    steps: list[tuple[int, list[Call], str]] = []
    waiting: set[int] = set()
    for j, job in enumerate(work):
        if isinstance(job, OfAnswer):  # it waits until the parts whose answer it takes have answered
            if any(steps[i][1] or i in waiting for i in job.of):
                waiting.add(j)
                step = Step(waiting=True)
            else:
                step = job.after([(work[i], steps[i][2]) for i in job.of], got[j])
        else:
            step = job.step(got[j])
        missing = next((c.tool for c in step.calls if c.tool not in tools), None)
        if missing is not None:
            work[j] = Said(job.without(missing))
            step = work[j].step([])
        steps.append((j, step.calls, step.text))
    return steps


def _declines(work: list[Job], sentences: list[str]) -> list[bool]:
    """Which sentences of the answer decline their part: a decline, a tool this agent lacks, a result unread."""
    return [isinstance(job, Said) or text.startswith(CANNOT) for job, text in zip(work, sentences, strict=True)]


def _answer(work: list[Job], sentences: list[str]) -> str:
    """The answer from every job's sentence; with a decline in it, at most a few declines and what the toy can do."""
    declined = _declines(work, sentences)
    if not any(declined):
        return joined(work, sentences)
    kept, shown = [], 0
    for job, text, decline in zip(work, sentences, declined, strict=True):
        shown += decline
        if not decline or shown <= DECLINES_SHOWN:
            kept.append((job, text))
    if shown > DECLINES_SHOWN:  # a long task's declines stay short enough to end well within max_tokens
        kept.append((Said(""), f"{CANNOT} read the other parts either."))
    return joined([job for job, _ in kept], [text for _, text in kept]) + "\n" + CAN_DO


def _next_turn(task: str, history: list[list[_Made]], tools: set[str]) -> _Turn:
    """The toy's next reply, from the task and the calls it made so far with their results."""
    failed = next((made.result for turn in history for made in turn if made.is_error), None)
    if failed is not None:
        return _Turn([], f"A tool call failed ({short(failed, FAILURE_SAID)}), so I stop here.")
    work = jobs(task)
    if not work:
        return _Turn([], CAN_DO)
    got: list[list[list[str]]] = [[] for _ in work]
    for made in history:  # the turns so far, replayed: each must be the calls the toy would have made
        replayed = [(j, calls) for j, calls, _ in _plan(work, got, tools) if calls]
        if [(c.tool, c.input) for _, calls in replayed for c in calls] != [(m.tool, m.input) for m in made]:
            return _Turn([], NOT_MINE + "\n" + CAN_DO)
        results = iter(made)
        for j, calls in replayed:
            got[j].append([next(results).result for _ in calls])
    steps = _plan(work, got, tools)
    calls = [c for _, job_calls, _ in steps for c in job_calls]
    if calls:
        calling = [(work[j], text) for j, job_calls, text in steps if job_calls]
        if len(calling) == 1:
            return _Turn(calls, calling[0][1])
        each = "sum" if all(isinstance(job, Sum) for job, _ in calling) else "part"
        return _Turn(calls, "" if history else f"I will work out each {each}.")
    return _Turn([], _answer(work, [text for _, _, text in steps]))


def _generated(block: dict[str, Any]) -> str:
    """The characters a model writes for a block: a text's text, a tool call's input as JSON."""
    return block["text"] if block["type"] == "text" else json.dumps(block["input"], ensure_ascii=False)


def _input_so_far(tool_input: dict[str, Any], characters: int) -> dict[str, Any]:
    """A tool input as far as `characters` of its JSON got: whole fields, then a string cut short (a number
    cut short is left out, as a partial JSON parser leaves it)."""
    kept: dict[str, Any] = {}
    written = 1  # the opening brace
    for key, value in tool_input.items():
        field = f"{', ' if kept else ''}{json.dumps(key, ensure_ascii=False)}: "
        whole = len(field) + len(json.dumps(value, ensure_ascii=False))
        if written + whole <= characters:
            kept[key] = value
            written += whole
            continue
        room = characters - written - len(field) - 1  # the string's opening quote
        if isinstance(value, str) and room > 0:
            kept[key] = value[:room]
        break
    return kept


def cut_off(content: list[dict[str, Any]], max_tokens: int) -> list[dict[str, Any]]:
    """The content as far as `max_tokens` tokens got: a text cut short, or a tool call with its input cut."""
    room = max_tokens * CHARACTERS_A_TOKEN
    kept = []
    for block in content:
        if room <= 0:
            break
        written = _generated(block)
        if block["type"] == "text":
            kept.append({**block, "text": written[:room]})
        else:
            kept.append({**block, "input": _input_so_far(block["input"], room)})
        room -= len(written)
    return kept


@dataclass
class ToyModel:
    """Answers a typed task with a few patterns and the built-in tools; replies in the Messages API's shape."""

    mode: str = "lesson"
    """The request rules it checks with: `lesson` (strict) or `real-api`."""

    def __post_init__(self) -> None:
        self._checker = RequestChecker(self.mode)

    def create(self, messages: Any, *, system: Any = "", tools: Any = None, max_tokens: Any = 1024,
               **options: Any) -> dict[str, Any]:
        """Check the request as the FakeModel does, then reply to the conversation so far.

        Any other keyword is a field of the request body, checked as the API checks it.
        """
        messages = as_message_list(messages)
        self._checker.require_fields(request_body(options.pop("model", TOY_MODEL_NAME), max_tokens, system, tools,
                                                  options))
        self._checker.require(messages, thinking=thinking_enabled(options))
        # Only a name that is text can match a call's: a tool with none is one the toy cannot call either way.
        names = {name for t in tools or [] if isinstance(t, dict) and isinstance(name := t.get("name"), str)}
        turn = _next_turn(_task(messages), _calls_so_far(messages), names)
        number = sum(1 for m in messages if m.get("role") == "assistant") + 1
        # Ids are worked out from the conversation, so the same run gives the same ids every time.
        seed = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        content += [{"type": "tool_use", "id": f"toolu_toy{number:02d}{i}{seed[:16]}", "name": call.tool,
                     "input": call.input} for i, call in enumerate(turn.calls, start=1)]
        stop_reason = "tool_use" if turn.calls else "end_turn"
        output_tokens = estimate_tokens("".join(map(_generated, content)))
        if output_tokens > max_tokens:  # as a real model does: cut off where the tokens ran out
            content, stop_reason, output_tokens = cut_off(content, max_tokens), "max_tokens", max_tokens
        request = {"system": system, "tools": tools or [], "messages": messages}
        input_tokens = estimate_tokens(json.dumps(request, ensure_ascii=False))
        return {"id": f"msg_toy{number:02d}{seed[:20]}", "type": "message", "role": "assistant",
                "model": TOY_MODEL_NAME, "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}
