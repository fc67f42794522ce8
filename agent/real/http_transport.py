"""The stand-in server's HTTP layer, on uvicorn and Starlette: every answer in the API's JSON error shape.

`server.py` decides what a request means; this module makes sure it gets a
request to decide on, and that whatever goes wrong on the way is answered the
way the Messages API answers: a status, `{"type": "error", "error": {"type",
"message"}, "request_id"}` and a `request-id` header. uvicorn (its h11 parser,
one event loop, no thread per connection) reads and writes HTTP/1.1; Starlette
routes and builds the answers. Their own answers (uvicorn's plain-text 400 for a
request h11 refuses, Starlette's plain-text 404, 405 and 500) never reach a client.

What it holds to:
- Every method: GET, HEAD and POST go to the routes; any other gets 405 with
  an `allow` header. A request h11 cannot read (a garbled request line, a missing
  `host`, a bad `content-length`) gets 400; `HTTP/2.0` gets 400 saying to speak
  HTTP/1.1; a request line or a head too long gets 414 or 431.
- Bodies: `content-length`, or `transfer-encoding: chunked`; a POST with
  neither gets 411. The body must arrive within `BODY_TIMEOUT` seconds (else 408);
  one that ends before its length (a half-closed connection) or breaks its chunked
  framing gets 400, never an answer to the part that came. After any of these the
  connection closes, so a leftover is never read as a next request.
- Bad input is 4xx; a fault of the server itself is a 500 `api_error` with a
  generic message, its cause written to the log only.
- One whole log line per request, written under a lock.
- A graceful stop (`serve_until_signalled`): on SIGTERM or Ctrl-C, stop
  accepting, let requests in flight finish within a grace period, say so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

from agent.summary import printable
from agent.untrusted import UntrustedInputError, parse_json

MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_LINE_BYTES = 65_536  # a request line, or a whole head (h11 holds no more than this unparsed)
BODY_TIMEOUT = 10.0  # seconds a body may take to arrive once its headers have
IDLE_TIMEOUT = 120.0  # seconds a connection may wait for its next request, or for the rest of a head
ALLOWED_METHODS = ("GET", "HEAD", "POST")
BACKLOG = 2048  # connections waiting to be accepted: a class's agents may all connect at once
BODY_PROBLEM = "loop_sandbox.body_problem"
"""A scope key: set by the protocol when a request's body broke off (h11's words, or `CUT_SHORT`)."""
CUT_SHORT = "cut short"

# uvicorn's own messages ("Invalid HTTP request received.") are said again, in words, in the stand-in's log.
_uvicorn_log = logging.getLogger("agent.real.stand_in")
_uvicorn_log.addHandler(logging.NullHandler())
_uvicorn_log.propagate = False


class ApiError(Exception):
    """An answer in the API's error shape: status, `error.type`, `error.message`."""

    def __init__(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None,
                 mid_stream: bool = False, details: dict[str, Any] | None = None, close: bool = False) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.headers = headers or {}
        self.mid_stream = mid_stream
        """Said as an `error` event after the stream began, when the request streams."""
        self.details = details
        """`error.details` (its `error_code` names the cause), for the rejections that have them."""
        self.close = close
        """The connection closes after this answer: what is left of the request is never read."""

    def body(self, request_id: str) -> dict[str, Any]:
        error = {"type": self.kind, "message": self.message, **({"details": self.details} if self.details else {})}
        return {"type": "error", "error": error, "request_id": request_id}


def _bad_request(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message, close=True)


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex[:24]}"


class ApiJSONResponse(JSONResponse):
    """JSON as the standard library writes it (ASCII, so no lone surrogate from a script can fail to encode)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content).encode()


def error_response(error: ApiError, request_id: str) -> Response:
    """The API's error answer for `error`."""
    headers = {name: value for name, value in error.headers.items() if name.lower() != "request-id"}
    if error.close:
        headers["connection"] = "close"
    return ApiJSONResponse(error.body(request_id), error.status, headers)


def parse_body(body: bytes) -> dict[str, Any]:
    """A request body, parsed as an untrusted JSON object: 400 in words for anything else."""
    try:
        return parse_json(body, "body", expect=dict, max_bytes=MAX_BODY_BYTES)
    except UntrustedInputError as exc:
        raise ApiError(400, "invalid_request_error", str(exc)) from None


