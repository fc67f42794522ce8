"""Faults on demand for the stand-in: what a test asks the server to do to one request, as the real API does it.

`stand_in_api(script, faults=[ServerFault.status(429, after=1, retry_after=1)])` answers the second request with a
429 (its `retry-after` header set), then goes on with the script: the SDK's own retry gets the script's reply. The
script is untouched; a fault is about the wire, not the conversation. Streamlit-free and engine-free.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.api.error_types import STATUS_OF_TYPE

TYPE_OF_STATUS = {status: kind for kind, status in STATUS_OF_TYPE.items()}
MESSAGE_OF_TYPE = {"rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
                   "api_error": "Internal server error", "overloaded_error": "Overloaded"}


@dataclass(frozen=True)
class ServerFault:
    """What the stand-in does to one `POST /v1/messages` request."""

    after: int
    """The fault hits the request that comes after this many (0: the first); once, unless `times` says more."""
    status: int | None = None
    """An error answer (429, 500, 529, ...) in the API's own body, instead of the reply."""
    retry_after: float | None = None
    """The `retry-after` header sent with the error, in seconds (the SDK waits that long before it retries)."""
    delay: float = 0.0
    """Seconds the answer waits before it starts (a slow model; past the client's timeout, a timeout)."""
    cut_stream: bool = False
    """A streamed reply's connection drops in the middle of an event, as a network failure does."""
    times: int = 1
    """How many requests in a row it hits."""

    def __post_init__(self) -> None:
        if self.after < 0 or self.times < 1:
            raise ValueError("a fault hits `times` (at least 1) requests after `after` (0 or more) requests")
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(f"a fault's status is an error status (400-599), not {self.status}")
        if self.status is None and not self.delay and not self.cut_stream:
            raise ValueError("a fault does something: a status, a delay or a cut stream")

    @classmethod
    def error(cls, status: int, after: int = 0, retry_after: float | None = None, times: int = 1) -> ServerFault:
        """An error answer: 429 (rate limited), 500 (the API failed), 529 (overloaded), ..."""
        return cls(after=after, status=status, retry_after=retry_after, times=times)

    @classmethod
    def slow(cls, seconds: float, after: int = 0, times: int = 1) -> ServerFault:
        return cls(after=after, delay=seconds, times=times)

    @classmethod
    def dropped_stream(cls, after: int = 0, times: int = 1) -> ServerFault:
        return cls(after=after, cut_stream=True, times=times)

    def hits(self, number: int) -> bool:
        """Whether it hits the `number`-th request (1-based)."""
        return self.after < number <= self.after + self.times

    @property
    def kind(self) -> str:
        """The error body's `type` for the status."""
        assert self.status is not None
        return TYPE_OF_STATUS.get(self.status) or ("api_error" if self.status >= 500 else "invalid_request_error")

    @property
    def message(self) -> str:
        return MESSAGE_OF_TYPE.get(self.kind, "Error")

    @property
    def headers(self) -> dict[str, str]:
        return {"retry-after": f"{self.retry_after:g}"} if self.retry_after is not None else {}


def fault_for(faults: tuple[ServerFault, ...], number: int) -> ServerFault | None:
    """The first fault that hits the `number`-th request."""
    return next((fault for fault in faults if fault.hits(number)), None)
