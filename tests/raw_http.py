"""A raw HTTP/1.1 client over a socket, for requests no ordinary client would send (issue 10's hostile cases)."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    """One HTTP answer as it came over the wire."""

    status: int
    """The status line's code."""
    headers: dict[str, str] = field(default_factory=dict)
    """Header names in lower case."""
    body: bytes = b""
    """The body, de-chunked when it came chunked."""

    def json(self) -> Any:
        return json.loads(self.body)


def connect(base_url: str, timeout: float = 10.0) -> socket.socket:
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    return socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)


def _read_until(sock: socket.socket, buffer: bytearray, marker: bytes) -> bytes:
    while marker not in buffer:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError(f"closed before {marker!r}; had {bytes(buffer[:200])!r}")
        buffer += data
    head, _, rest = bytes(buffer).partition(marker)
    buffer[:] = rest
    return head


def _read_exactly(sock: socket.socket, buffer: bytearray, size: int) -> bytes:
    while len(buffer) < size:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("closed in the middle of a body")
        buffer += data
    taken = bytes(buffer[:size])
    buffer[:] = buffer[size:]
    return taken


def read_answer(sock: socket.socket, buffer: bytearray | None = None, head_only: bool = False) -> Answer:
    """Read one answer from the socket; `buffer` carries bytes over between answers on one connection."""
    buffer = bytearray() if buffer is None else buffer
    head = _read_until(sock, buffer, b"\r\n\r\n").decode("latin-1")
    status_line, *lines = head.split("\r\n")
    version, status, *_ = status_line.split(" ", 2)
    assert version.startswith("HTTP/1."), status_line
    headers = {name.strip().lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
    if head_only:
        return Answer(int(status), headers)
    if headers.get("transfer-encoding") == "chunked":
        body = bytearray()
        while True:
            size = int(_read_until(sock, buffer, b"\r\n"), 16)
            if size == 0:
                _read_until(sock, buffer, b"\r\n")
                break
            body += _read_exactly(sock, buffer, size)
            _read_exactly(sock, buffer, 2)
        return Answer(int(status), headers, bytes(body))
    return Answer(int(status), headers, _read_exactly(sock, buffer, int(headers.get("content-length", "0"))))


def exchange(base_url: str, raw: bytes, half_close: bool = False, timeout: float = 10.0) -> Answer:
    """Send raw bytes on a new connection (then close our side, if asked) and read the one answer."""
    with connect(base_url, timeout) as sock:
        sock.sendall(raw)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        return read_answer(sock)


def post_bytes(path: str, body: bytes, extra: str = "", key: str = "k") -> bytes:
    """A POST with a content-length, as raw bytes."""
    return (f"POST {path} HTTP/1.1\r\nhost: x\r\nx-api-key: {key}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n{extra}\r\n").encode() + body


def closed_by_server(sock: socket.socket, wait: float = 5.0) -> bool:
    """Whether the server closes the connection (rather than holding it) within `wait` seconds."""
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
