"""Record an agent's exchange with a real Messages API as a script: `python -m agent record --upstream URL --out FILE`.

A local proxy: the agent's base URL points here, each `POST /v1/messages` goes on to the upstream server (Anthropic's
API, or any compatible one) with the agent's own key, and each answer comes back to the agent as it came. The
exchange is written to FILE after every answer, as a FakeModel script: the replies (content, stop_reason, usage),
the errors in the API's shape, and `recorded_requests` (the messages each reply answered), so the stand-in can
replay it and say where a later run's request differs. A key, or an auth header, is never written: the headers
stay out of the file, and a key that an agent echoed into its messages is cut out of them.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agent.real.api_errors import ApiError, checked_request, log_note
from agent.real.http_transport import ApiHttpServer, serving_in_thread
from agent.real.record import reply_entry
from agent.real.sse import message_from_events
from agent.scripts import parse_script
from agent.tools import TOOLS

FORWARDED_HEADERS = ("x-api-key", "authorization", "anthropic-version", "anthropic-beta", "content-type")
KEY_REMOVED = "[key removed]"
UPSTREAM_TIMEOUT = 600.0  # a long reply from a real model takes minutes


class Recording:
    """The exchanges heard so far, and the script they make."""

    def __init__(self, upstream: str, out: Path) -> None:
        self.upstream, self.out = upstream.rstrip("/"), out
        self.exchanges: list[tuple[dict[str, Any], dict[str, Any]]] = []
        """Each request's body and its script entry (a reply, or `{"error": ...}`)."""
        self.secrets: set[str] = set()
        """The keys the agent sent, to cut out of anything written."""
        self.threads: dict[str, list[dict[str, Any]]] = {}
        """A message thread's whole conversation, by its last reply's id: a `continue` carries only what is new."""
        self.lock = threading.Lock()

    def add(self, body: dict[str, Any], entry: dict[str, Any], reply_id: str | None = None) -> None:
        """One exchange; `body["messages"]` recorded as the whole conversation it stands for."""
        with self.lock:
            said = body.get("thread")
            thread: dict[str, Any] = said if isinstance(said, dict) else {}
            held = self.threads.get(str(thread.get("previous_message_id"))) if thread.get("type") == "continue" \
                else None
            whole = [*(held or []), *body.get("messages", [])]
            if reply_id and "content" in entry:
                self.threads[reply_id] = [*whole, {"role": "assistant", "content": entry["content"]}]
            self.exchanges.append(({**body, "messages": whole}, entry))
            self.out.write_text(self.script_text())

    def script_text(self) -> str:
        first = self.exchanges[0][0]
        task = next((m.get("content") for m in first.get("messages", []) if m.get("role") == "user"), None)
        tools = [tool.get("name") for tool in first.get("tools") or [] if isinstance(tool, dict)]
        data: dict[str, Any] = {
            "title": f"Recorded from {self.upstream}",
            "about": f"{len(self.exchanges)} requests to {self.upstream}, recorded by `python -m agent record`.",
            "task": task if isinstance(task, str) and task else "Recorded task",
            "system": first.get("system") if isinstance(first.get("system"), str) else "",
            "replies": [entry for _, entry in self.exchanges],
            "recorded_requests": [body.get("messages", []) for body, _ in self.exchanges]}
        if tools and all(name in TOOLS for name in tools):
            data["tools"] = tools  # a script names built-in tools only; others are the agent's own business
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        for secret in self.secrets:
            text = text.replace(json.dumps(secret)[1:-1], KEY_REMOVED)
        parse_script(json.loads(text), name=self.out.stem, source=str(self.out))  # a file that always loads
        return text


class RecordingProxy(ApiHttpServer):
    """The proxy: `POST /v1/messages` forwarded upstream and recorded; nothing else is served."""

    def __init__(self, upstream: str, out: Path, host: str = "127.0.0.1", port: int = 8766) -> None:
        self.recording = Recording(upstream, out)
        super().__init__((host, port), [Route("/v1/messages", self.messages, methods=["POST"])])

    async def messages(self, request: Request) -> Response:
        import httpx2  # the SDK's HTTP client: only the proxy needs it

        raw = await request.body()
        body, _ = checked_request(request.headers, raw)
        headers = {name: value for name in FORWARDED_HEADERS if (value := request.headers.get(name))}
        for name in ("x-api-key", "authorization"):
            if name in headers:
                self.recording.secrets.add(headers[name].removeprefix("Bearer ").strip())
        try:
            async with httpx2.AsyncClient(timeout=UPSTREAM_TIMEOUT) as client:
                answer = await client.post(f"{self.recording.upstream}/v1/messages", content=raw, headers=headers)
        except httpx2.HTTPError as exc:
            raise ApiError(502, "api_error", f"the upstream {self.recording.upstream} did not answer: "
                                             f"{type(exc).__name__}") from None
        kind = answer.headers.get("content-type", "")
        if answer.status_code >= 400:
            error = (answer.json().get("error") if kind.startswith("application/json") else None) or {}
            self.recording.add(body, {"error": {"status": answer.status_code, "type": error.get("type", "api_error"),
                                                "message": error.get("message", answer.text[:200])}})
        elif kind.startswith("text/event-stream"):
            said = message_from_events(answer.text)
            reply_id = said.get("id")
            self.recording.add(body, said if "error" in said else reply_entry(said),
                               reply_id if isinstance(reply_id, str) else None)
        else:
            reply = answer.json()
            self.recording.add(body, reply_entry(reply), reply.get("id"))
        log_note(request, f"recorded exchange {len(self.recording.exchanges)}")
        passed = {name: value for name, value in answer.headers.items()
                  if name in ("content-type", "request-id", "retry-after")}
        return Response(answer.content, status_code=answer.status_code, headers=passed)


@contextmanager
def recording_proxy(upstream: str, out: Path, host: str = "127.0.0.1", port: int = 0) -> Iterator[RecordingProxy]:
    """A recording proxy answering in a background thread; stopped on leaving the block."""
    proxy = RecordingProxy(upstream, out, host, port)
    with serving_in_thread(proxy, "recording-proxy"):
        yield proxy

