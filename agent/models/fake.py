"""FakeModel: plays the model from a script, and checks every request first.

Each `create` call checks the request against the API's rules
(`agent.api.requests`), refusing a bad one with the API's own words, then answers
with a fresh copy of the script's next reply. A script entry that is an error
raises the exception the `anthropic` SDK raises for that status.

Every thinking block it sends carries a signature, as the API's do: the
script's own, or one derived from the text (`agent.api.signing`). The reply's
content is watched (`agent.api.watched`), so a loop that later edits it in place is
checked whole again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.api import signing
from agent.api.requests import LATEST_VERSION, RequestChecker, RequestRejected, as_message_list, request_body
from agent.api.rules import THREAD_KEEPS, THREAD_NOT_FOUND
from agent.api.watched import Conversation, watched
from agent.scripts import Script

THINKING_TYPES = ("thinking", "redacted_thinking")


class ScriptExhausted(Exception):
    """A request came after the script's last reply."""

    ends_run = True  # no later request can get a reply either: the loop ends the run instead of trying again


class ThreadNotFound(RequestRejected):
    """A `continue` from a reply the FakeModel's thread does not end with: the API's 404 `thread_not_found`, which
    the loop (as the SDK's tool runner) answers by sending the whole array under a new thread."""

    status_code = 404
    type = "not_found_error"
    error_code = "thread_not_found"


def sdk_error(entry: dict[str, Any]) -> Exception:
    """The exception the SDK raises when the API answers with this error (a script's `error` entry)."""
    import anthropic  # only a script that injects an error pays for this import
    import httpx2

    status, kind, message = entry["status"], entry["type"], entry["message"]
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}
    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    response = httpx2.Response(status, request=request, json=body, headers={"request-id": "req_fake"})
    classes = {400: anthropic.BadRequestError, 401: anthropic.AuthenticationError,
               403: anthropic.PermissionDeniedError, 404: anthropic.NotFoundError,
               409: anthropic.ConflictError, 422: anthropic.UnprocessableEntityError,
               429: anthropic.RateLimitError, 529: anthropic.OverloadedError}
    error_class = classes.get(status) or (anthropic.InternalServerError if status >= 500 else anthropic.APIStatusError)
    return error_class(f"Error code: {status} - {body}", response=response, body=body)


def _thinking(content: list[Any]) -> list[Any]:
    return [b for b in content if isinstance(b, dict) and b.get("type") in THINKING_TYPES]


def _other_blocks(content: list[Any]) -> list[Any]:
    return [b for b in content if not (isinstance(b, dict) and b.get("type") in THINKING_TYPES)]


