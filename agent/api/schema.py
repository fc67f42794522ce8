"""The Messages API's request body: every field, its type, and the API's words when one is wrong.

The schema itself is data, `agent/api/api_schema.json`, read from the `anthropic`
SDK's own param types (`MessageCreateParams`, `MessageCountTokensParams` and the
`ContentBlockParam` members they reach) by `tests/sdk_schema.py`; a test fails
when the installed SDK and the file part ways. The engine never imports the SDK.
A request that names a beta (the `anthropic-beta` header) is checked against the
beta types instead, `api_beta_schema.json`, written the same way from
`anthropic.types.beta`; a beta field sent without a beta is an extra input.

`problems(value, node, path)` walks a JSON value against a schema node and says
what is wrong in the API's path form and wording (the wording is pydantic's
strict mode, which the API's 400s quote: `messages.1.content.0.thinking.signature:
Field required`, `...: Extra inputs are not permitted`, `...: Input should be a
valid boolean`). It never raises, whatever JSON value it is given.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).resolve().parent / "api_schema.json"
BETA_SCHEMA_FILE = SCHEMA_FILE.with_name("api_beta_schema.json")
MAX_PROBLEMS = 20  # the API answers with the first; a few more help `check-request`

# Version 2023-06-01 takes the sampling fields that 2026-10-21 dropped (and that SDK 2.x no longer lists).
SAMPLING_FIELDS = {"temperature": "float", "top_p": "float", "top_k": "int"}


@cache
def schema(beta: bool = False) -> dict[str, Any]:
    """The schema file (the beta one when `beta`), read once."""
    loaded: dict[str, Any] = json.loads((BETA_SCHEMA_FILE if beta else SCHEMA_FILE).read_text())
    return loaded


@cache
def _definitions() -> dict[str, Any]:
    # One namespace: every beta type's name starts with `Beta`, so the files never name one type twice.
    return {**schema(True)["definitions"], **schema()["definitions"]}


def definition(name: str) -> dict[str, Any]:
    """One TypedDict of either schema: `{"fields": {name: node}, "required": [...]}`."""
    found: dict[str, Any] = _definitions()[name]
    return found


def _say(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else json.dumps(value)


def _literal_words(values: list[Any]) -> str:
    words = [_say(v) for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


_literal_pairs: dict[int, frozenset[tuple[type, Any]]] = {}


def _kind_matches(value: Any, node: Any) -> bool:
    """Whether a union member is the one a value of this JSON kind is checked against."""
    if isinstance(node, str):
        return {"str": isinstance(value, str), "bool": isinstance(value, bool), "null": value is None,
                "int": isinstance(value, int) and not isinstance(value, bool),
                "float": isinstance(value, int | float) and not isinstance(value, bool), "any": True}[node]
    if "literal" in node:
        if not isinstance(value, str | int | float | bool):
            return False
        pairs = _literal_pairs.get(id(node))
        if pairs is None:
            pairs = _literal_pairs[id(node)] = frozenset((type(v), v) for v in node["literal"])
        return (type(value), value) in pairs
    if "list" in node:
        return isinstance(value, list)
    return isinstance(value, dict)  # map or ref


def _tag_of(node: Any, key: str) -> list[Any] | None:
    """The literal values of a referenced definition's `key` field, when it has one."""
    if not (isinstance(node, dict) and "ref" in node):
        return None
    field = definition(node["ref"])["fields"].get(key)
    return field["literal"] if isinstance(field, dict) and "literal" in field else None


_plans: dict[int, tuple[str, bool, dict[str, Any]] | None] = {}


def _plan(members: list[Any]) -> tuple[str, bool, dict[str, Any]] | None:
    """How a union of objects is told apart: by `type` (said in the path) or by `role` (not), or None."""
    key_of = id(members)  # the schema is read once and never freed, so a node's id names it
    if key_of not in _plans:
        refs = [m for m in members if isinstance(m, dict) and "ref" in m]
        _plans[key_of] = None
        for key, in_path in (("type", True), ("role", False)):
            tagged = [m for m in refs if _tag_of(m, key)]
            if len(tagged) > 1 and len(tagged) == len(refs):
                _plans[key_of] = (key, in_path, {tag: m for m in tagged for tag in _tag_of(m, key) or []})
                break
    return _plans[key_of]


def _union(value: Any, members: list[Any], path: str, out: list[str]) -> None:
    plan = _plan(members) if isinstance(value, dict) else None
    if plan is not None:
        _tagged(value, *plan, path, out)
        return
    fitting = [m for m in members if _kind_matches(value, m)]
    for member in fitting:
        found: list[str] = []
        problems(value, member, path, found)
        if not found:
            return
    if fitting:  # the nearest member's problems: the first that the value's kind fits
        problems(value, fitting[0], path, out)
        return
    # No member takes this kind of value: say what the first list or object member wants, as the API does.
    preferred = next((m for m in members if isinstance(m, dict) and "list" in m), None) or \
        next((m for m in members if isinstance(m, dict) and "ref" in m), members[0])
    problems(value, preferred, path, out)


