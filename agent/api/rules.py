"""The rules of one message, and between an assistant turn and the user turn after it, in the API's words.

`agent.api.requests` walks a request through these; `agent.api.schema` has already said
what is wrong with a field's type or presence. Wording sources: the rules table
in docs/request-rules.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.api import schema

ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
# Message threads (the beta the SDK's tool runner uses): the FakeModel and the stand-in refuse alike. The phrases come
# from the SDK's own descriptions of these errors (SDK 2.14, `types/thread_*_error.py`); the stand-in adds the
# `error.details.error_code` the SDK recovers by.
THREAD_NOT_FOUND = "thread.previous_message_id: No usable Thread state was found for {previous}"
THREAD_KEEPS = "{name}: a `continue` takes `{name}` from the thread; the thread keeps the `{name}` it was created with"
SYSTEM_ROLE = ('messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
               'not "system" as an input message role.')


@dataclass
class Turn:
    """One role's consecutive messages (one message, unless real-api mode merged several)."""

    role: str
    """`user` or `assistant`."""
    first: int
    """Index of its first message in the request."""
    number: int
    """Its index as the API numbers messages after merging: `first` in lesson mode, which merges nothing."""
    blocks: list[tuple[int, int, Any]] = field(default_factory=list)
    """(message index, block index, block) for every block, in order."""
    offsets: dict[int, int] = field(default_factory=dict)
    """Message index -> how many of the turn's blocks come before that message's."""

    def add(self, i: int, content: Any) -> None:
        """Message i's blocks, as the next part of this turn."""
        self.offsets[i] = len(self.blocks)
        self.blocks.extend((i, j, block) for j, block in enumerate(blocks_of(content)))

    def at(self, i: int, j: int) -> str:
        """The path of message i's block j, numbered as the API numbers the merged message."""
        return f"messages.{self.number}.content.{self.offsets.get(i, 0) + j}"


