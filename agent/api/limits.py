"""Refusals the API makes of a whole body beyond its schema, in its own words (real-API mode).

The schema (`agent.api.schema`) says what each field is; these are the rules between
fields and the limits of the service: a thinking budget inside `max_tokens`, a tool's
`input_schema` that is JSON Schema, and the request's total text. The API's token
limit needs the model's tokenizer and is not checked (docs/request-rules.md).
"""

from __future__ import annotations

from typing import Any

from agent.api.rules import blocks_of

MAX_TEXT_BYTES = 9_000_000
"""The API's limit on the UTF-8 bytes of all text in a request (`too many total text bytes`)."""
INVALID_SCHEMA = ("tools.{index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 "
                  "(https://json-schema.org/draft/2020-12). Learn more about tool use at "
                  "https://docs.claude.com/en/docs/tool-use.")
JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
# Keywords whose value is one schema, a list of schemas, or a map of names to schemas (draft 2020-12).
ONE_SCHEMA = ("additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames",
              "unevaluatedItems", "unevaluatedProperties", "additionalItems")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains",
          "maxContains")
NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
STRINGS = ("$ref", "$id", "$schema", "$anchor", "pattern", "format", "title", "description", "$comment")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def schema_is_valid(node: Any) -> bool:
    """Whether a value is a JSON Schema (draft 2020-12) as far as the shape of its keywords goes."""
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not all(isinstance(k, str) and k in JSON_TYPES for k in kinds) or len(set(kinds)) < len(kinds):
            return False
    for key, value in node.items():
        if key in ONE_SCHEMA and not schema_is_valid(value):
            return False
        if key in SCHEMA_LISTS and not (isinstance(value, list) and value and all(map(schema_is_valid, value))):
            return False
        if key in SCHEMA_MAPS and not (isinstance(value, dict) and all(map(schema_is_valid, value.values()))):
            return False
        if key in COUNTS and not (_is_int(value) and value >= 0):
            return False
        if key in NUMBERS and not _is_number(value):
            return False
        if key in STRINGS and not isinstance(value, str):
            return False
        if key == "required" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)
                                      and len(set(value)) == len(value)):
            return False
        if key == "enum" and not isinstance(value, list):
            return False
    return True


def _text_bytes(body: dict[str, Any]) -> int:
    """The UTF-8 bytes of the request's text: the system prompt and every text block, tool results' included."""
    def of(content: Any) -> int:
        total = 0
        for block in blocks_of(content):
            if isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    total += len(block["text"].encode("utf-8", "surrogatepass"))
                if block.get("type") == "tool_result":
                    total += of(block.get("content"))
        return total
    messages = body.get("messages")
    total = of(body.get("system"))
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict):
            total += of(message.get("content"))
    return total


def field_problems(body: dict[str, Any]) -> list[str]:
    """What the API refuses in the fields of a body (its messages aside) that the schema accepted, in its words."""
    problems = []
    thinking, max_tokens = body.get("thinking"), body.get("max_tokens")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled" and _is_int(max_tokens) \
            and _is_int(thinking.get("budget_tokens")) and max_tokens <= thinking["budget_tokens"]:
        problems.append("`max_tokens` must be greater than `thinking.budget_tokens`.")
    tools = body.get("tools")
    for index, tool in enumerate(tools if isinstance(tools, list) else []):
        if isinstance(tool, dict) and "input_schema" in tool and not schema_is_valid(tool["input_schema"]):
            problems.append(INVALID_SCHEMA.format(index=index))
    return problems


def size_problems(body: dict[str, Any]) -> list[str]:
    """The API's limit on a whole body's text, in its words."""
    size = _text_bytes(body)
    return [f"too many total text bytes: {size} > {MAX_TEXT_BYTES}"] if size > MAX_TEXT_BYTES else []