def log_note(request: Request, note: str) -> None:
    """What the request's line in the log says after its status."""
    request.state.log_note = note


# ---------------------------------------------------------------- Starlette: its refusals in the API's shape

async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    log_note(request, f"{exc.kind}: {exc.message}")
    return error_response(exc, request.state.request_id)


async def _not_found(request: Request, exc: Exception) -> Response:
    """Starlette's 404 (no route) and 405 (a route, another method): the API says 404 for both."""
    status = getattr(exc, "status_code", 404)
    if status not in (404, 405):
        return await _api_error(request, ApiError(status, "invalid_request_error", str(getattr(exc, "detail", exc))))
    return await _api_error(request, ApiError(404, "not_found_error", "Not Found"))


async def _server_fault(request: Request, exc: Exception) -> Response:
    """A fault of this server: said as the API says its own; its cause goes to the log (see `ApiFrame`)."""
    request.state.fault = exc
    return await _api_error(request, ApiError(500, "api_error", "Internal server error: the stand-in server failed "
                                                                 "while answering; its log says why",
                                              {"x-should-retry": "false"}, close=True))


def api_app(routes: list[BaseRoute], server: ApiHttpServer) -> ASGIApp:
    """The ASGI application: Starlette's routes inside the frame that holds every answer to the API's shape."""
    app = Starlette(routes=routes, exception_handlers={ApiError: _api_error, HTTPException: _not_found,
                                                       Exception: _server_fault})
    app.router.redirect_slashes = False  # a trailing slash is dropped by the frame; a redirect is no API answer
    return ApiFrame(app, server)


# ---------------------------------------------------------------- the frame: one request, start to end

class ApiFrame:
    """Gives each request an id, refuses what no route should see, reads the body, logs one line.

    Pure ASGI around the Starlette app, so that what goes wrong before or after
    the routes (a method, a body that never comes, a fault) is still answered here.
    """

    def __init__(self, app: ASGIApp, server: ApiHttpServer) -> None:
        self.app, self.server = app, server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan is off and websockets are not served; nothing else comes
            return
        request_id = new_request_id()
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        raw_path = scope.get("raw_path") or scope["path"].encode()
        route = printable(raw_path.decode("latin-1"), 100)
        scope["path"] = scope["path"].rstrip("/") or "/"
        status, logged = 0, False
        method = printable(scope["method"], 20)

        def log_once() -> None:
            nonlocal logged
            if logged:
                return
            logged = True
            fault = state.get("fault")
            if fault is not None:
                self.server.log_line(f"{method} {route} -> internal failure: {type(fault).__name__}: "
                                     f"{printable(fault)}")
            note = state.get("log_note", "")
            if note or status >= 400:
                self.server.log_line(f"{method} {route} -> {status}" + (f" {printable(note, 300)}" if note else ""))

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), (b"request-id", request_id.encode())]}
            elif not message.get("more_body", False):
                log_once()  # before the answer's end leaves: a client that has its answer finds its line written
            await send(message)

        if scope["method"] == "POST":
            self.server.counted()  # counted on arrival, so a client that has its answer finds it counted
        with self.server.in_flight():
            try:
                body = await self._refusal_or_body(scope, receive, len(raw_path) + len(scope.get("query_string", b"")))
                await self.app(scope, _replay(body, receive), send_with_id)
            except ApiError as error:  # the frame's own refusals
                state["log_note"] = f"{error.kind}: {error.message}"
                if not status:
                    await error_response(error, request_id)(scope, receive, send_with_id)
            except _ClientGone:
                return  # nobody to answer, nothing to log
            except asyncio.CancelledError:  # a stop whose grace ran out: said in the API's shape, not uvicorn's
                if not status:
                    stopped = ApiError(503, "api_error", "the stand-in server stopped before it answered; send the "
                                                         "request again once it runs", {"x-should-retry": "true"},
                                       close=True)
                    state["log_note"] = f"{stopped.kind}: {stopped.message}"
                    await error_response(stopped, request_id)(scope, receive, send_with_id)
                raise
            except Exception as exc:  # a fault: Starlette has answered it (`_server_fault`) and raised it again
                state.setdefault("fault", exc)
                if not status:  # a fault of the frame itself
                    answer = await _server_fault(Request(scope), exc)
                    await answer(scope, receive, send_with_id)
            finally:
                log_once()  # an answer cut off mid-stream

    async def _refusal_or_body(self, scope: Scope, receive: Receive, target_length: int) -> bytes:
        """The request's body, once the request line has passed; ApiError for what is refused."""
        if scope["http_version"] not in ("1.0", "1.1"):
            raise _bad_request("only HTTP/1.0 and HTTP/1.1 are spoken here")
        if target_length > MAX_LINE_BYTES:
            raise ApiError(414, "invalid_request_error", f"the request line is longer than {MAX_LINE_BYTES} bytes",
                           close=True)
        if sum(len(name) + len(value) + 4 for name, value in scope["headers"]) > MAX_LINE_BYTES:
            # h11 holds at most this much of a head unparsed; one that arrived at once is held to the same limit
            raise ApiError(431, "invalid_request_error", f"the request's headers are longer than {MAX_LINE_BYTES} "
                                                         "bytes", close=True)
        method = scope["method"]
        if method not in ALLOWED_METHODS:
            raise ApiError(405, "invalid_request_error",
                           f"method {printable(method, 20)} is not allowed: use {', '.join(ALLOWED_METHODS)}",
                           {"allow": ", ".join(ALLOWED_METHODS)}, close=True)  # a body may follow that is not read
        headers = Headers(scope=scope)
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length_text = headers.get("content-length")
        if not chunked and length_text is None:
            if method != "POST":
                return b""
            raise ApiError(411, "invalid_request_error", "a request body needs a content-length header or "
                                                         "transfer-encoding: chunked", close=True)
        length = None if chunked else int(length_text or "0")  # h11 has refused a content-length that is no number
        if (length or 0) > MAX_BODY_BYTES:
            raise ApiError(413, "request_too_large", f"Request exceeds the maximum size of {MAX_BODY_BYTES} bytes",
                           close=True)
        try:
            async with asyncio.timeout(BODY_TIMEOUT):
                body = await _read_body(receive)
        except TimeoutError:
            raise ApiError(408, "invalid_request_error",
                           f"the request body did not arrive within {BODY_TIMEOUT:g} seconds", close=True) from None
        problem = scope.get(BODY_PROBLEM)
        if problem == CUT_SHORT and length is not None:
            raise _bad_request(f"the request body ended after {len(body)} of the {length} bytes its content-length "
                               "promised")
        if problem == CUT_SHORT:
            raise _bad_request("the chunked request body ended before its last chunk")
        if problem:
            raise _bad_request(f"the chunked request body is malformed ({printable(problem, 120)})")
        return body


