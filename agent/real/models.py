"""`GET /v1/models` and `GET /v1/models/{id}` for the stand-in, in the API's shape.

The stand-in answers to any model name; it lists the names the installed SDK
knows (the `model` literal of `MessageCreateParams`, kept in the request schema
file), so a client that picks a model from the list finds the usual ones. Their
release dates are unknown here, and the API's own rule for that is an epoch
`created_at`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from agent.api import schema

UNKNOWN_DATE = "1970-01-01T00:00:00Z"
DEFAULT_LIMIT, MAX_LIMIT = 20, 1000


def model_names() -> list[str]:
    """The model names the stand-in lists, in the SDK's order."""
    model = schema.definition(schema.schema()["create"])["fields"]["model"]
    return [name for member in model["union"] if isinstance(member, dict) and "literal" in member
            for name in member["literal"]]


def _info(name: str) -> dict[str, Any]:
    return {"type": "model", "id": name, "display_name": f"{name} (played by the stand-in)",
            "created_at": UNKNOWN_DATE, "lifecycle": "active"}


def model_named(name: str) -> dict[str, Any] | None:
    """One model's entry, or None when the list has no such name."""
    return _info(name) if name in model_names() else None


def unknown_model(body: Any) -> str | None:
    """The API's words for a request naming a model it does not serve (a 404 `not_found_error`), or None."""
    name = body.get("model") if isinstance(body, dict) else None
    return f"model: {name}" if isinstance(name, str) and name not in model_names() else None


def model_list(path: str) -> dict[str, Any]:
    """A page of the list, paged as the API pages it: `limit`, `after_id`, `before_id`."""
    query = {key: values[-1] for key, values in parse_qs(urlsplit(path).query).items()}
    names = model_names()
    try:
        limit = min(max(int(query.get("limit", DEFAULT_LIMIT)), 1), MAX_LIMIT)
    except ValueError:
        limit = DEFAULT_LIMIT
    if query.get("after_id") in names:
        names = names[names.index(query["after_id"]) + 1:]
        page, more = names[:limit], len(names) > limit
    elif query.get("before_id") in names:
        names = names[:names.index(query["before_id"])]
        page, more = names[-limit:], len(names) > limit
    else:
        page, more = names[:limit], len(names) > limit
    return {"data": [_info(name) for name in page], "has_more": more,
            "first_id": page[0] if page else None, "last_id": page[-1] if page else None}
