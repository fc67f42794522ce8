"""The stand-in server's HTTP layer: every request answered in the API's JSON error shape, whatever arrives.

`server.py` decides what a request means; this module makes sure it gets a
request to decide on, and that whatever goes wrong on the way is answered the
way the Messages API answers: a status, `{"type": "error", "error": {"type",
"message"}, "request_id"}` and a `request-id` header. The standard library's
own answers (HTML error pages, a 501 for an unknown method, no status line at
all for a garbled request line) never reach a client.

What it holds to:
- Every method: GET, HEAD and POST go to the routes; any other gets 405 with
  an `allow` header. A garbled request line gets 400, `HTTP/2.0` gets 400 saying
  to speak HTTP/1.1, a request line or a header too long gets 414 or 431.
- Bodies: `content-length`, or `transfer-encoding: chunked`; a POST with
  neither gets 411. The body must arrive within `BODY_TIMEOUT` seconds (else 408);
  one that ends before its length (a half-closed connection) gets 400, never an
  answer to the part that came. Any failure mid-body closes the connection, so a
  leftover is never read as a next request.
- Bad input is 4xx; a fault of the server itself is a 500 `api_error` with a
  generic message, its cause written to the log only.
- One whole log line per request, written under a lock.
- A graceful stop (`serve_until_signalled`): on SIGTERM or Ctrl-C, stop
  accepting, let requests in flight finish within a grace period, say so.
"""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent.summary import printable
from agent.untrusted import UntrustedInputError, parse_json

MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_LINE_BYTES = 65_536  # a request line, a chunk-size line or a trailer
BODY_TIMEOUT = 10.0  # seconds a body may take to arrive once its headers have
IDLE_TIMEOUT = 120.0  # seconds a kept-alive connection may wait for its next request
ALLOWED_METHODS = ("GET", "HEAD", "POST")
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,8}")


class ApiError(Exception):
    """An answer in the API's error shape: status, `error.type`, `error.message`."""

    def __init__(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None,
                 mid_stream: bool = False, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.headers = headers or {}
        self.mid_stream = mid_stream
        """Said as an `error` event after the stream began, when the request streams."""
        self.details = details
        """`error.details` (its `error_code` names the cause), for the rejections that have them."""

    def body(self, request_id: str) -> dict[str, Any]:
        error = {"type": self.kind, "message": self.message, **({"details": self.details} if self.details else {})}
        return {"type": "error", "error": error, "request_id": request_id}


def _bad_request(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)


class ApiHttpServer(ThreadingHTTPServer):
    """A threading HTTP server that counts the requests in flight, so it can stop without cutting one off."""

    daemon_threads = True  # an idle kept-alive connection never holds the process; requests in flight are waited for
    request_queue_size = 128  # many clients may connect at once

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 log: Callable[[str], None] | None = None) -> None:
        self.log = log
        """Called with one line a request; never with a header (the key travels in one)."""
        self.stopping = False
        """Set when a stop began: each connection closes after its current answer."""
        self._log_lock = threading.Lock()
        self._in_flight = 0
        self._idle = threading.Condition()
        super().__init__(address, handler)

    def log_line(self, line: str) -> None:
        """Write one line to the log, whole: threads take turns."""
        if self.log is not None:
            with self._log_lock:
                self.log(line)

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

    def stop(self, grace: float) -> int:
        """Stop accepting, wait up to `grace` seconds for requests in flight; how many were still running.

        Call it from another thread than the one in `serve_forever`.
        """
        self.stopping = True
        self.shutdown()
        self.server_close()  # the listening socket closes: a new connection is refused, not left waiting
        with self._idle:
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=grace)
            return self._in_flight

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return  # a client that hung up or went quiet is not the server's failure
        super().handle_error(request, client_address)


class ApiRequestHandler(BaseHTTPRequestHandler):
    """Reads requests and writes answers; a subclass's `do_GET` and `do_POST` say what they mean."""

    protocol_version = "HTTP/1.1"  # keep-alive: the SDK reuses its connections
    # Small writes on a kept-alive connection otherwise meet Nagle's algorithm and the client's delayed ACK:
    # 40 ms lost per answer. So: no Nagle, and an answer's head and body leave in one buffered write.
    disable_nagle_algorithm = True
    wbufsize = -1
    timeout = IDLE_TIMEOUT
    server: ApiHttpServer
    server_version = "loop-sandbox-stand-in"
    request_id = ""
    _answer_started = False
    _head_only = False

    # ------------------------------------------------------------ one request, start to end

    def handle_one_request(self) -> None:
        """Read one request and answer it; whatever happens, the client hears the API's error shape."""
        self.request_id = f"req_{uuid.uuid4().hex[:24]}"
        self._answer_started = self._head_only = False
        self.command, self.path, self.request_version, self.requestline = "", "", "HTTP/1.1", ""
        try:
            self.raw_requestline = self.rfile.readline(MAX_LINE_BYTES + 1)
        except (TimeoutError, ConnectionError):
            self.close_connection = True
            return
        if not self.raw_requestline:
            self.close_connection = True
            return
        with self.server.in_flight():
            self._answer_one()
            if self.server.stopping:
                self.close_connection = True
            try:
                self.wfile.flush()
            except (ConnectionError, TimeoutError):
                self.close_connection = True

    def _answer_one(self) -> None:
        if len(self.raw_requestline) > MAX_LINE_BYTES:
            self.send_error(414, f"the request line is longer than {MAX_LINE_BYTES} bytes")
            return
        if not self.parse_request():  # it has answered, through send_error
            self.close_connection = True
            return
        if self.request_version == "HTTP/0.9":  # a two-word request line: an answer without a status line
            self.send_error(400, "a request line is METHOD PATH HTTP/1.1")
            return
        if self.command not in ALLOWED_METHODS:
            self.close_connection = True  # a body may follow that is not read
            self._send_error(ApiError(405, "invalid_request_error",
                                         f"method {printable(self.command, 20)} is not allowed: use "
                                         f"{', '.join(ALLOWED_METHODS)}", {"allow": ", ".join(ALLOWED_METHODS)}))
            return
        try:
            if self.command in ("GET", "HEAD") and ("content-length" in self.headers
                                                    or "transfer-encoding" in self.headers):
                self._read_body()  # a body nobody reads would be taken for the next request on the connection
            if self.command == "HEAD":
                self._head_only = True
                self.do_GET()
            else:
                getattr(self, f"do_{self.command}")()
        except ApiError as error:
            self._send_error(error)
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away mid-answer; nothing to tell it
        except Exception as exc:  # a fault of this server: said as the API says its own, its cause only in the log
            self.close_connection = True
            self.server.log_line(f"{self.command} {self.route} -> internal failure: {type(exc).__name__}: "
                                 f"{printable(exc)}")
            self._send_error(ApiError(500, "api_error", "Internal server error: the stand-in server failed "
                                                           "while answering; its log says why",
                                         {"x-should-retry": "false"}))

    def _request_id(self) -> str:
        """This request's id: in the `request-id` header and the error body."""
        return self.request_id

    @property
    def route(self) -> str:
        """The path without its query, fit for the log."""
        return printable((self.path or "").split("?")[0], 100)

    # ------------------------------------------------------------ the standard library's errors, in the API's shape

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Answer http.server's own refusals (a garbled line, HTTP/2.0, too many headers) as the API would."""
        self.close_connection = True
        self.request_version = "HTTP/1.1"  # a two-word request line would otherwise get no status line at all
        if code == 505:
            code, message = 400, "only HTTP/1.0 and HTTP/1.1 are spoken here"
        elif code == 501:
            code = 405
        elif code >= 500:
            code = 400  # http.server refuses only what the client sent
        kind = {404: "not_found_error", 413: "request_too_large"}.get(code, "invalid_request_error")
        said = printable(message or self.responses.get(code, ("Bad request",))[0])
        self._send_error(ApiError(code, kind, said))

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        pass  # see log_message

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line a request is written by `_log`, with what the check found; headers never

    def _log(self, status: int, note: str) -> None:
        """The request's one line in the log."""
        self.server.log_line(f"{printable(self.command, 20) or '-'} {self.route or '-'} -> {status}"
                             + (f" {printable(note, 300)}" if note else ""))  # a client's newline never splits it

    # ------------------------------------------------------------ reading the body

    def _read_body(self) -> bytes:
        """The request's body, read within the limits; ApiError (and the connection closed) when it cannot be."""
        chunked = "chunked" in self.headers.get("transfer-encoding", "").lower()
        length_text = self.headers.get("content-length")
        if chunked and length_text is not None:
            self.close_connection = True  # both framings at once: chunked wins, and the connection is not reused
        if not chunked and length_text is None:
            if self.command != "POST":
                return b""
            self.close_connection = True
            raise ApiError(411, "invalid_request_error", "a request body needs a content-length header or "
                                                         "transfer-encoding: chunked")
        self.connection.settimeout(BODY_TIMEOUT)
        try:
            return self._read_chunked() if chunked else self._read_length(length_text or "")
        except ApiError:
            self.close_connection = True
            raise
        except TimeoutError:
            self.close_connection = True
            raise ApiError(408, "invalid_request_error",
                           f"the request body did not arrive within {BODY_TIMEOUT:g} seconds") from None
        finally:
            if not self.close_connection:
                self.connection.settimeout(self.timeout)

    def _read_length(self, length_text: str) -> bytes:
        if not length_text.strip().isdigit():
            raise _bad_request(f"content-length {printable(length_text, 30)!r} is not a number of bytes")
        length = int(length_text)
        if length > MAX_BODY_BYTES:
            raise ApiError(413, "request_too_large", f"Request exceeds the maximum size of {MAX_BODY_BYTES} bytes")
        body = self.rfile.read(length)
        if len(body) < length:  # the client closed its side early: what came is not the request it meant
            raise _bad_request(f"the request body ended after {len(body)} of the {length} bytes its "
                               "content-length promised")
        return body

    def _read_chunked(self) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(MAX_LINE_BYTES + 1)
            if not line.endswith(b"\n"):
                raise _bad_request("the chunked request body ended before its last chunk")
            size_text = line.split(b";", 1)[0].strip()  # a chunk extension after ; means nothing here
            if not _CHUNK_SIZE.fullmatch(size_text):
                raise _bad_request(f"a chunk size must be a hex number, not {printable(size_text[:20])!r}")
            size = int(size_text, 16)
            if size == 0:
                break
            if len(body) + size > MAX_BODY_BYTES:
                raise ApiError(413, "request_too_large", f"Request exceeds the maximum size of {MAX_BODY_BYTES} bytes")
            data = self.rfile.read(size)
            if len(data) < size or self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise _bad_request("the chunked request body ended in the middle of a chunk")
            body += data
        for _ in range(100):  # trailer fields, read and ignored, up to the blank line that ends the body
            line = self.rfile.readline(MAX_LINE_BYTES + 1)
            if line in (b"\r\n", b"\n"):
                return bytes(body)
            if not line.endswith(b"\n"):
                raise _bad_request("the chunked request body ended before its trailer did")
        raise _bad_request("a chunked request body with more than 100 trailer fields")

    def _parse_json(self, body: bytes) -> dict[str, Any]:
        """A request body, parsed as an untrusted JSON object: 400 in words for anything else."""
        try:
            return parse_json(body, "body", expect=dict, max_bytes=MAX_BODY_BYTES)
        except UntrustedInputError as exc:
            raise _bad_request(str(exc)) from None

    # ------------------------------------------------------------ writing answers

    def send_response(self, code: int, message: str | None = None) -> None:
        self._answer_started = True
        super().send_response(code, message)

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        """An answer with a JSON body (its length said; no body after HEAD)."""
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", self.request_id)
        for name, value in (headers or {}).items():
            if name.lower() != "request-id":
                self.send_header(name, value)
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        if not self._head_only:
            self.wfile.write(data)

    def _send_error(self, error: ApiError, request_id: str = "") -> None:
        """The API's error answer, and its line in the log; after an answer began, only the connection closes.

        `request_id` is this request's own id (`_request_id()`), taken for the callers that pass it.
        """
        self._log(error.status, f"{error.kind}: {error.message}")
        if self._answer_started:
            self.close_connection = True
            return
        self._send_json(error.status, error.body(self.request_id), error.headers)


def serve_until_signalled(server: ApiHttpServer, grace: float, say: Callable[[str], None]) -> int:
    """Serve until SIGTERM or Ctrl-C, then stop gracefully (see `ApiHttpServer.stop`); exit status 0."""
    stop = threading.Event()
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in (signal.SIGTERM, signal.SIGINT)}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, name="serve", daemon=True)
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