def blocks_of(content: Any) -> list[Any]:
    """A message's blocks: a plain string is one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return content if isinstance(content, list) else []


_blocks = blocks_of


def message_problems(messages: list[Any], i: int, mode: str, version: str, beta: bool = False,
                     beta_endpoint: bool = False) -> tuple[list[str], str | None]:
    """Problems of message i on its own (against the beta types when `beta`), and its role if it has a usable one.

    `beta_endpoint`: the request came to `?beta=true` with no beta named, which takes `system` messages of text.
    """
    message = messages[i]
    if isinstance(message, dict) and message.get("role") == "system":
        if mode == "real-api" and (beta or beta_endpoint):
            return system_message_problems(messages, i, beta), "system"
        return [SYSTEM_ROLE], None
    if not isinstance(message, dict):  # the API's words (DataDog/dd-trace-py's anthropic_completion_error cassette)
        return [f"messages.{i}: Input does not match the expected shape."], None
    problems = schema.problems(message, schema.message_node(beta), f"messages.{i}")
    if message.get("role") not in ("user", "assistant"):
        return problems, None
    role, content = message["role"], message.get("content")
    if not isinstance(content, str | list):
        return problems, None
    final_assistant = role == "assistant" and i == len(messages) - 1
    if not content and not (final_assistant and mode == "real-api"):
        problems.append(f"messages.{i}: all messages must have non-empty content except for the optional "
                        "final assistant message")
    for j, block in enumerate(_blocks(content)):
        if not isinstance(block, dict):
            continue
        where, kind = f"messages.{i}.content.{j}", block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if block["text"] == "":
                problems.append("messages: text content blocks must be non-empty")
            elif not block["text"].strip() and not (mode == "real-api" and role == "assistant" and not final_assistant):
                problems.append("messages: text content blocks must contain non-whitespace text")
            if version == "2026-10-21" and role == "user" and block.get("citations"):
                # Migration guide to 2026-10-21: non-empty citations on a user's text block are refused.
                problems.append(f"{where}.text.citations: citations on a `text` block in a `user` message are "
                                "not accepted by API version 2026-10-21")
        elif kind == "tool_use" and isinstance(block.get("id"), str) and not ID_PATTERN.match(block["id"]):
            problems.append(f"{where}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
        elif kind == "document" and role == "assistant" and version == "2026-10-21":
            # Migration guide to 2026-10-21: a document block directly in an assistant message is refused.
            problems.append(f"{where}: a `document` block in an `assistant` message is not accepted by API "
                            "version 2026-10-21")
    if mode == "lesson" and role == "assistant":  # real-API mode judges the merged turn (`turn_problems`)
        turn = Turn(role, i, i)
        turn.add(i, content)
        problems.extend(turn_problems(turn))
    return problems, role


def system_message_problems(messages: list[Any], i: int, named_beta: bool) -> list[str]:
    """A `system` message inside `messages` (the beta types; real-API mode): its shape, and where it stands.

    Recorded (pydantic/pydantic-ai's mid-conversation system cassettes, 2026): the API takes one right before an
    assistant message, before another system message, or at the end. One a user message follows is refused (the
    API's words are not recorded; these are the sandbox's). On the beta endpoint with no beta named, the recordings
    show text blocks only (pydantic-ai names a beta for its `tool_addition` blocks).
    """
    message = messages[i]
    problems = schema.problems(message, schema.system_message_node(), f"messages.{i}")
    if not named_beta:
        for j, block in enumerate(_blocks(message.get("content") if isinstance(message, dict) else None)):
            if isinstance(block, dict) and block.get("type") != "text":
                where = f"messages.{i}.content.{j}"
                problems = [p for p in problems if not p.startswith(f"{where}.")]  # the tag is what is wrong
                problems.append(f"{where}: Input tag {block.get('type')!r} found using 'type' "
                                "does not match any of the expected tags: 'text'")
    after = messages[i + 1] if i + 1 < len(messages) else None
    if isinstance(after, dict) and after.get("role") == "user":
        problems.append(f"messages.{i}: a `system` message must come right before an `assistant` message, "
                        "another `system` message, or at the end of `messages`")
    return problems


def turn_problems(turn: Turn) -> list[str]:
    """The rules of one assistant turn's own blocks (real-API mode: the turn as the API merges it)."""
    blocks = [block for _, _, block in turn.blocks]
    if blocks and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "thinking":
        return ["The final block in an assistant message cannot be `thinking`."]
    return []


def server_calls_open(turn: Turn) -> list[Any]:
    """The ids of a turn's server-side calls (`server_tool_use`, `mcp_tool_use`) with no result block after them."""
    open_ids: list[Any] = []
    for _, _, block in turn.blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("server_tool_use", "mcp_tool_use"):
            open_ids.append(block.get("id"))
        elif str(block.get("type")).endswith("_tool_result") and block.get("tool_use_id") in open_ids:
            open_ids.remove(block["tool_use_id"])
    return open_ids


def only_tool_results(turn: Turn) -> bool:
    """Whether a user turn holds nothing but client tool results (a server call before it may still be in flight)."""
    return turn.role == "user" and bool(turn.blocks) and all(
        isinstance(block, dict) and block.get("type") == "tool_result" for _, _, block in turn.blocks)


def server_calls_unanswered(turn: Turn, open_ids: list[Any]) -> str:
    """The API's refusal of server calls left without a result (the words of the recordings issue 34 quotes)."""
    return (f"messages.{turn.number}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(map(str, open_ids))}. Each `tool_use` block must have a corresponding `tool_result` "
            "block in the next message.")


def check_pair(before: Turn | None, turn: Turn, problems: list[str]) -> None:
    """The tool rules between an assistant turn and the user turn after it."""
    if turn.role != "user":
        if before is not None and before.role == "assistant":
            unanswered(before, [], problems)
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
                    f"{turn.at(i, j)}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{tool_use_id}. Each `tool_result` block must have a corresponding `tool_use` block "
                    "in the previous message.")
            answered.append(tool_use_id)
    if asked and before is not None:
        unanswered(before, answered, problems)
        if leading < len(asked) and all(tool_id in answered for tool_id in asked):
            problems.append(
                f"messages.{turn.number}: Did not find {len(asked)} `tool_result` block(s) at the beginning "
                "of this message. Messages following `tool_use` blocks must begin with a matching number "
                "of `tool_result` blocks.")


def unanswered(before: Turn, answered: list[Any], problems: list[str]) -> None:
    """The tool calls of an assistant turn that the next message leaves without a result."""
    missing = [b.get("id") for _, _, b in before.blocks
               if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") not in answered]
    if missing:
        problems.append(
            f"messages.{before.number}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(map(str, missing))}. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message.")


def check_final(last: Turn, mode: str, problems: list[str]) -> None:
    """The rules of the request's last turn: the user's in lesson mode; a clean prefill in real-api mode."""
    if last.role == "user":
        return
    if mode == "lesson":
        problems.append('messages: the final message must use the "user" role')
        return
    unanswered(last, [], problems)  # a prefill cannot leave a call unanswered
    blocks = [b for _, _, b in last.blocks]
    if blocks and isinstance(blocks[-1], dict) and blocks[-1].get("type") == "text" \
            and isinstance(blocks[-1].get("text"), str) and blocks[-1]["text"] != blocks[-1]["text"].rstrip():
        problems.append("messages: final assistant content cannot end with trailing whitespace")