def _tagged(value: dict[str, Any], key: str, in_path: bool, tags: dict[str, Any], path: str, out: list[str]) -> None:
    """A union told apart by one field (`type` for blocks; `role` for messages, which the path leaves out)."""
    tag = value.get(key, _MISSING)
    if tag is _MISSING:
        out.append(f"{path}: Unable to extract tag using discriminator '{key}'")
    elif not isinstance(tag, str) or tag not in tags:
        if key == "role":
            # The SDK lists a `system` role, but the API answers a system message with its own words (agent.api.rules).
            out.append(f"{path}.role: Input should be {_literal_words([t for t in tags if t != 'system'])}")
        else:
            out.append(f"{path}: Input tag {_say(tag) if isinstance(tag, str) else repr(tag)} found using "
                       f"'{key}' does not match any of the expected tags: {', '.join(map(_say, tags))}")
    else:
        problems(value, tags[tag], f"{path}.{tag}" if in_path else path, out)


_MISSING = object()


def _object(value: Any, name: str, path: str, out: list[str], extra: dict[str, Any] | None = None) -> None:
    if not isinstance(value, dict):
        out.append(f"{path}: Input should be a valid dictionary")
        return
    spec = definition(name)
    fields = {**spec["fields"], **(extra or {})}
    prefix = f"{path}." if path else ""
    for key in spec["required"]:
        if key not in value:
            out.append(f"{prefix}{key}: Field required")
    for key, item in value.items():
        if len(out) >= MAX_PROBLEMS:
            return
        node = fields.get(key) if isinstance(key, str) else None
        if node is None:
            out.append(f"{prefix}{key}: Extra inputs are not permitted")
        else:
            problems(item, node, f"{prefix}{key}", out)


def problems(value: Any, node: Any, path: str, out: list[str] | None = None) -> list[str]:
    """What is wrong with `value` as the schema `node` (a type name or a dict), each said at its path."""
    out = [] if out is None else out
    if len(out) >= MAX_PROBLEMS:
        return out
    if isinstance(node, str):
        if not _kind_matches(value, node):
            wanted = {"str": "a valid string", "bool": "a valid boolean", "int": "a valid integer",
                      "float": "a valid number", "null": "None"}[node]
            out.append(f"{path}: Input should be {wanted}")
    elif "literal" in node:
        if not _kind_matches(value, node):
            out.append(f"{path}: Input should be {_literal_words(node['literal'])}")
    elif "list" in node:
        if not isinstance(value, list):
            out.append(f"{path}: Input should be a valid list")
        else:
            for index, item in enumerate(value):
                problems(item, node["list"], f"{path}.{index}", out)
                if len(out) >= MAX_PROBLEMS:
                    break
    elif "map" in node:
        if not isinstance(value, dict):
            out.append(f"{path}: Input should be a valid dictionary")
        elif node["map"] != "any":
            for key, item in value.items():
                problems(item, node["map"], f"{path}.{key}", out)
    elif "ref" in node:
        _object(value, node["ref"], path, out)
    else:
        _union(value, node["union"], path, out)
    return out


def body_problems(body: dict[str, Any], endpoint: str = "create", sampling: bool = False,
                  beta: bool = False) -> list[str]:
    """The top level of a request body, its messages left out (they are checked one by one, incrementally).

    `endpoint` is `create` (`/v1/messages`) or `count_tokens`; `sampling` lets the
    fields that API version 2023-06-01 still takes (temperature, top_p, top_k) through; `beta` checks
    it against the beta types.
    """
    name = schema(beta)[endpoint]
    out: list[str] = []
    top = {key: [] if key == "messages" else value for key, value in body.items()}
    _object(top, name, "", out, SAMPLING_FIELDS if sampling and endpoint == "create" else None)
    max_tokens = body.get("max_tokens")
    if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and max_tokens < 0:
        out.append("max_tokens: Input should be greater than or equal to 0")  # 0 only warms the prompt cache
    return out


def message_node(beta: bool = False) -> Any:
    """The schema node of one message (user, assistant or system), of the beta types when `beta`."""
    return definition(schema(beta)["create"])["fields"]["messages"]["list"]


def system_message_node() -> Any:
    """The schema node of a `system` message inside `messages` (the beta types only)."""
    return {"ref": "BetaSystemMessageParam"}
