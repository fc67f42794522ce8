"""The Messages API's request rules, worded as the API words them.

The FakeModel, the stand-in server and `python -m agent check-request` all
check requests here, so a mistake reads the same wherever it is made. Two modes:

- `lesson` (the default): strict, as the lesson states the rules. The first and
  last messages are the user's and the roles take turns.
- `real-api`: as the service behaves. Consecutive messages of one role are
  merged, and a final assistant message is allowed as a prefill.

`RequestChecker` remembers the conversation it last accepted, so a request
that only extends it re-checks just the new messages: a long run stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

MODES = ("lesson", "real-api")

ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
KNOWN_BLOCK_TYPES = frozenset({
    "text", "image", "document", "search_result", "thinking", "redacted_thinking", "tool_use",
    "tool_result", "server_tool_use", "web_search_tool_result",
})


class RequestRejected(Exception):
    """A request the API would refuse with status 400; `str()` is the API's message."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.problems = problems or [message]


@dataclass
class _Turn:
    """One role's consecutive messages (one message, unless real-api mode merged several)."""

    role: str
    first: int
    """Index of its first message in the request."""
    blocks: list[tuple[int, int, Any]] = field(default_factory=list)
    """(message index, block index, block) for every block, in order."""


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):  # a plain string is one text block
        return [{"type": "text", "text": content}] if content else []
    return content if isinstance(content, list) else []


