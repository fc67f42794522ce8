"""The Messages API's request rules, worded as the API words them.

The FakeModel, the stand-in server and `python -m agent check-request` all
check requests here, so a mistake reads the same wherever it is made. Two modes:

- `lesson` (the default): strict, as the lesson states the rules. The first and
  last messages are the user's and the roles take turns.
- `real-api`: as the service behaves. Consecutive messages of one role are
  merged, and a final assistant message is allowed as a prefill.

Every field of the body is checked against the schema the SDK's own types give
(`agent.api.schema`), and the rules between messages (tool ids, roles, thinking) on
top. The API version decides a few rules: 2026-10-21, which SDK 2.x sends,
refuses the sampling fields and two kinds of content that 2023-06-01 takes.

Every request is checked whole, as the API checks it, so a loop that edits a
message it sent before is judged on the edited request. `RequestChecker` keeps
that cheap over a long run: `accepted.AcceptedPrefix` proves that the messages it
accepted last time are unchanged, and then only the last turn is checked again
with the new messages; anything the proof cannot rule out is checked from the start.
"""

from __future__ import annotations

import copy
from typing import Any

from agent.api import limits, schema, signing
from agent.api.accepted import AcceptedPrefix, Proof
from agent.api.rules import (
    ID_PATTERN,
    Turn,
    blocks_of,
    check_final,
    check_pair,
    message_problems,
    only_tool_results,
    server_calls_open,
    server_calls_unanswered,
    turn_problems,
)

MODES = ("lesson", "real-api")
__all__ = ["API_VERSIONS", "BETA_ENDPOINT", "ID_PATTERN", "LATEST_VERSION", "MODES", "OLD_VERSION", "RequestChecker",
           "RequestRejected", "as_message_list", "check_body", "check_messages", "request_body", "thinking_enabled"]
OLD_VERSION = "2023-06-01"
LATEST_VERSION = "2026-10-21"
"""What SDK 2.x sends in `anthropic-version`; the FakeModel and the page check by it."""
API_VERSIONS = (OLD_VERSION, LATEST_VERSION)
BETA_ENDPOINT = "beta=true"
"""Stands in a request's betas for the beta endpoint's query (`/v1/messages?beta=true`, every `client.beta.messages`
call): alone it unlocks only what recordings show the API took there with no beta named (a `system` message)."""


