"""The Messages API's errors, once: the status of each type, which are worth trying again, and how one reads.

The loop, the FakeModel's SDK errors, the real model and the stand-in server all read this module; the words a
person sees for a failed call (`error_words`, with `STATUS_HINTS`) are made here and nowhere else.
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


# What each status means for the person at the page, after the API's own message.
STATUS_HINTS = {
    401: "the API key is missing or wrong: check ANTHROPIC_API_KEY or the key field",
    403: "this key may not do this: check the key's workspace and permissions",
    408: "the API gave up waiting for the request; the next step tries again",
    413: "the request is too large for the API",
    429: "rate limited",
    500: "the API failed on its side; the next step tries again",
    529: "the API is overloaded: wait a little; the next step tries again",
}


def status_hint(status: int, retry_after: float | None = None) -> str:
    """One clause on what an answer with this status means for the learner ("" for a 400: the API's words say it)."""
    if status == 200:  # an `error` event after the stream began: the status says nothing, the type does
        return "it arrived as an error event in the middle of the reply stream; the next step tries again"
    if status == 429:
        return "rate limited: " + (f"the API asks to wait {retry_after:g} s before trying again"
                                   if retry_after is not None else "wait a little before trying again")
    if status == 400:
        return ""
    return STATUS_HINTS.get(status) or (STATUS_HINTS[500] if status >= 500 else "")


def error_words(exc: Exception) -> str:
    """A model's exception in words: status, type and message where the SDK gives them."""
    status, kind = getattr(exc, "status_code", None), getattr(exc, "type", None)
    message = getattr(exc, "api_message", None) or getattr(exc, "message", None) or str(exc)
    if status:
        return f"{status} {kind}: {message}" if kind else f"{status}: {message}"
    return message if type(exc).__module__.startswith("agent") else f"{type(exc).__name__}: {message}"