class _ClientGone(Exception):
    """The client closed the connection before its request was whole."""


async def _read_body(receive: Receive) -> bytes:
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _ClientGone
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            raise ApiError(413, "request_too_large", f"Request exceeds the maximum size of {MAX_BODY_BYTES} bytes",
                           close=True)
        if not message.get("more_body", False):
            return bytes(body)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body the frame has read, then what the connection says (a disconnect)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


# ---------------------------------------------------------------- uvicorn's h11 protocol: what it refuses, said our way

class ApiH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with its refusals in the API's shape and a half-closed request still answered.

    - A request h11 cannot read is refused with the API's JSON error, a request
      id and a log line (uvicorn's own answer is plain text).
    - A body whose chunked framing breaks, or that a half-close cuts short, is
      handed to the frame (`BODY_PROBLEM`), which answers it as its request's 400.
    - A client that closes its sending side after a whole request still gets
      its answer (uvicorn would close the connection unanswered).
    - A connection that sends nothing, or half a head, is closed after `IDLE_TIMEOUT`.
    """

    def __init__(self, config: uvicorn.Config, server_state: Any, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None, *, api_server: ApiHttpServer) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.api_server = api_server
        self.logger = _uvicorn_log
        self.access_log = False  # the stand-in writes its own line a request
        self._head = bytearray()  # the start of a request not yet read: its method and path name it in the log
        self._refused = False

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm_idle_timer()

    def _arm_idle_timer(self) -> None:
        if self.timeout_keep_alive_task is None and not self.transport.is_closing():
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        if self._between_requests() and len(self._head) <= MAX_LINE_BYTES:
            self._head += data[:MAX_LINE_BYTES + 1 - len(self._head)]
        super().data_received(data)
        if self._between_requests():
            self._arm_idle_timer()  # the rest of a head must come in time too
        else:
            self._head.clear()  # read: the next request's head starts afresh

    def eof_received(self) -> bool | None:  # type: ignore[override]
        if self._between_requests():
            return None  # nothing asked: the connection closes
        self.cycle.keep_alive = False  # answer, then close
        if self.conn.their_state is h11.SEND_BODY:
            self._hand_to_frame(CUT_SHORT)
        return True  # keep the sending side open for the answer

    def _hand_to_frame(self, problem: str) -> None:
        """The request's body broke off: the frame, reading it, answers 400 as this request's answer."""
        self.cycle.scope[BODY_PROBLEM] = problem  # type: ignore[literal-required]
        self.cycle.more_body = False
        self.cycle.keep_alive = False
        self.cycle.message_event.set()

    def send_400_response(self, msg: str) -> None:
        """Called by uvicorn's `handle_events` while it handles h11's RemoteProtocolError."""
        exc = sys.exc_info()[1]
        if self._refused:
            return  # refused already: what more the client sends is not read
        self._refused = True
        self.flow.pause_reading()
        problem = str(exc) if isinstance(exc, h11.RemoteProtocolError) else msg
        if not self._between_requests():
            if not self.cycle.response_started:
                self._hand_to_frame(problem)
            else:
                self.cycle.keep_alive = False  # its answer is under way; then the connection closes
            return
        self._refuse(self._error_for(problem, getattr(exc, "error_status_hint", 400)))

    def _error_for(self, problem: str, status_hint: int) -> ApiError:
        """h11's refusal in words a client can act on."""
        if len(self._first_line()) > MAX_LINE_BYTES or status_hint == 431:  # more than MAX_LINE_BYTES unparsed
            if len(self._first_line()) > MAX_LINE_BYTES:
                return ApiError(414, "invalid_request_error", f"the request line is longer than {MAX_LINE_BYTES} "
                                                              "bytes", close=True)
            return ApiError(431, "invalid_request_error", f"the request's headers are longer than {MAX_LINE_BYTES} "
                                                          "bytes", close=True)
        if problem.startswith("illegal request line"):
            return _bad_request("a request line is METHOD PATH HTTP/1.1, not "
                                f"{printable(self._first_line().decode('latin-1'), 100)!r}")
        if problem.startswith("Missing mandatory Host"):
            return _bad_request("an HTTP/1.1 request needs a host header")
        if problem.startswith("bad Content-Length"):
            return _bad_request("the content-length header is not a number of bytes")
        return _bad_request(f"the request is not well-formed HTTP/1.1: {printable(problem, 200)}")

    def _first_line(self) -> bytes:
        return bytes(self._head.split(b"\n", 1)[0].rstrip(b"\r"))

    def _refuse(self, error: ApiError) -> None:
        """Answer before any request could be read: the API's error shape, a log line, then close."""
        request_id = new_request_id()
        body = json.dumps(error.body(request_id)).encode()
        headers = [*self.server_state.default_headers, (b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode()), (b"request-id", request_id.encode()),
                   (b"connection", b"close")]
        try:
            output = self.conn.send(h11.Response(status_code=error.status, headers=headers,
                                                 reason=STATUS_PHRASES[error.status]))
            output = (output or b"") + (self.conn.send(h11.Data(data=body)) or b"")
            output += self.conn.send(h11.EndOfMessage()) or b""
            self.transport.write(output)
        except h11.LocalProtocolError:
            pass  # h11 cannot say more on this connection; it closes
        words = self._first_line().split(b" ")
        method = printable(words[0].decode("latin-1"), 20) if words[0] else "-"
        route = printable(words[1].decode("latin-1").split("?")[0], 100) if len(words) > 1 else "-"
        self.api_server.log_line(f"{method} {route} -> {error.status} {error.kind}: {printable(error.message, 300)}")
        self.transport.close()


# ---------------------------------------------------------------- the server: a socket, uvicorn, a graceful stop

class ApiHttpServer:
    """An HTTP server for `routes`, listening from the moment it is made; `serve_forever` runs uvicorn in its thread.

    The same calls as the standard library's servers: `serve_forever`, `shutdown`,
    `server_close`, `server_address`; and `stop(grace)` for a graceful stop.
    """

    def __init__(self, address: tuple[str, int], routes: list[BaseRoute],
                 log: Callable[[str], None] | None = None) -> None:
        self.log = log
        """Called with one line a request; never with a header (the key travels in one)."""
        self.requests_answered = 0
        """POST requests received (and answered, whatever the answer)."""
        self.stopping = False
        self._log_lock = threading.Lock()
        self._in_flight = 0
        self._idle = threading.Condition()
        self._serving = threading.Lock()  # held while uvicorn runs
        self._stop_asked = False
        host, port = address
        family, kind, proto, _, where = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                           proto=socket.IPPROTO_TCP)[0]
        # Made with IPPROTO_TCP named, so asyncio sets TCP_NODELAY on every connection it accepts (it checks
        # `sock.proto`): without it, an answer written in two bursts waits for the client's delayed ACK (~40 ms).
        self.socket = socket.socket(family, kind, proto)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(where)
            self.socket.listen(BACKLOG)
        except OSError:
            self.socket.close()
            raise
        self.server_address: tuple[Any, ...] = self.socket.getsockname()[:2]
        config = uvicorn.Config(api_app(routes, self), http=partial(ApiH11Protocol, api_server=self), ws="none",
                                lifespan="off", loop="asyncio", interface="asgi3", log_config=None,
                                proxy_headers=False, server_header=False,
                                headers=[("server", "loop-sandbox-stand-in")], backlog=BACKLOG,
                                timeout_keep_alive=IDLE_TIMEOUT,  # type: ignore[arg-type]
                                h11_max_incomplete_event_size=MAX_LINE_BYTES)
        self.uvicorn = uvicorn.Server(config)
        """What runs it; its `server_state.connections` are the connections open now."""
        """The uvicorn server that runs it (its `server_state.connections` are the open connections)."""

    @property
    def base_url(self) -> str:
        """What a client passes as `base_url` (the SDK adds `/v1/messages` itself)."""
        host, port = self.server_address[:2]
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)  # listening everywhere: reach it locally
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}"

    def serve_forever(self, poll_interval: float = 0.1) -> None:
        """Answer requests until `stop` or `shutdown` (uvicorn checks every 0.1 s; `poll_interval` is kept for
        the standard library's signature)."""
        with self._serving:
            if self._stop_asked:
                return
            self.uvicorn.run(sockets=[self.socket])

    def stop(self, grace: float) -> int:
        """Stop accepting, wait up to `grace` seconds for requests in flight; how many were still running.

        Call it from another thread than the one in `serve_forever`; those still running are then cut off.
        """
        self.stopping = self._stop_asked = True
        self.uvicorn.should_exit = True
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=grace)
            still_running = self._in_flight
        if still_running:
            self.uvicorn.force_exit = True
        with self._serving:  # uvicorn, if it ran, has closed the listening socket and the connections
            pass
        self.server_close()
        return still_running

    def shutdown(self) -> None:
        """Stop serving now, as `socketserver`'s `shutdown` does: requests in flight are cut off."""
        self.stop(grace=0)

    def server_close(self) -> None:
        """Close the listening socket: a new connection is refused, not left waiting."""
        self.socket.close()

    def log_line(self, line: str) -> None:
        """Write one line to the log, whole: callers take turns."""
        if self.log is not None:
            with self._log_lock:
                self.log(line)

    def counted(self) -> None:
        self.requests_answered += 1  # only the event loop's thread counts

    @contextmanager
    def in_flight(self) -> Iterator[None]:
        """Count a request as being answered while the block runs."""
        with self._idle:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._idle:
                self._in_flight -= 1
                self._idle.notify_all()


def serve_until_signalled(server: ApiHttpServer, grace: float, say: Callable[[str], None]) -> int:
    """Serve until SIGTERM or Ctrl-C, then stop gracefully (see `ApiHttpServer.stop`); exit status 0."""
    stop = threading.Event()
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in (signal.SIGTERM, signal.SIGINT)}
    thread = threading.Thread(target=server.serve_forever, name="serve", daemon=True)
    thread.start()
    try:
        while not stop.wait(0.2):  # a short wait, so the signal handler gets its turn promptly
            pass
        still_running = server.stop(grace)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if still_running:
        say(f"stopped: {still_running} request(s) still being answered after {grace:g} s were cut off")
    else:
        say("stopped: no longer accepting; every request in flight was answered")
    return 0