@dataclass
class FakeModel:
    """A model that replays a script and checks each request as the API would."""

    script: Script
    """The replies to play, in order."""
    mode: str = "lesson"
    """`lesson` (strict, the default) or `real-api` (as the service behaves)."""
    calls: int = 0
    """Requests answered so far: the next one gets `script.replies[calls]`."""
    version: str = LATEST_VERSION
    """The `anthropic-version` whose rules apply: the one the installed SDK sends, unless a server was told another."""
    betas: tuple[str, ...] = ()
    """The betas the requests name (`anthropic-beta`): with any, bodies are checked against the beta types."""
    holds_threads: bool = True
    """It takes `thread` (create, continue) as the stand-in does: the loop's thread switch sends it new messages."""
    requests: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """What each request carried besides the messages (system, tools, max_tokens, message count)."""
    script_reply: int | None = field(default=None, init=False)
    """Which reply of the script the last answer was (1 for the first): the loop puts it on the turn's record."""

    def __post_init__(self) -> None:
        self._checker = RequestChecker(self.mode, self.version, betas=self.betas)
        self._thread_id: str | None = None  # the reply a `continue` may resume from
        self._thread_messages: list[Any] = Conversation()  # what the thread holds, up to and with that reply
        self._thread_held = 0
        # Kept as text so every answer is a new object: a loop that mutates a
        # reply can never change what the script plays next time.
        self._frozen = [json.dumps(_signed(entry)) for entry in self.script.replies]
        for entry in self.script.replies:
            self._checker.trust(entry.get("content") or [])

    def create(self, messages: Any, *, system: Any = "", tools: Any = None, max_tokens: Any = 1024,
               **options: Any) -> dict[str, Any]:
        """Check the request, then answer with the next reply of the script.

        Any other keyword is a field of the request body, checked as the API checks it (`temperature` under
        version 2026-10-21: `temperature: Extra inputs are not permitted`).
        """
        messages = as_message_list(messages)
        thread = options.get("thread")
        self.requests.append({"messages": len(messages) if isinstance(messages, list) else None,
                              "system": system, "tools": tools or [], "max_tokens": max_tokens})
        self._checker.require_fields(request_body(options.pop("model", "fake"), max_tokens, system, tools, options))
        thinking = isinstance(options.get("thinking"), dict) and options["thinking"].get("type") in (
            "enabled", "adaptive")
        whole = self._on_thread(messages, thread, system, tools) if isinstance(thread, dict) else messages
        try:
            reply = self._answer(whole, thinking)
        except BaseException:
            if whole is self._thread_messages:
                del whole[self._thread_held:]  # a refused or failed turn: the thread holds what it held before
            raise
        if isinstance(thread, dict):  # hold the conversation under the reply's id, for the next `continue`
            self._thread_messages.append({"role": "assistant", "content": reply["content"]})
            self._thread_held, self._thread_id = len(self._thread_messages), reply["id"]
        return reply

    def use_betas(self, betas: tuple[str, ...]) -> None:
        """Check the next requests against the beta types when they name a beta (their `anthropic-beta` header)."""
        self.betas = tuple(betas)
        self._checker.use_betas(self.betas)

    def answer_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """`create` for a request body as it came over the wire: a field the body lacks is missing, not defaulted."""
        self._checker.require_fields({key: [] if key == "messages" else value for key, value in body.items()})
        self._checker.require_size(body)
        fields = {key: value for key, value in body.items() if key not in ("messages", "system", "tools")}
        return self.create(body["messages"], system=body.get("system", ""), tools=body.get("tools"), **fields)

    def _answer(self, messages: Any, thinking: bool) -> dict[str, Any]:
        """Check the whole conversation, then give the script's next reply (or raise its error)."""
        self._checker.require(messages, thinking=thinking)
        if self.mode == "lesson":
            self._require_thinking_unchanged(messages)
        if self.calls >= len(self._frozen):
            n = len(self._frozen)
            raise ScriptExhausted(
                f"the script {self.script.name!r} has {n} {'reply' if n == 1 else 'replies'} and this is "
                f"request {self.calls + 1}: there is no reply to give")
        entry = json.loads(self._frozen[self.calls])
        self.calls += 1
        if "error" in entry:
            raise sdk_error(entry["error"])
        self.script_reply = self.calls
        reply = {"id": f"msg_fake_{self.calls:04d}", "type": "message", "role": "assistant", "model": "fake",
                 "content": watched(entry["content"]), "stop_reason": entry["stop_reason"]}
        if "usage" in entry:
            reply["usage"] = entry["usage"]
        return reply

    def _on_thread(self, messages: Any, thread: dict[str, Any], system: Any, tools: Any) -> Any:
        """The whole conversation a thread request stands for: the new messages after what the thread holds.

        The FakeModel holds one thread, its run's; `agent.real.threads` holds many for the stand-in.
        """
        if thread.get("type") == "create":
            self._thread_messages, self._thread_held = Conversation(messages if isinstance(messages, list) else []), 0
            return self._thread_messages if isinstance(messages, list) else messages
        if thread.get("type") != "continue":
            return messages  # the schema has said what is wrong with it
        for name, value in (("system", system), ("tools", tools)):
            if value:
                raise RequestRejected(THREAD_KEEPS.format(name=name))
        previous = thread.get("previous_message_id")
        if previous is None or previous != self._thread_id:
            raise ThreadNotFound(THREAD_NOT_FOUND.format(previous=previous))
        if not isinstance(messages, list):
            return messages
        self._thread_messages.extend(messages)
        return self._thread_messages

    def _require_thinking_unchanged(self, messages: list[dict[str, Any]]) -> None:
        # The lesson's rule: the whole reply goes back, so the latest assistant message's thinking blocks must be
        # the ones served, none dropped. The API itself refuses a changed block anywhere (its signature no longer
        # matches) and a dropped one only with thinking on (`agent.api.requests`); the lesson is stricter, in the
        # latest assistant message only, so the check costs the same every turn.
        if self.calls == 0:
            return
        latest = next((i for i in range(len(messages) - 1, -1, -1)
                       if isinstance(messages[i], dict) and messages[i].get("role") == "assistant"), None)
        if latest is None:
            return
        served = json.loads(self._frozen[self.calls - 1])
        if "error" in served:
            return
        if _other_blocks(_blocks_of(messages[latest])) != _other_blocks(served["content"]):
            return  # not the reply it served (one a person wrote into the run): no thinking of its to compare
        sent, original = _thinking(_blocks_of(messages[latest])), _thinking(served["content"])
        if sent != original:
            position = next((j for j, b in enumerate(_blocks_of(messages[latest]))
                             if isinstance(b, dict) and b.get("type") in THINKING_TYPES), 0)
            raise RequestRejected(
                f"messages.{latest}.content.{position}: `thinking` or `redacted_thinking` blocks in the latest "
                "assistant message cannot be modified. These blocks must remain as they were in the original "
                "response.")


def _signed(entry: dict[str, Any]) -> dict[str, Any]:
    """A script entry whose thinking blocks all carry a signature."""
    if not isinstance(entry.get("content"), list):
        return entry
    return {**entry, "content": [signing.signed(block) for block in entry["content"]]}


def _blocks_of(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []
