"""The request body's schema, read from the installed `anthropic` SDK's own param types.

The engine checks requests against `agent/api/api_schema.json` and never imports
the SDK. This module reads the SDK's TypedDicts (`MessageCreateParams`,
`MessageCountTokensParams`, the beta `thread` param) with `typing.get_type_hints`
and writes the same JSON, so a test can say when the SDK has moved and the file
is stale. To bring the file up to date after upgrading the SDK:

    python tests/sdk_schema.py        # rewrites agent/api/api_schema.json and api_beta_schema.json

The beta request types (`anthropic.types.beta`: what `client.beta.messages` sends) go to
their own file, read the same way; their top-level names get a `Beta` prefix, as every
other beta type already has, so the two files' definitions never clash.
"""

from __future__ import annotations

import collections.abc
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

import typing_extensions

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "agent" / "api" / "api_schema.json"
BETA_SCHEMA_FILE = SCHEMA_FILE.with_name("api_beta_schema.json")
LIST_ORIGINS = (list, collections.abc.Iterable, collections.abc.Sequence, tuple, set, frozenset)
MAP_ORIGINS = (dict, collections.abc.Mapping)


class _Reader:
    """Walks type hints into schema nodes, collecting every TypedDict it meets as a definition."""

    def __init__(self) -> None:
        self.definitions: dict[str, dict[str, Any]] = {}

    def node(self, hint: Any) -> Any:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Annotated:
            return self.node(args[0])
        if origin in (typing.Required, typing.NotRequired, typing_extensions.Required, typing_extensions.NotRequired):
            return self.node(args[0])
        if hint is str or hint is bytes:
            return "str"
        if hint is bool:
            return "bool"
        if hint is int:
            return "int"
        if hint is float:
            return "float"
        if hint is type(None):
            return "null"
        if hint is object or hint is Any:
            return "any"
        if origin is typing.Literal:
            # Sorted: typing caches equal Literals, so the order a hint shows depends on what was imported first.
            return {"literal": sorted(args, key=repr)}
        if origin in (typing.Union, types.UnionType):
            members: list[Any] = []
            for arg in args:
                if _is_response_model(arg):
                    continue  # a reply's block object, which the SDK sends in its param shape
                member = self.node(arg)
                if member is None:
                    continue
                for one in member["union"] if isinstance(member, dict) and "union" in member else [member]:
                    if one not in members:  # nested unions flattened, repeats dropped
                        members.append(one)
            if not members:
                return None  # a union of reply objects only: nothing a JSON body can hold
            return members[0] if len(members) == 1 else {"union": members}
        if origin in LIST_ORIGINS:
            return {"list": self.node(args[0]) if args else "any"}
        if origin in MAP_ORIGINS:
            return {"map": self.node(args[1]) if len(args) == 2 else "any"}
        if typing_extensions.is_typeddict(hint):
            return {"ref": self.define(hint)}
        if origin is typing.IO or hint is typing.IO or (isinstance(hint, type) and issubclass(hint, bytes | bytearray)):
            return "str"  # file inputs are sent as base64 text
        if isinstance(hint, typing.TypeVar):
            return "any"
        if getattr(hint, "__module__", "").startswith("os") or "PathLike" in repr(hint):
            return "str"
        raise TypeError(f"no schema node for {hint!r}")

    def define(self, typed_dict: Any) -> str:
        name = typed_dict.__name__
        if name in self.definitions:
            return name
        self.definitions[name] = {}  # claimed first: a type may refer to itself
        hints = typing.get_type_hints(typed_dict, include_extras=True)
        fields, required = {}, []
        for key, hint in hints.items():
            wire_name = _alias(hint) or key
            fields[wire_name] = self.node(hint)
            if _is_required(typed_dict, key, hint):
                required.append(wire_name)
        self.definitions[name] = {"fields": fields, "required": sorted(required)}
        return name


def _is_response_model(hint: Any) -> bool:
    return isinstance(hint, type) and any(base.__name__ == "BaseModel" for base in hint.__mro__)


def _alias(hint: Any) -> str | None:
    while True:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is typing.Annotated:
            for meta in hint.__metadata__:
                alias = getattr(meta, "alias", None)
                if isinstance(alias, str):
                    return alias
            hint = args[0]
        elif origin in (typing.Required, typing.NotRequired):
            hint = args[0]
        else:
            return None


def _is_required(typed_dict: Any, key: str, hint: Any) -> bool:
    # With `from __future__ import annotations` the SDK's `__required_keys__` can be empty; the hint tells.
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if typing.get_origin(hint) is typing.Required:
        return True
    if typing.get_origin(hint) is typing.NotRequired:
        return False
    return key in typed_dict.__required_keys__ and typed_dict.__total__


def read_sdk_schema() -> dict[str, Any]:
    """The request schema as the installed SDK's types give it."""
    import anthropic
    from anthropic.types import message_count_tokens_params, message_create_params
    from anthropic.types.beta import BetaMessageThreadParam

    reader = _Reader()
    create = reader.define(message_create_params.MessageCreateParamsBase)
    count = reader.define(message_count_tokens_params.MessageCountTokensParams)
    reader.definitions[create]["fields"]["stream"] = "bool"  # the streaming and non-streaming variants, merged
    # Message threads are a beta (`message-threads-2026-08-12`) that the stand-in serves, so the body takes `thread`.
    reader.definitions[create]["fields"]["thread"] = {"union": [*reader.node(BetaMessageThreadParam)["union"], "null"]}
    return {"sdk_version": anthropic.__version__, "api_version": anthropic._constants.ANTHROPIC_API_VERSION,
            "create": create, "count_tokens": count, "definitions": reader.definitions}


def read_sdk_beta_schema() -> dict[str, Any]:
    """The beta request schema (`client.beta.messages.create` and `.count_tokens`) as the installed SDK gives it."""
    import anthropic
    from anthropic.types.beta import BetaJSONOutputFormatParam, message_count_tokens_params, message_create_params

    reader = _Reader()
    names = {}
    for endpoint, params in (("create", message_create_params.MessageCreateParamsBase),
                             ("count_tokens", message_count_tokens_params.MessageCountTokensParams)):
        name = reader.define(params)
        spec = reader.definitions.pop(name)
        spec["fields"].pop("betas", None)  # the SDK sends `betas` as the anthropic-beta header, not in the body
        spec["required"] = [key for key in spec["required"] if key != "betas"]
        names[endpoint] = f"Beta{name}"
        reader.definitions[names[endpoint]] = spec
    reader.definitions[names["create"]]["fields"]["stream"] = "bool"
    # The API still takes `output_format` (the SDK's own docstrings name requests "with `output_format` set"; its
    # `parse` helper moves it into `output_config.format`), and traceloop/openllmetry recorded a 200 for it.
    reader.definitions[names["create"]]["fields"]["output_format"] = {
        "union": [{"ref": reader.define(BetaJSONOutputFormatParam)}, "null"]}
    return {"sdk_version": anthropic.__version__, "api_version": anthropic._constants.ANTHROPIC_API_VERSION,
            **names, "definitions": reader.definitions}


def schema_text(schema: dict[str, Any]) -> str:
    """The file's text: one definition a line, so a diff shows what the SDK changed."""
    lines = ["{"]
    for key in ("sdk_version", "api_version", "create", "count_tokens"):
        lines.append(f"  {json.dumps(key)}: {json.dumps(schema[key])},")
    lines.append('  "definitions": {')
    names = sorted(schema["definitions"])
    for k, name in enumerate(names):
        comma = "," if k < len(names) - 1 else ""
        lines.append(f"    {json.dumps(name)}: {json.dumps(schema['definitions'][name], sort_keys=True)}{comma}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    SCHEMA_FILE.write_text(schema_text(read_sdk_schema()))
    BETA_SCHEMA_FILE.write_text(schema_text(read_sdk_beta_schema()))
    print(f"wrote {SCHEMA_FILE} and {BETA_SCHEMA_FILE}", file=sys.stderr)
