"""The stand-in server's HTTP layer, on uvicorn and Starlette: every answer in the API's JSON error shape.

`server.py` decides what a request means; this module makes sure it gets a
request to decide on, and that whatever goes wrong on the way is answered the
way the Messages API answers: a status, `{"type": "error", "error": {"type",
"message"}, "request_id"}` and a `request-id` header. uvicorn (its h11 parser,
one event loop, no thread per connection) reads and writes HTTP/1.1; Starlette
routes and builds the answers. Their own answers (uvicorn's plain-text 400 for a
request h11 refuses, Starlette's plain-text 404, 405 and 500) never reach a client.
The error and its answer are `api_errors.py`'s; uvicorn's protocol, with what
h11 refuses said the API's way, is `h11_protocol.py`'s.

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
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.real.api_errors import (
    MAX_BODY_BYTES,
    MAX_LINE_BYTES,
    ApiError,
    bad_request,
    error_response,
    log_note,
    new_request_id,
)
from agent.real.h11_protocol import BODY_PROBLEM, CUT_SHORT, ApiH11Protocol
from agent.summary import printable

BODY_TIMEOUT = 10.0  # seconds a body may take to arrive once its headers have
IDLE_TIMEOUT = 120.0  # seconds a connection may wait for its next request, or for the rest of a head
ALLOWED_METHODS = ("GET", "HEAD", "POST")
BACKLOG = 2048  # connections waiting to be accepted: a class's agents may all connect at once


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
            except AnswerCut:
                raise  # uvicorn closes the connection on it: the client reads an unfinished answer
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
            raise bad_request("only HTTP/1.0 and HTTP/1.1 are spoken here")
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
            raise bad_request(f"the request body ended after {len(body)} of the {length} bytes its content-length "
                               "promised")
        if problem == CUT_SHORT:
            raise bad_request("the chunked request body ended before its last chunk")
        if problem:
            raise bad_request(f"the chunked request body is malformed ({printable(problem, 120)})")
        return body


class AnswerCut(Exception):
    """An answer dropped mid-way on purpose (a fault asked for): the connection closes with the answer unfinished."""


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
        # uvicorn's type names protocol classes; it calls any factory of one, as partial is (uvicorn/config.py)
        protocol: Any = partial(ApiH11Protocol, api_server=self)
        config = uvicorn.Config(api_app(routes, self), http=protocol, ws="none",
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


@contextmanager
def serving_in_thread(server: ApiHttpServer, name: str) -> Iterator[ApiHttpServer]:
    """`server` answering in a background thread; stopped and closed on leaving the block."""
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


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
