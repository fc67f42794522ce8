"""ToyModel: a handful of patterns that read the typed task, offline. Not a language model.

It answers a task with the built-in tools the way a model would, so a person
without a key can type a task and watch the loop work on it:

- arithmetic ("What is 2 + 3 + 4?", "add 7 and 5"): `add`, one call a turn for
  a chain of numbers, or several calls in one reply for separate sums
  ("2 + 3 and 10 + 20");
- "how many words ...": `word_count`;
- a question about files or notes: `list_files`, then `read_file`;
- "shout ..." or "upper ...": `upper`;
- anything else: a polite `end_turn` that says what it can do.

Its replies have the Messages API's exact shape (ids, usage estimates,
`stop_reason`), keep to `max_tokens`, and every request is checked with the
API's rules first, as the FakeModel checks it. It decides from the
conversation alone, so a run of it records into a script like any other run.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from agent.requests import RequestChecker, RequestRejected
from agent.summary import result_text

TOY_MODEL_NAME = "toy-patterns"
CAN_DO = ("I am a toy model: a few patterns, not a language model. I can add numbers (\"What is 2 + 3?\"), "
          "count words (\"How many words are in 'a b c'?\"), read the note files (\"What is in my notes?\") "
          "and shout (\"Shout hello\").")
# Tasks that show each pattern, for a person to try.
EXAMPLE_TASKS = ["What is 2 + 3?", "What is 1 + 2 + 3 + 4?", "What is 2 + 3 and 10 + 20?",
                 "Count the words in 'a b c d'", "What is in my notes?", "Shout good morning",
                 "Write me a poem"]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ADDING = re.compile(r"\+|\b(add|plus|sum|total)\b", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“'‘](.+?)[\"”'’](?=\W|$)")
_FILE_NAME = re.compile(r"\b[\w-]+\.txt\b")


def estimate_tokens(value: Any) -> int:
    """About how many tokens a value's JSON takes: one for every four characters, at least one."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def _sums(task: str) -> list[list[int | float]]:
    """The sums a task asks for: each part of it (split at `and`, `,` and `;`) with two or more numbers."""
    if not _ADDING.search(task):
        return []
    numbers = [_number(n) for n in _NUMBER.findall(task)]
    parts = [[_number(n) for n in _NUMBER.findall(part)] for part in re.split(r"\band\b|[,;]", task)]
    parts = [p for p in parts if len(p) >= 2]
    if len(parts) >= 2 and sum(len(p) for p in parts) == len(numbers):
        return parts  # separate sums: asked for together, in one reply
    return [numbers] if len(numbers) >= 2 else []


def _text_after(task: str, *words: str) -> str:
    """The quoted text of a task, or what follows the first of `words` in it."""
    quoted = _QUOTED.search(task)
    if quoted:
        return quoted.group(1)
    for word in words:
        found = re.search(rf"\b{word}\b[:\s]*(.*)", task, re.IGNORECASE | re.DOTALL)
        if found and found.group(1).strip():
            return found.group(1).strip().rstrip("?.!")
    return task


@dataclass
class _Turn:
    """What the toy says in one reply: tool calls (name, input) or, when there are none, text."""

    calls: list[tuple[str, dict[str, Any]]]
    """The tool calls of the reply, in order."""
    text: str = ""
    """Text before the calls, or the answer when there are no calls."""


def _results_so_far(messages: list[dict[str, Any]]) -> list[list[tuple[str, bool]]]:
    """For each tool-using turn so far, its results' texts and whether each is an error, in order."""
    found = []
    for message in messages[1:]:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            found.append([(result_text(b.get("content")), bool(b.get("is_error")))
                          for b in content if isinstance(b, dict) and b.get("type") == "tool_result"])
    return found


def _plain(value: str) -> str:
    return value.removesuffix(".0") if re.fullmatch(r"-?\d+\.0", value) else value


def _next_turn(task: str, results: list[list[tuple[str, bool]]], tools: set[str]) -> _Turn:
    """The toy's next reply, from the task and the results its earlier calls got back."""
    failed = next((text for turn in results for text, error in turn if error), None)
    if failed is not None:
        return _Turn([], f"A tool call failed ({failed}), so I stop here.")
    done = len(results)
    sums = _sums(task)
    lowered = task.lower()
    if sums:
        return _adding(sums, results, tools)
    if "how many words" in lowered or "count the words" in lowered or "word count" in lowered:
        if done:
            return _Turn([], f"That text has {results[0][0][0]} words.")
        return _call_or_say("word_count", {"text": _text_after(task, "in", "of")}, tools, "I will count them.")
    if re.search(r"\b(files?|notes?)\b", lowered) or _FILE_NAME.search(task):
        return _reading(task, results, tools)
    if re.search(r"\b(shout|upper|uppercase|capitals)\b", lowered):
        if done:
            return _Turn([], results[0][0][0])
        return _call_or_say("upper", {"text": _text_after(task, "shout", "upper", "uppercase")}, tools, "")
    return _Turn([], CAN_DO)


