"""Message threads in the stand-in: the server holds the conversation, a request sends only the new turn.

The beta `message-threads-2026-08-12` (SDK 2.14, `anthropic/lib/threads/`): a
request with `thread: {"type": "create"}` asks the server to hold the whole
conversation under the response's `id`; `thread: {"type": "continue",
"previous_message_id": "msg_..."}` resumes from there with only the new
messages, and takes `system` and `tools` from the thread, refusing them if the
request repeats them. The SDK's tool runner uses threads by default, and
recovers from the rejections said here in the shapes it reads
(`error.details.error_code`): `thread_not_found` (a 404) and
`thread_already_continued` / `thread_continue_in_flight` (400s) replay the whole
history under a new thread; `thread_unsupported_request` (a 400 naming what is
unsupported) makes it go on without one.

The stand-in keeps threads in memory only, bounded in number and in age; they
survive nothing, not even a restart of `serve`. A thread that was dropped is a
`thread_not_found`, which the SDK recovers from by sending the whole history.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.api.rules import THREAD_KEEPS, THREAD_NOT_FOUND

MAX_THREADS = 1000
MAX_AGE_SECONDS = 3600.0
CREATE_ONLY_FIELDS = ("system", "tools")
# Request fields a thread cannot carry (SDK 2.14, `ThreadUnsupportedFeatureName`); the stand-in names these two.
UNSUPPORTED_ON_A_THREAD = ("cache_control", "thinking")


class ThreadRejected(Exception):
    """A thread request the API refuses: its status, error type, message and `error.details.error_code`."""

    def __init__(self, status: int, kind: str, message: str, error_code: str, **details: Any) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.details = {"error_code": error_code, **details}


@dataclass
class _Stored:
    """One response held for a later `continue`: what it added to the conversation, and the thread it belongs to."""

    before: _Stored | None
    """The response this one continued from; None for the one a `create` made."""
    added: list[Any]
    """The messages this turn added: those the request sent, then the reply."""
    fields: dict[str, Any]
    """The thread's `system` and `tools`, as the `create` gave them."""
    stored_at: float
    """When it was held (monotonic seconds), for the age bound."""
    continued: bool = False
    """A response is continued once; a second `continue` from it is `thread_already_continued`."""
    in_flight: bool = False
    """A `continue` from it is being answered now."""

    def conversation(self) -> list[Any]:
        """Every message of the thread up to and including this response."""
        chain: list[Any] = []
        node: _Stored | None = self
        while node is not None:
            chain.append(node.added)
            node = node.before
        return [message for added in reversed(chain) for message in added]


class ThreadStore:
    """The threads a stand-in holds, bounded: at most `limit` responses, none older than `max_age` seconds."""

    def __init__(self, limit: int = MAX_THREADS, max_age: float = MAX_AGE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.max_age, self._clock = limit, max_age, clock
        self._held: OrderedDict[str, _Stored] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._held)

    def open(self, body: dict[str, Any]) -> tuple[dict[str, Any], _Stored | None]:
        """The whole request a thread request stands for, and the response it continues (None for `create`).

        Call `close` after answering it, with the reply's id on success. Raises ThreadRejected.
        """
        thread = body.get("thread")
        whole = {key: value for key, value in body.items() if key != "thread"}
        if not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
            return body, None  # no thread, or a malformed one the schema will name
        unsupported = [name for name in UNSUPPORTED_ON_A_THREAD if name in body and body[name] is not None
                       and not (name == "thinking" and isinstance(body[name], dict)
                                and body[name].get("type") == "disabled")]
        if unsupported:
            raise ThreadRejected(400, "invalid_request_error",
                                 f"thread: a thread cannot be used with {', '.join(unsupported)}; send the whole "
                                 "conversation without `thread`", "thread_unsupported_request", unsupported=unsupported)
        if thread["type"] == "create":
            return whole, None
        previous = thread.get("previous_message_id")
        if not isinstance(previous, str):
            return body, None
        for name in CREATE_ONLY_FIELDS:
            if name in body:
                raise ThreadRejected(400, "invalid_request_error", THREAD_KEEPS.format(name=name),
                                     "thread_unsupported_request")
        with self._lock:
            self._expire()
            stored = self._held.get(previous)
            if stored is None:
                raise ThreadRejected(404, "not_found_error", THREAD_NOT_FOUND.format(previous=previous),
                                     "thread_not_found")
            if stored.continued:
                raise ThreadRejected(400, "invalid_request_error",
                                     f"thread.previous_message_id: the response {previous} has already been "
                                     "continued, and each response can be continued only once",
                                     "thread_already_continued")
            if stored.in_flight:
                raise ThreadRejected(400, "invalid_request_error",
                                     f"thread.previous_message_id: another request is still continuing from "
                                     f"{previous}", "thread_continue_in_flight")
            stored.in_flight = True
        messages = body.get("messages")
        new = list(messages) if isinstance(messages, list | tuple) else messages
        whole = {**whole, **stored.fields, "messages": stored.conversation() + new if isinstance(new, list) else new}
        return whole, stored

    def held(self, message_id: Any) -> list[Any] | None:
        """The conversation a response holds up to its reply (None when there is no such response), for the log."""
        with self._lock:
            stored = self._held.get(message_id) if isinstance(message_id, str) else None
        return None if stored is None else stored.conversation()

    def close(self, body: dict[str, Any], continued: _Stored | None, reply: dict[str, Any] | None) -> None:
        """After answering `open`'s request: hold the reply for the next `continue`, if it was a thread's."""
        thread = body.get("thread")
        with self._lock:
            if continued is not None:
                continued.in_flight = False
            if reply is None or not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
                return
            if continued is not None:
                continued.continued = True
            fields = continued.fields if continued is not None else {
                name: body[name] for name in CREATE_ONLY_FIELDS if name in body}
            sent = list(body.get("messages") or [])
            self._held[reply["id"]] = _Stored(continued, [*sent, {"role": "assistant", "content": reply["content"]}],
                                              fields, self._clock())
            self._expire()

    def _expire(self) -> None:
        oldest = self._clock() - self.max_age
        while self._held and (len(self._held) > self.limit or next(iter(self._held.values())).stored_at < oldest):
            self._held.popitem(last=False)
