"""A local stand-in for the Messages API that plays a FakeModel script over HTTP.

`python -m agent serve SCRIPT` answers `POST /v1/messages` (JSON, or server-sent
events when the body says `stream: true`) and `POST /v1/messages/count_tokens`,
so the real `anthropic` SDK, or an agent in any language, can be pointed at it
by its base URL. Every request is checked with the engine's rules
(`agent.api.requests` and the FakeModel), and a bad one gets the API's 400 body.
This module says what a request means; reading requests and writing answers,
however malformed the request, is `agent.real.http_transport`'s.

The server keeps no conversation of its own: the reply for a request is chosen
from the request itself, by how many assistant turns it already holds. So many
clients at once each get their own run right, and a retried request gets the
same reply again. The one piece of memory is for the script's error entries: an
error is played once to each distinct request that reaches it, and that same
request sent again moves past it, as a retry after a 529 does.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import threading
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from agent.api.error_types import STATUS_OF_TYPE
from agent.api.requests import LATEST_VERSION, MODES, RequestChecker, RequestRejected
from agent.models.fake import FakeModel, ScriptExhausted
from agent.real.api_errors import MAX_BODY_BYTES, ApiError, ApiJSONResponse, betas_of, checked_request, log_note
from agent.real.http_transport import AnswerCut, ApiHttpServer, serving_in_thread
from agent.real.models import model_list, model_named, unknown_model
from agent.real.server_faults import ServerFault, fault_for
from agent.real.sse import EVENT_STREAM, event_bytes, stream_events
from agent.real.threads import ThreadRejected, ThreadStore
from agent.scripts import Script

__all__ = ["MAX_BODY_BYTES", "ApiError", "StandInServer", "assistant_turns", "estimate_tokens", "running_server",
           "stream_events"]

REMEMBERED_REQUESTS = 10_000
CHARACTERS_PER_TOKEN = 4  # the estimate's rule of thumb; a real tokenizer differs
ESTIMATE_NOTE = f"an estimate: JSON characters / {CHARACTERS_PER_TOKEN}, not a real tokenizer"


def estimate_tokens(*parts: Any) -> int:
    """A rough token count for JSON-able parts: about four characters a token."""
    size = sum(len(json.dumps(part, ensure_ascii=False)) for part in parts if part)
    return max(1, math.ceil(size / CHARACTERS_PER_TOKEN))


def assistant_turns(messages: list[Any]) -> int:
    """How many finished assistant turns a conversation holds: the number of the reply it asks for.

    A run of consecutive assistant messages is one turn (real-API mode merges
    them), and a final assistant message is a prefill, not a finished turn.
    """
    turns, previous = 0, None
    for message in messages[:-1]:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant" and previous != "assistant":
            turns += 1
        previous = role
    return turns


def recorded_difference(script: Script, index: int, messages: list[Any]) -> str | None:
    """Where a request differs from the one recorded for reply `index`, in words; None when it is the same."""
    recorded = (script.recorded_requests or [])[index] if index < len(script.recorded_requests or []) else None
    if recorded is None:
        return None
    for position, (was, sent) in enumerate(zip(recorded, messages, strict=False)):
        if was != sent:
            return (f"the request for reply {index + 1} differs from the recorded one at messages[{position}]: "
                    f"recorded {_clip(was)}, sent {_clip(sent)}")
    if len(recorded) != len(messages):
        return (f"the request for reply {index + 1} holds {len(messages)} messages; the recorded one held "
                f"{len(recorded)}")
    return None


def _clip(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


class ReplyPicker:
    """Chooses the script entry that answers a request, from the request alone."""

    def __init__(self, script: Script) -> None:
        self.script = script
        # For each turn: the indices of the error entries played before it, and
        # the index of its reply (len(replies) once the script has run out).
        self._turns: list[tuple[list[int], int]] = []
        errors: list[int] = []
        for index, entry in enumerate(script.replies):
            if "error" in entry:
                errors.append(index)
            else:
                self._turns.append((errors, index))
                errors = []
        if errors:
            self._turns.append((errors, len(script.replies)))
        self._errors_played: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def entry_index(self, messages: list[Any]) -> int:
        turn = assistant_turns(messages)
        errors, reply = self._turns[turn] if turn < len(self._turns) else ([], len(self.script.replies))
        if not errors:
            return reply
        key = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        with self._lock:
            played = self._errors_played.pop(key, 0)
            self._errors_played[key] = played + 1 if played < len(errors) else played
            while len(self._errors_played) > REMEMBERED_REQUESTS:
                self._errors_played.popitem(last=False)
        return errors[played] if played < len(errors) else reply


class StandInServer(ApiHttpServer):
    """The HTTP server: one event loop for every connection, the script shared and never changed."""

    def __init__(self, script: Script, host: str = "127.0.0.1", port: int = 8765, mode: str = "lesson",
                 delay: float = 0.0, log: Callable[[str], None] | None = None,
                 faults: tuple[ServerFault, ...] = (), match_recorded: bool = True,
                 strict_models: bool = False) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.script, self.mode, self.delay = script, mode, delay
        self.faults = tuple(faults)
        self.strict_models = strict_models
        """Answer a model name the SDK does not list with the API's 404, instead of playing any name a test gives."""
        """What to do to which request, on demand (`agent.real.server_faults`)."""
        self.match_recorded = match_recorded and script.recorded_requests is not None
        """A recording's replay refuses a request whose messages differ from the recorded ones."""
        self.messages_heard = 0
        """`POST /v1/messages` requests so far: the faults are placed by this count."""
        self.picker = ReplyPicker(script)
        self.threads = ThreadStore()
        """Conversations held for clients that use message threads: in memory, bounded, lost on restart."""
        self.on_answer: Callable[[str, Any, dict[str, Any] | ApiError], None] | None = None
        """Told of each `messages` or `count_tokens` body this server answered and its answer (or ApiError)."""
        super().__init__((host, port), _Routes(self).table(), log)

    def answer(self, body: Any, version: str = LATEST_VERSION, betas: tuple[str, ...] = ()) -> dict[str, Any]:
        """The message that answers a checked request body, or ApiError; `version` is the `anthropic-version`,
        `betas` the betas its `anthropic-beta` header names.

        A thread's `continue` is answered as the whole conversation it stands for (`agent.real.threads`).
        """
        return self._told("messages", body, lambda: self._answer(body, version, betas))

    def _told(self, endpoint: str, body: Any, answer: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """`answer()`'s result, with `on_answer` told of it (or of the ApiError raised)."""
        try:
            result = answer()
        except ApiError as error:
            if self.on_answer is not None:
                self.on_answer(endpoint, body, error)
            raise
        if self.on_answer is not None:
            self.on_answer(endpoint, body, result)
        return result

    def _answer(self, body: Any, version: str, betas: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(body, dict):  # `check-request` takes a bare messages list; the API takes an object only
            raise ApiError(400, "invalid_request_error", "body: a request is a JSON object with a messages list")
        try:
            whole, continued = self.threads.open(body)
        except ThreadRejected as exc:
            raise ApiError(exc.status, exc.kind, exc.message, details=exc.details) from None
        message = None
        try:
            message = self._answer_whole({**whole, **({"thread": body["thread"]} if "thread" in body else {})},
                                         version, betas)
        finally:
            self.threads.close(body, continued, message)
        return message

    def reply_number(self, body: Any) -> int:
        """Which reply of the script a request asked for, counted in the whole conversation a thread stands for."""
        messages = body.get("messages") if isinstance(body, dict) else None
        if not isinstance(messages, list):
            return 0
        thread = body.get("thread")
        held = self.threads.held(thread.get("previous_message_id")) if isinstance(thread, dict) else None
        return assistant_turns(held + messages if held is not None else messages) + 1

    def _answer_whole(self, body: Any, version: str, betas: tuple[str, ...]) -> dict[str, Any]:
        problems = self._checker(version, betas).check_body(body)
        if problems:
            raise ApiError(400, "invalid_request_error", problems[0])
        self._require_known_model(body)
        messages = body["messages"] = list(body["messages"])
        index = self.picker.entry_index(messages)
        if self.match_recorded and (differs := recorded_difference(self.script, index, messages)):
            raise ApiError(400, "invalid_request_error", differs)
        model = FakeModel(self.script, mode=self.mode, calls=index, version=version, betas=betas)
        try:
            reply = model.create(messages, system=body.get("system", ""), tools=body.get("tools"),
                                 max_tokens=body.get("max_tokens", 1024),
                                 **({"thinking": body["thinking"]} if "thinking" in body else {}))
        except RequestRejected as exc:
            raise ApiError(400, "invalid_request_error", exc.message) from None
        except ScriptExhausted as exc:  # not the client's fault, and a retry will not help
            raise ApiError(500, "api_error", str(exc), {"x-should-retry": "false"}) from None
        except Exception as exc:  # an error entry: the SDK exception the FakeModel raised for it
            status, kind = getattr(exc, "status_code", None), getattr(exc, "type", None)
            if not isinstance(status, int) or not kind:
                raise
            entry = self.script.replies[index]["error"]
            if status < 400:  # a recorded mid-stream error (status 200): a request without a stream gets its type's
                status = STATUS_OF_TYPE.get(kind, 500)
            headers = {"retry-after": str(entry.get("retry_after", 1))} if status == 429 else {}
            raise ApiError(status, kind, entry["message"], headers, mid_stream=bool(entry.get("mid_stream"))) \
                from None
        usage = reply.get("usage") or {
            "input_tokens": estimate_tokens(body.get("system"), body.get("tools"), messages),
            "output_tokens": estimate_tokens(reply["content"])}
        return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                "model": body.get("model") or "stand-in", "content": reply["content"],
                "stop_reason": reply["stop_reason"], "stop_sequence": None, "usage": usage}

    def _require_known_model(self, body: Any) -> None:
        if self.strict_models and (unknown := unknown_model(body)):
            raise ApiError(404, "not_found_error", unknown)

    def _checker(self, version: str, betas: tuple[str, ...] = ()) -> RequestChecker:
        """A checker for one request, which trusts the thinking signatures the script itself gives."""
        checker = RequestChecker(self.mode, version, betas=betas)
        for entry in self.script.replies:
            checker.trust(entry.get("content") or [])
        return checker

    def count_tokens(self, body: Any, version: str = LATEST_VERSION, betas: tuple[str, ...] = ()) -> dict[str, Any]:
        """The estimated input tokens of a checked count_tokens body (which takes no `max_tokens`), or ApiError."""
        return self._told("count_tokens", body, lambda: self._count_tokens(body, version, betas))

    def _count_tokens(self, body: Any, version: str, betas: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ApiError(400, "invalid_request_error", "body: a request is a JSON object with a messages list")
        problems = self._checker(version, betas).check_body(body, endpoint="count_tokens")
        if problems:
            raise ApiError(400, "invalid_request_error", problems[0])
        self._require_known_model(body)
        return {"input_tokens": estimate_tokens(body.get("system"), body.get("tools"), body["messages"])}


class _Routes:
    """The stand-in's endpoints, for Starlette; reading requests and writing answers is `http_transport`'s."""

    def __init__(self, server: StandInServer) -> None:
        self.server = server

    def table(self) -> list[BaseRoute]:
        return [Route("/", self.health), Route("/health", self.health), Route("/v1/models", self.models),
                Route("/v1/models/{name:path}", self.model),
                Route("/v1/messages", self.messages, methods=["POST"]),
                Route("/v1/messages/count_tokens", self.count_tokens, methods=["POST"])]

    async def health(self, request: Request) -> Response:
        script = self.server.script
        return ApiJSONResponse({"server": "loop-sandbox stand-in Messages API", "script": script.name,
                                "replies": len(script.replies), "mode": self.server.mode})

    async def models(self, request: Request) -> Response:
        log_note(request, "models")
        return ApiJSONResponse(model_list(f"{request.url.path}?{request.url.query}"))

    async def model(self, request: Request) -> Response:
        name = request.path_params["name"]
        found = model_named(name)
        if found is None:
            raise ApiError(404, "not_found_error", f"model: {name}")
        log_note(request, "model")
        return ApiJSONResponse(found)

    async def count_tokens(self, request: Request) -> Response:
        parsed, version = checked_request(request.headers, await request.body())
        counted = self.server.count_tokens(parsed, version, betas_of(request.headers, request.url.query))
        log_note(request, "count_tokens (estimate)")
        return ApiJSONResponse(counted, headers={"x-token-count": ESTIMATE_NOTE})

    async def messages(self, request: Request) -> Response | _EventsAtOnce | _CutAnswer:
        parsed, version = checked_request(request.headers, await request.body())
        streaming = parsed.get("stream") is True
        self.server.messages_heard += 1  # one event loop answers every request: no lock needed
        fault = fault_for(self.server.faults, self.server.messages_heard)
        if fault is not None and fault.delay:
            await asyncio.sleep(fault.delay)
        if fault is not None and fault.status is not None:
            error = ApiError(fault.status, fault.kind, fault.message, fault.headers)
            if self.server.on_answer is not None:
                self.server.on_answer("messages", parsed, error)
            log_note(request, f"fault on demand: {fault.status} {fault.kind}")
            raise error
        try:
            message = self.server.answer(parsed, version, betas_of(request.headers, request.url.query))
        except ApiError as error:
            if error.mid_stream and streaming:
                log_note(request, f"stream broken by an error event: {error.kind}")
                return self._event_stream(stream_events(_placeholder(parsed), error, request.state.request_id))
            raise
        if self.server.delay:
            await asyncio.sleep(self.server.delay)
        log_note(request, f"reply {self.server.reply_number(parsed)}: {message['stop_reason']}")
        if fault is not None and fault.cut_stream:
            log_note(request, "fault on demand: the connection dropped mid-answer")
            body = b"".join(event_bytes(name, data) for name, data in stream_events(message)) if streaming \
                else json.dumps(message).encode()
            return _CutAnswer(body, EVENT_STREAM[1] if streaming else b"application/json")
        if streaming:
            return self._event_stream(stream_events(message))
        return ApiJSONResponse(message)

    def _event_stream(self, events: Iterator[tuple[str, dict[str, Any]]]) -> Response | _EventsAtOnce:
        """Server-sent events: one by one, paced by the delay; without one, all at once (see `_EventsAtOnce`)."""
        delay = self.server.delay
        if not delay:
            return _EventsAtOnce(b"".join(event_bytes(name, data) for name, data in events))

        async def chunks() -> AsyncIterator[bytes]:
            for name, data in events:
                yield event_bytes(name, data)
                if name == "content_block_delta":
                    await asyncio.sleep(delay / 10)  # slow enough to watch the reply arrive

        return StreamingResponse(chunks(), media_type=EVENT_STREAM[0], headers={"cache-control": "no-cache"})


class _EventsAtOnce:
    """A stream that nothing paces, as one chunk of a chunked answer: a client reads the events the same.

    Seventy small writes, each waking the client, would cost more than the reply; and with nothing left to
    generate, no task need listen for a disconnect, as Starlette's StreamingResponse does (a fifth of a
    request's CPU here).
    """

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __call__(self, scope: Any, receive: Any, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", EVENT_STREAM[1]), (b"cache-control", b"no-cache")]})
        await send({"type": "http.response.body", "body": self.body, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class _CutAnswer:
    """An answer whose connection drops in the middle (of an event, for a stream): a network failure, on demand."""

    def __init__(self, body: bytes, content_type: bytes) -> None:
        self.body, self.content_type = body, content_type

    async def __call__(self, scope: Any, receive: Any, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", self.content_type), (b"cache-control", b"no-cache")]})
        middle = self.body.find(b"content_block_delta")
        cut = middle + 40 if middle > 0 else len(self.body) // 2  # inside an event's data, not between events
        await send({"type": "http.response.body", "body": self.body[:cut], "more_body": True})
        raise AnswerCut


def _placeholder(body: dict[str, Any]) -> dict[str, Any]:
    """The start of a message that breaks off before any content."""
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
            "model": body.get("model") or "stand-in", "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": estimate_tokens(body.get("system"), body.get("messages")), "output_tokens": 0}}


@contextmanager
def running_server(script: Script, *, host: str = "127.0.0.1", port: int = 0, mode: str = "lesson",
                   delay: float = 0.0, log: Callable[[str], None] | None = None,
                   faults: tuple[ServerFault, ...] = (), match_recorded: bool = True,
                   strict_models: bool = False) -> Iterator[StandInServer]:
    """A stand-in server answering in a background thread; stopped and closed on leaving the block."""
    server = StandInServer(script, host=host, port=port, mode=mode, delay=delay, log=log, faults=faults,
                           match_recorded=match_recorded, strict_models=strict_models)
    with serving_in_thread(server, "stand-in-server"):
        yield server
