"""FakeModel: plays the model from a script, and checks every request first.

Each `create` call checks the request against the API's rules
(`agent.requests`), refusing a bad one with the API's own words, then answers
with a fresh copy of the script's next reply. A script entry that is an error
raises the exception the `anthropic` SDK raises for that status.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.requests import RequestChecker, RequestRejected
from agent.scripts import Script

THINKING_TYPES = ("thinking", "redacted_thinking")


class ScriptExhausted(Exception):
    """A request came after the script's last reply."""

    ends_run = True  # no later request can get a reply either: the loop ends the run instead of trying again


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
    requests: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """What each request carried besides the messages (system, tools, max_tokens, message count)."""

    def __post_init__(self) -> None:
        self._checker = RequestChecker(self.mode)
        # Kept as text so every answer is a new object: a loop that mutates a
        # reply can never change what the script plays next time.
        self._frozen = [json.dumps(entry) for entry in self.script.replies]

    def create(self, messages: list[dict[str, Any]], *, system: str = "", tools: list[dict[str, Any]] | None = None,
               max_tokens: int = 1024, **_: Any) -> dict[str, Any]:
        """Check the request, then answer with the next reply of the script."""
        self.requests.append({"messages": len(messages) if isinstance(messages, list) else None,
                              "system": system, "tools": tools or [], "max_tokens": max_tokens})
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise RequestRejected("max_tokens: Input should be greater than or equal to 1")
        self._checker.require(messages)
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
        reply = {"id": f"msg_fake_{self.calls:04d}", "type": "message", "role": "assistant", "model": "fake",
                 "content": entry["content"], "stop_reason": entry["stop_reason"]}
        if "usage" in entry:
            reply["usage"] = entry["usage"]
        return reply

    def _require_thinking_unchanged(self, messages: list[dict[str, Any]]) -> None:
        # As the API does, only the latest assistant message is compared with
        # the reply it came from, so the check costs the same every turn.
        if self.calls == 0:
            return
        latest = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "assistant"), None)
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


def _blocks_of(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []
