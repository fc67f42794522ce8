"""uvicorn's HTTP/1.1 protocol for the stand-in: what h11 refuses, said in the API's error shape.

`http_transport.py` serves with it; the refusals it cannot leave to the frame
(a request h11 cannot read at all) it answers itself, with a request id and a
log line, and a body that breaks off it hands to the frame to refuse.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import TYPE_CHECKING, Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import STATUS_PHRASES, H11Protocol

from agent.real.api_errors import MAX_LINE_BYTES, ApiError, bad_request, new_request_id
from agent.summary import printable

if TYPE_CHECKING:
    from agent.real.http_transport import ApiHttpServer

BODY_PROBLEM = "loop_sandbox.body_problem"
"""A scope key: set by the protocol when a request's body broke off (h11's words, or `CUT_SHORT`)."""
CUT_SHORT = "cut short"

# uvicorn's own messages ("Invalid HTTP request received.") are said again, in words, in the stand-in's log.
_uvicorn_log = logging.getLogger("agent.real.stand_in")
_uvicorn_log.addHandler(logging.NullHandler())
_uvicorn_log.propagate = False


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

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]  # asyncio gives a Transport here
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
            return bad_request("a request line is METHOD PATH HTTP/1.1, not "
                                f"{printable(self._first_line().decode('latin-1'), 100)!r}")
        if problem.startswith("Missing mandatory Host"):
            return bad_request("an HTTP/1.1 request needs a host header")
        if problem.startswith("bad Content-Length"):
            return bad_request("the content-length header is not a number of bytes")
        return bad_request(f"the request is not well-formed HTTP/1.1: {printable(problem, 200)}")

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