def _call_or_say(tool: str, tool_input: dict[str, Any], tools: set[str], before: str) -> _Turn:
    if tool not in tools:
        return _Turn([], f"I would use the `{tool}` tool for this, but this agent was not given it.")
    return _Turn([(tool, tool_input)], before)


def _adding(sums: list[list[int | float]], results: list[list[tuple[str, bool]]], tools: set[str]) -> _Turn:
    if "add" not in tools:
        return _call_or_say("add", {}, tools, "")
    if len(sums) > 1:  # separate sums: every call in one reply, then the answer
        if not results:
            return _Turn([("add", {"a": a, "b": b}) for a, b in sums], "I will work out each sum.")
        said = [f"{' + '.join(map(str, s))} is {_plain(text)}" for s, (text, _) in zip(sums, results[0], strict=False)]
        return _Turn([], "; ".join(said) + ".")
    numbers = sums[0]
    if len(results) < len(numbers) - 1:  # a chain: one call a turn, each on the last result
        so_far = numbers[0] if not results else json.loads(_plain(results[-1][0][0]))
        return _Turn([("add", {"a": so_far, "b": numbers[len(results) + 1]})], "")
    return _Turn([], f"{' + '.join(map(str, numbers))} is {_plain(results[-1][0][0])}.")


def _reading(task: str, results: list[list[tuple[str, bool]]], tools: set[str]) -> _Turn:
    named = _FILE_NAME.search(task)
    if not results:
        if named:
            return _call_or_say("read_file", {"path": named.group(0)}, tools, "")
        return _call_or_say("list_files", {}, tools, "Let me see which files there are.")
    if named or len(results) >= 2:
        return _Turn([], f"It says:\n{results[-1][0][0]}")
    files = results[0][0][0].split()
    if not files:
        return _Turn([], "There are no files.")
    return _call_or_say("read_file", {"path": files[0]}, tools, f"There are {len(files)} files; I read {files[0]}.")


@dataclass
class ToyModel:
    """Answers a typed task with a few patterns and the built-in tools; replies in the Messages API's shape."""

    mode: str = "lesson"
    """The request rules it checks with: `lesson` (strict) or `real-api`."""

    def __post_init__(self) -> None:
        self._checker = RequestChecker(self.mode)

    def create(self, messages: list[dict[str, Any]], *, system: str = "", tools: list[dict[str, Any]] | None = None,
               max_tokens: int = 1024, **_: Any) -> dict[str, Any]:
        """Check the request as the API would, then reply to the conversation so far."""
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 0:
            raise RequestRejected("max_tokens: Input should be greater than or equal to 0")
        self._checker.require(messages)
        task = messages[0]["content"] if isinstance(messages[0].get("content"), str) else ""
        names = {t.get("name") for t in tools or [] if isinstance(t, dict)}
        turn = _next_turn(task, _results_so_far(messages), names)
        number = sum(1 for m in messages if m.get("role") == "assistant") + 1
        # Ids are worked out from the conversation, so the same run gives the same ids every time.
        seed = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        content += [{"type": "tool_use", "id": f"toolu_toy{number:02d}{i}{seed[:16]}", "name": name, "input": given}
                    for i, (name, given) in enumerate(turn.calls, start=1)]
        stop_reason = "tool_use" if turn.calls else "end_turn"
        output_tokens = estimate_tokens(content)
        if output_tokens > max_tokens:  # as a real model does: cut off, and a cut-off call is left out
            words = (turn.text or json.dumps(turn.calls[0][1])).split()
            # max_tokens 0 generates nothing (the API then only warms its prompt cache)
            content = [{"type": "text", "text": " ".join(words[:max_tokens]) or "…"}] if max_tokens else []
            stop_reason, output_tokens = "max_tokens", max_tokens
        input_tokens = estimate_tokens({"system": system, "tools": tools or [], "messages": messages})
        return {"id": f"msg_toy{number:02d}{seed[:20]}", "type": "message", "role": "assistant",
                "model": TOY_MODEL_NAME, "content": content, "stop_reason": stop_reason, "stop_sequence": None,
                "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}