def _message_problems(messages: list[Any], i: int, mode: str) -> tuple[list[str], str | None]:
    """Problems of message i on its own, and its role if it has a usable one."""
    message = messages[i]
    if not isinstance(message, dict):
        return [f"messages.{i}: Input should be a valid dictionary"], None
    role, content = message.get("role"), message.get("content")
    problems = []
    if role == "system":
        problems.append(
            'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
            'not "system" as an input message role.')
        role = None
    elif role not in ("user", "assistant"):
        problems.append(f"messages.{i}.role: Input should be 'user' or 'assistant'")
        role = None
    if not isinstance(content, str | list):
        problems.append(f"messages.{i}.content: Input should be a valid string or a list of content blocks")
        return problems, role
    final_assistant = role == "assistant" and i == len(messages) - 1
    if not content and not (final_assistant and mode == "real-api"):
        problems.append(f"messages.{i}: all messages must have non-empty content except for the optional "
                        "final assistant message")
    for j, block in enumerate(_blocks(content)):
        where = f"messages.{i}.content.{j}"
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in KNOWN_BLOCK_TYPES:
            problems.append(f"{where}.type: Input tag '{kind}' found using 'type' does not match any of "
                            "the expected tags")
        elif kind == "text":
            text = block.get("text")
            if not isinstance(text, str) or text == "":
                problems.append("messages: text content blocks must be non-empty")
            elif not text.strip():
                problems.append("messages: text content blocks must contain non-whitespace text")
        elif kind == "tool_use":
            for name in ("id", "name", "input"):
                if name not in block:
                    problems.append(f"{where}.tool_use.{name}: Field required")
            tool_id = block.get("id")
            if "id" in block and (not isinstance(tool_id, str) or not ID_PATTERN.match(tool_id)):
                problems.append(f"{where}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
        elif kind == "tool_result" and "tool_use_id" not in block:
            problems.append(f"{where}.tool_result.tool_use_id: Field required")
    if role == "assistant":
        blocks = _blocks(content)
        if blocks and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "thinking":
            problems.append("The final block in an assistant message cannot be `thinking`.")
    return problems, role


class RequestChecker:
    """Checks each request of one conversation against the API's rules."""

    def __init__(self, mode: str = "lesson") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self._reset()

    def _reset(self) -> None:
        # What the last accepted request proved: messages before `_settled` pass
        # every rule that a later message cannot change.
        self._settled = 0
        self._first: Any = None
        self._last: Any = None
        self._length = 0
        self._ids: list[tuple[int, str]] = []  # (message index, tool_use id), in order
        self._id_set: set[str] = set()

    def _extends_last(self, messages: list[Any]) -> bool:
        # The loop appends to one list, so the same message objects at both
        # ends of the old request mean the new one carries it unchanged.
        n = self._length
        return 0 < n <= len(messages) and messages[0] is self._first and messages[n - 1] is self._last

    def check(self, messages: Any) -> list[str]:
        """Every problem with this request's messages, in order; empty when the API would accept it."""
        if not isinstance(messages, list):
            self._reset()
            return ["messages: Input should be a valid list"]
        if not self._extends_last(messages):
            self._reset()
        problems = self._check_from(messages, self._settled)
        if problems:
            self._reset()
        else:
            self._first, self._last, self._length = messages[0], messages[-1], len(messages)
        return problems

    def require(self, messages: Any) -> None:
        """Raise RequestRejected with the first problem, as the API answers one 400 at a time."""
        problems = self.check(messages)
        if problems:
            raise RequestRejected(problems[0], problems)

    def _turns(self, messages: list[Any], start: int, problems: list[str]) -> Iterator[_Turn]:
        current: _Turn | None = None
        for i in range(start, len(messages)):
            own, role = _message_problems(messages, i, self.mode)
            problems.extend(own)
            if role is None:
                continue
            if current is not None and current.role == role:
                if self.mode == "lesson":
                    problems.append(f'messages: roles must alternate between "user" and "assistant", but '
                                    f'found multiple "{role}" roles in a row')
                    yield current
                    current = _Turn(role, i)
            else:
                if current is not None:
                    yield current
                current = _Turn(role, i)
            for j, block in enumerate(_blocks(messages[i]["content"])):
                current.blocks.append((i, j, block))
        if current is not None:
            yield current

    def _check_from(self, messages: list[Any], start: int) -> list[str]:
        if not messages:
            return ["messages: at least one message is required"]
        # `start` is where the last accepted request's final turn began: that
        # turn is checked again, since it now pairs with what comes after it.
        while self._ids and self._ids[-1][0] >= start:
            self._id_set.discard(self._ids.pop()[1])
        problems: list[str] = []
        if start == 0 and isinstance(messages[0], dict) and messages[0].get("role") in ("user", "assistant") \
                and messages[0]["role"] != "user":
            problems.append('messages: first message must use the "user" role')
        # The turn before `start` was checked already; it is the context that
        # the first new turn pairs with.
        previous = self._turn_before(messages, start) if start else None
        last: _Turn | None = None
        for turn in self._turns(messages, start, problems):
            self._check_pair(previous, turn, problems)
            for i, j, block in turn.blocks:
                if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    if block["id"] in self._id_set:
                        problems.append(f"messages.{i}.content.{j}: `tool_use` ids must be unique")
                    self._ids.append((i, block["id"]))
                    self._id_set.add(block["id"])
            previous = last = turn
        if last is not None:
            self._check_final(messages, last, problems)
            self._settled = last.first
        return problems

    def _turn_before(self, messages: list[Any], start: int) -> _Turn:
        """The already-checked turn that ends just before `start`."""
        role, first = messages[start - 1]["role"], start - 1
        if self.mode == "real-api":
            while first > 0 and messages[first - 1]["role"] == role:
                first -= 1
        turn = _Turn(role, first)
        for i in range(first, start):
            turn.blocks.extend((i, j, block) for j, block in enumerate(_blocks(messages[i]["content"])))
        return turn

    @staticmethod
    def _check_pair(before: _Turn | None, turn: _Turn, problems: list[str]) -> None:
        """The tool rules between an assistant turn and the user turn after it."""
        if turn.role != "user":
            if before is not None and before.role == "assistant":
                RequestChecker._unanswered(before, [], problems)
            return
        asked = [] if before is None else [
            b.get("id") for _, _, b in before.blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        leading = 0
        for _, _, block in turn.blocks:
            if not (isinstance(block, dict) and block.get("type") == "tool_result"):
                break
            leading += 1
        answered: list[Any] = []  # ids may be any JSON value here, even unhashable ones
        for i, j, block in turn.blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                tool_use_id = block.get("tool_use_id")
                if tool_use_id not in asked:
                    problems.append(
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{tool_use_id}. Each `tool_result` block must have a corresponding `tool_use` block "
                        "in the previous message.")
                answered.append(tool_use_id)
        if asked and before is not None:
            RequestChecker._unanswered(before, answered, problems)
            if leading < len(asked) and all(tool_id in answered for tool_id in asked):
                problems.append(
                    f"messages.{turn.first}: Did not find {len(asked)} `tool_result` block(s) at the beginning "
                    "of this message. Messages following `tool_use` blocks must begin with a matching number "
                    "of `tool_result` blocks.")

    @staticmethod
    def _unanswered(before: _Turn, answered: list[Any], problems: list[str]) -> None:
        missing = [b.get("id") for _, _, b in before.blocks
                   if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") not in answered]
        if missing:
            problems.append(
                f"messages.{before.first}: `tool_use` ids were found without `tool_result` blocks immediately "
                f"after: {', '.join(map(str, missing))}. Each `tool_use` block must have a corresponding "
                "`tool_result` block in the next message.")

    def _check_final(self, messages: list[Any], last: _Turn, problems: list[str]) -> None:
        if last.role == "user":
            return
        if self.mode == "lesson":
            problems.append('messages: the final message must use the "user" role')
            return
        self._unanswered(last, [], problems)  # a prefill cannot leave a call unanswered
        blocks = [b for _, _, b in last.blocks]
        if blocks and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "text" \
                and isinstance(blocks[-1].get("text"), str) and blocks[-1]["text"] != blocks[-1]["text"].rstrip():
            problems.append("messages: final assistant content cannot end with trailing whitespace")


def check_messages(messages: Any, mode: str = "lesson") -> list[str]:
    """Every problem with a messages array, checked from scratch."""
    return RequestChecker(mode).check(messages)


def check_body(body: Any, mode: str = "lesson") -> list[str]:
    """Every problem with a Messages API request body (or a bare messages list)."""
    if isinstance(body, list):
        return check_messages(body, mode)
    if not isinstance(body, dict):
        return ["body: a request is a JSON object with a messages list"]
    problems = []
    if "messages" not in body:
        return ["messages: Field required"]
    if "max_tokens" in body and not (isinstance(body["max_tokens"], int) and body["max_tokens"] >= 1):
        problems.append("max_tokens: Input should be greater than or equal to 1")
    if mode == "real-api":
        if "max_tokens" not in body:
            problems.append("max_tokens: Field required")
        if "model" not in body:
            problems.append("model: Field required")
    return problems + check_messages(body["messages"], mode)