class RequestRejected(Exception):
    """A request the API would refuse with status 400; `str()` is the API's message."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.problems = problems or [message]


def thinking_enabled(body: dict[str, Any]) -> bool:
    """Whether a request body turns extended thinking on (`enabled` or `adaptive`)."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def request_body(model: Any, max_tokens: Any, system: Any, tools: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The body a `messages.create` call sends, its messages left out: `system` and `tools` only when given
    (None or an empty system prompt is not given; 0 or False is, and the schema refuses it)."""
    body = {"model": model, "max_tokens": max_tokens, "messages": [], **options}
    if system is not None and system != "":
        body["system"] = system
    if tools is not None:
        body["tools"] = tools
    return body


def as_message_list(messages: Any) -> Any:
    """Messages as the SDK sends them: any iterable (a tuple, a generator) becomes a JSON array."""
    if isinstance(messages, list) or isinstance(messages, str | bytes | dict):
        return messages
    try:
        return list(messages)
    except Exception:  # not iterable, or an iterator that fails: the schema says what it is not
        return messages


class RequestChecker:
    """Checks each request of one conversation against the API's rules."""

    def __init__(self, mode: str = "lesson", version: str = LATEST_VERSION, *, verify_signatures: bool = True,
                 betas: tuple[str, ...] = ()) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if version not in API_VERSIONS:
            raise ValueError(f"version must be one of {', '.join(API_VERSIONS)}, not {version!r}")
        self.mode, self.version = mode, version
        self.verify_signatures = verify_signatures
        self.betas = tuple(betas)
        """The betas the request names (`anthropic-beta`): with any, the body is checked against the beta types.
        `BETA_ENDPOINT` among them says it came to `?beta=true`."""
        """Whether a thinking block's signature must be the sandbox's (or one a script gave) for its text."""
        self.checked = 0
        """Requests checked so far."""
        self.from_start = 0
        """Of those, how many had to be checked from the first message (the rest: from the last turn on)."""
        self.by_watch = 0
        """Of the rest, how many the run's own watched conversation proved, with no pass over earlier messages."""
        self.trusted: set[tuple[str, str]] = set()
        """(thinking, signature) pairs a script gave: a recorded real run's signatures hold for their text."""
        self._accepted_body: dict[str, Any] | None = None
        self._reset()

    @property
    def named_beta(self) -> bool:
        """Whether the request names a beta in `anthropic-beta` (any one unlocks the beta types)."""
        return any(beta != BETA_ENDPOINT for beta in self.betas)

    def use_betas(self, betas: tuple[str, ...]) -> None:
        """Check the next requests as naming these betas; what was proved under the others is proved again."""
        if tuple(betas) != self.betas:
            self.betas, self._accepted_body = tuple(betas), None
            self._reset()

    def trust(self, blocks: list[Any]) -> None:
        """Accept the signatures these (served) thinking blocks carry, for exactly their text."""
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "thinking":
                text, signature = block.get("thinking"), block.get("signature")
                if isinstance(text, str) and isinstance(signature, str) and signature != signing.sign(text):
                    self.trusted.add((text, signature))

    def _reset(self) -> None:
        # What the last accepted request proved: messages before `_settled` pass every rule that a later
        # message cannot change; `_accepted` is what the next request's messages are proved to start with.
        self._settled = 0
        self._settled_number = 0  # the API's number for the message at `_settled` (real-API mode merges)
        self._final_number = 0  # ... and for the last message of the request checked last
        self._ids: list[tuple[int, str]] = []  # (message index, tool_use id), in order
        self._id_set: set[str] = set()
        self._accepted = AcceptedPrefix()

    def check(self, messages: Any, *, thinking: bool = False) -> list[str]:
        """Every problem with this request's messages, in order; empty when the API would accept it.

        `thinking` says whether the request turns extended thinking on: some thinking rules apply only then.
        """
        messages = as_message_list(messages)
        if not isinstance(messages, list):
            self._reset()
            return ["messages: Input should be a valid list"]
        self.checked += 1
        proof = self._accepted.proof(messages)
        if proof is None:
            self._reset()
            self.from_start += 1
        self.by_watch += proof == Proof.WATCHED
        problems = self._check_from(messages, self._settled)
        problems += self._thinking_problems(messages, thinking)
        if problems:
            self._reset()
        else:
            self._accepted.remember(messages)
        return problems

    def require_fields(self, body: dict[str, Any]) -> None:
        """Raise RequestRejected, in the schema's words, when a body's fields besides its messages are wrong.

        A model in the sandbox (the FakeModel, the ToyModel) checks each request's fields here before its
        messages. A loop sends the same settings every turn, so a body equal to the last accepted one is not
        checked again.
        """
        if body == self._accepted_body:
            return
        problems = schema.body_problems(body, sampling=self.version == OLD_VERSION, beta=self.named_beta)
        if not problems and self.mode == "real-api":
            problems = limits.field_problems(body)
        if problems:
            raise RequestRejected(problems[0], problems)
        self._accepted_body = copy.deepcopy(body)  # a copy: a tools list edited in place is checked again

    def require(self, messages: Any, *, thinking: bool = False) -> None:
        """Raise RequestRejected with the first problem, as the API answers one 400 at a time."""
        problems = self.check(messages, thinking=thinking)
        if problems:
            raise RequestRejected(problems[0], problems)

    def check_body(self, body: Any, endpoint: str = "create") -> list[str]:
        """Every problem with a whole request body for `/v1/messages` (`create`) or `.../count_tokens`."""
        if isinstance(body, list):
            return self.check(body)
        if not isinstance(body, dict):
            return ["body: a request is a JSON object with a messages list"]
        problems = schema.body_problems(body, endpoint, sampling=self.version == OLD_VERSION, beta=self.named_beta)
        if self.mode == "real-api" and not problems:
            problems = limits.field_problems(body) + limits.size_problems(body)
        if "messages" in body:
            problems += self.check(body["messages"], thinking=thinking_enabled(body))
        return problems

    def require_size(self, body: dict[str, Any]) -> None:
        """Raise RequestRejected when a whole body is over the API's size limit (real-API mode)."""
        problems = limits.size_problems(body) if self.mode == "real-api" else []
        if problems:
            raise RequestRejected(problems[0], problems)

    def _signature_ok(self, block: dict[str, Any]) -> bool:
        text, signature = block.get("thinking"), block.get("signature")
        if not self.verify_signatures or not isinstance(text, str) or not isinstance(signature, str):
            return True  # the schema has said what is wrong with it
        if signature == signing.sign(text) or (text, signature) in self.trusted:
            return True
        # The API's own signatures cannot be judged here: real-API mode refuses only a malformed one, or one of
        # the sandbox's own on a text it was not given for.
        return self.mode == "real-api" and signing.well_formed(signature) and not signing.issued_here(signature)

    def _check_from(self, messages: list[Any], start: int) -> list[str]:
        if not messages:
            return ["messages: at least one message is required"]
        # `start` is where the last accepted request's final turn began: that
        # turn is checked again, since it now pairs with what comes after it.
        while self._ids and self._ids[-1][0] >= start:
            self._id_set.discard(self._ids.pop()[1])
        self._accepted.forget_from(start)
        problems: list[str] = []
        if start == 0 and self.mode == "lesson" and isinstance(messages[0], dict) \
                and messages[0].get("role") == "assistant":
            problems.append('messages: first message must use the "user" role')
        previous = self._turn_before(messages, start) if start else None
        last: Turn | None = None
        # Real-API mode: a server call left without its result is taken while only client tool results follow it
        # (its result is still in flight; measured by pydantic/pydantic-ai's test_unpaired_native_tool_calls).
        in_flight: tuple[Turn, list[Any]] | None = None
        if previous is not None and previous.role == "assistant" and self.mode == "real-api":
            in_flight = (previous, server_calls_open(previous)) if server_calls_open(previous) else None
        for turn in self._turns(messages, start, problems):
            check_pair(previous, turn, problems)
            if self.mode == "real-api":
                if in_flight is not None and not only_tool_results(turn):
                    problems.append(server_calls_unanswered(*in_flight))
                    in_flight = None
                if turn.role == "assistant":
                    problems.extend(turn_problems(turn))
                    open_ids = server_calls_open(turn)
                    in_flight = (turn, open_ids) if open_ids else None
            turn_ids: set[str] = set()  # real-API mode: an id is unique within the message the API merges
            for i, j, block in turn.blocks:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind == "tool_use" and isinstance(block.get("id"), str):
                    if block["id"] in (self._id_set if self.mode == "lesson" else turn_ids):
                        problems.append(f"{turn.at(i, j)}: `tool_use` ids must be unique")
                    turn_ids.add(block["id"])
                    self._ids.append((i, block["id"]))
                    self._id_set.add(block["id"])
                elif kind == "thinking" and not self._signature_ok(block):
                    problems.append(f"{turn.at(i, j)}: Invalid `signature` in `thinking` block")
            previous = last = turn
        if last is not None:
            check_final(last, self.mode, problems)
            self._settled, self._settled_number = last.first, last.number
            self._final_number = last.number
        return problems

    def _turns(self, messages: list[Any], start: int, problems: list[str]) -> Any:
        current: Turn | None = None
        number = self._settled_number if start else 0  # real-API mode: the next turn's number once merged
        known = self._accepted.length  # the last accepted request's length: its user messages passed on their own
        for i in range(start, len(messages)):
            role: str | None
            if i < known and messages[i].get("role") == "user":  # no rule of one user message hangs on its place
                role = "user"
            else:
                own, role = message_problems(messages, i, self.mode, self.version, self.named_beta,
                                             BETA_ENDPOINT in self.betas)
                problems.extend(own)
            if role == "system":  # real-API mode, beta types: it merges with none and the API counts it
                number += 1
                if current is not None:
                    yield current
                current = None
                continue
            if role is None:
                if self.mode == "real-api":  # a message the schema refused keeps its own number and merges with none
                    number += 1
                    if current is not None:
                        yield current
                    current = None
                continue
            if current is not None and current.role == role:
                if self.mode == "lesson":
                    problems.append(f'messages: roles must alternate between "user" and "assistant", but '
                                    f'found multiple "{role}" roles in a row')
                    yield current
                    current = Turn(role, i, i)
            else:
                if current is not None:
                    yield current
                current = Turn(role, i, i if self.mode == "lesson" else number)
                number += 1
            current.add(i, messages[i]["content"])
        if current is not None:
            yield current

    def _turn_before(self, messages: list[Any], start: int) -> Turn:
        """The already-checked turn that ends just before `start`."""
        # `.get`: these messages passed before, but a loop may have changed a dict of its own in place since.
        role, first = messages[start - 1].get("role"), start - 1
        if self.mode == "real-api":
            while first > 0 and messages[first - 1].get("role") == role:
                first -= 1
        turn = Turn(role, first, first if self.mode == "lesson" else self._settled_number - 1)
        for i in range(first, start):
            turn.add(i, messages[i].get("content"))
        return turn

    def _turn_start(self, messages: list[Any], end: int) -> int:
        """The first message of the turn that message `end` belongs to: real-API mode merges a role's run."""
        first, role = end, messages[end].get("role") if isinstance(messages[end], dict) else None
        while self.mode == "real-api" and first > 0 and isinstance(messages[first - 1], dict) \
                and messages[first - 1].get("role") == role:
            first -= 1
        return first

    @staticmethod
    def _blocks_at(messages: list[Any], i: int) -> list[Any]:
        message = messages[i]
        return blocks_of(message.get("content")) if isinstance(message, dict) else []

    def _thinking_problems(self, messages: list[Any], enabled: bool) -> list[str]:
        """The thinking rules that hang on whether the request turns thinking on (constant time: the tail only).

        With thinking on, the assistant message before the last set of tool results must start with its thinking
        block; with it off, a final (prefill) assistant message may hold no thinking. Wording from public reports:
        n8n-io/n8n#22550 and tailcallhq/forgecode#1853.

        What the API does with thinking in earlier turns (the extended-thinking guide, "Preserving thinking blocks",
        docs.claude.com/en/docs/build-with-claude/extended-thinking; and the context-windows guide): during tool use
        the last assistant turn's thinking must come back complete and unmodified; thinking of earlier turns may be
        left out, and the API drops it from the context itself. So dropping is refused only here, with thinking on,
        for the current tool-use cycle; a changed block is refused anywhere by its signature (`_signature_ok`).
        The newer "preserved thinking" prefix check (a block is invalid when anything before it changed) is not
        modelled.
        """
        if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "system":
            end = len(messages)  # system messages at the end (beta types) stand before the reply: judge what precedes
            while end and isinstance(messages[end - 1], dict) and messages[end - 1].get("role") == "system":
                end -= 1
            messages = messages[:end]
        if not messages or not all(isinstance(m, dict) for m in messages[-2:]):
            return []
        # Real-API mode judges the merged turns, numbered as the API numbers them; lesson mode has one message a turn.
        last_first = self._turn_start(messages, len(messages) - 1)
        number = self._final_number if self.mode == "real-api" else len(messages) - 1
        role = messages[-1].get("role")
        blocks = [b for i in range(last_first, len(messages)) for b in self._blocks_at(messages, i)]
        if enabled and role == "user" and last_first >= 1 and blocks \
                and isinstance(blocks[0], dict) and blocks[0].get("type") == "tool_result":
            before_first = self._turn_start(messages, last_first - 1)
            before = [b for i in range(before_first, last_first) for b in self._blocks_at(messages, i)]
            first = before[0] if before else None
            found = first.get("type") if isinstance(first, dict) else "text"
            if found not in ("thinking", "redacted_thinking"):
                return [f"messages.{number - 1}.content.0.type: Expected `thinking` or `redacted_thinking`, "
                        f"but found `{found}`. When `thinking` is enabled, a final `assistant` message must start "
                        "with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` "
                        "blocks). We recommend you include thinking blocks from previous turns. To avoid this "
                        "requirement, disable `thinking`. Please consult our documentation at "
                        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"]
        if not enabled and self.mode == "real-api" and role == "assistant":
            for j, block in enumerate(blocks):
                if isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking"):
                    return [f"messages.{number}.content.{j}: When thinking is disabled, an `assistant` "
                            "message in the final position cannot contain `thinking`. To use thinking blocks, "
                            "enable `thinking` in your request."]
        return []


def check_messages(messages: Any, mode: str = "lesson", version: str = LATEST_VERSION) -> list[str]:
    """Every problem with a messages array, checked from scratch."""
    return RequestChecker(mode, version).check(messages)


def check_body(body: Any, mode: str = "lesson", version: str = LATEST_VERSION, endpoint: str = "create",
               betas: tuple[str, ...] = ()) -> list[str]:
    """Every problem with a Messages API request body (or a bare messages list), checked from scratch; `betas`
    are the betas it names (its `anthropic-beta` header)."""
    return RequestChecker(mode, version, betas=betas).check_body(body, endpoint)
