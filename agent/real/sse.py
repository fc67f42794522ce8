"""The Messages API's server-sent events, both ways: a message as the events that deliver it, and back.

The stand-in (`agent.real.server`) and the in-process transport (`agent.real.testing`) stream a reply with
`stream_events`; the recorder (`agent.real.recorder`) reads a real server's stream back into its message with
`message_from_events`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a type only: reading and writing events needs no web framework
    from agent.real.api_errors import ApiError


def _text_pieces(text: str) -> list[str]:
    return [piece for piece in re.findall(r"\S*\s*", text) if piece]  # word by word, spaces kept


def _json_pieces(value: Any) -> list[str]:
    # Cut after commas only: never inside an escape sequence, so every prefix parses as partial JSON.
    return [piece for piece in re.findall(r"[^,]*,?", json.dumps(value)) if piece]


def stream_events(message: dict[str, Any], error: ApiError | None = None,
                  request_id: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events that deliver `message`, in the API's order; an error cuts in after the start."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**usage, "output_tokens": min(1, usage.get("output_tokens", 0))}}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    if error is not None:
        yield "error", error.body(request_id)
        return
    for index, block in enumerate(message["content"]):
        kind = block.get("type")
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            opening = {**block, "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in _text_pieces(block["text"])]
        elif kind == "thinking":
            opening = {key: value for key, value in block.items() if key != "signature"} | {"thinking": ""}
            deltas = [{"type": "thinking_delta", "thinking": piece} for piece in _text_pieces(block["thinking"])]
            if "signature" in block:
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            opening = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in _json_pieces(block["input"])]
        else:  # redacted_thinking and the like arrive whole
            opening = block
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": opening}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                            "usage": usage}
    yield "message_stop", {"type": "message_stop"}


def message_from_events(text: str) -> dict[str, Any] | dict[str, dict[str, Any]]:
    """The message a stream of server-sent events delivered, or `{"error": {...}}` for a stream an error cut."""
    message: dict[str, Any] = {}
    blocks: list[dict[str, Any]] = []
    partial: dict[int, str] = {}
    for chunk in text.split("\n\n"):
        data = next((line[5:].strip() for line in chunk.splitlines() if line.startswith("data:")), None)
        if not data:
            continue
        event = json.loads(data)
        kind = event.get("type")
        if kind == "message_start":
            message = dict(event["message"])
        elif kind == "content_block_start":
            blocks.append(dict(event["content_block"]))
        elif kind == "content_block_delta":
            delta, block = event["delta"], blocks[event["index"]]
            if delta["type"] == "text_delta":
                block["text"] = block.get("text", "") + delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
        elif kind == "content_block_stop" and event["index"] in partial:
            blocks[event["index"]]["input"] = json.loads(partial.pop(event["index"]) or "{}")
        elif kind == "message_delta":
            message["stop_reason"] = event["delta"].get("stop_reason")
            message["usage"] = {**message.get("usage", {}), **event.get("usage", {})}
        elif kind == "error":
            return {"error": {"status": 200, "type": event["error"]["type"], "message": event["error"]["message"],
                              "mid_stream": True}}
    return {**message, "content": blocks}


EVENT_STREAM = ("text/event-stream", b"text/event-stream; charset=utf-8")


def event_bytes(name: str, data: dict[str, Any]) -> bytes:
    """One server-sent event, as the API writes it."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
