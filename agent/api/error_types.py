"""The Messages API's error types, once: the status each is answered with, and which are worth trying again.

The loop, the FakeModel's SDK errors, the real model and the stand-in server all read this table.
"""

from __future__ import annotations

STATUS_OF_TYPE = {"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
                  "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429, "api_error": 500,
                  "overloaded_error": 529}
RETRYABLE_TYPES = ("overloaded_error", "api_error", "rate_limit_error")  # as an error event mid-stream says them


def retryable_status(status: int, kind: str | None = None) -> bool:
    """Whether an answer with this status (and, for a stream's error event at 200, this type) is worth a retry,
    as the SDK judges: 408, 409, 429 and 5xx."""
    if status == 200:
        return kind in RETRYABLE_TYPES
    return status in (408, 409, 429) or status >= 500
