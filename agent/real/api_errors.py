"""The stand-in's answers in the Messages API's error shape: the error, its JSON answer, the request id.

Every refusal of the stand-in server, wherever it is decided (uvicorn's h11
protocol, the frame around the routes, the routes themselves), is an
`ApiError`, and `error_response` says it the way the API does: a status,
`{"type": "error", "error": {"type", "message"}, "request_id"}`, and the
connection closed when what is left of the request must not be read.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent.api.requests import API_VERSIONS, BETA_ENDPOINT, LATEST_VERSION
from agent.untrusted import UntrustedInputError, parse_json

MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_LINE_BYTES = 65_536  # a request line, or a whole head (h11 holds no more than this unparsed)


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


def bad_request(message: str) -> ApiError:
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
        parsed: dict[str, Any] = parse_json(body, "body", expect=dict, max_bytes=MAX_BODY_BYTES)
        return parsed
    except UntrustedInputError as exc:
        raise ApiError(400, "invalid_request_error", str(exc)) from None


def checked_request(headers: Any, body: bytes) -> tuple[dict[str, Any], str]:
    """A request's parsed body and its `anthropic-version`, once its key and version pass (`headers`: any mapping
    with `.get`, a server's or a client's)."""
    if not (headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer ")):
        raise ApiError(401, "authentication_error", "x-api-key header is required")
    parsed = parse_body(body)
    version = headers.get("anthropic-version") or LATEST_VERSION  # the API requires it; curl may not send it
    if version not in API_VERSIONS:
        raise ApiError(400, "invalid_request_error", f"anthropic-version: {version!r} is not a version this "
                                                     f"stand-in knows ({', '.join(API_VERSIONS)})")
    return parsed, version


def betas_of(headers: Any, query: str | bytes = "") -> tuple[str, ...]:
    """The betas a request names in its `anthropic-beta` header (comma-separated, as the SDK joins `betas`), and
    `BETA_ENDPOINT` when its URL's query is the beta endpoint's (`beta=true`)."""
    if isinstance(query, bytes):  # httpx's URL gives its query as bytes
        query = query.decode("latin-1")
    named = tuple(name.strip() for name in (headers.get("anthropic-beta") or "").split(",") if name.strip())
    return named + ((BETA_ENDPOINT,) if BETA_ENDPOINT in query.split("&") else ())


def log_note(request: Request, note: str) -> None:
    """What the request's line in the log says after its status."""
    request.state.log_note = note

