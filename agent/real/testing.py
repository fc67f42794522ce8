"""The stand-in as a test double for any agent: a script served over HTTP or in process, and what it heard.

`serve_script` runs the stand-in server (`running_server`) on a free loopback
port; `FakeModelTransport` answers an `httpx`/`httpx2` client from a FakeModel
with no socket at all. Both check every request with the engine's rules and
keep each one, with its answer, as a `HeardRequest`. A request the rules refuse
is answered with the API's 400, which an agent under test may swallow: the
`ServedScript` keeps the refusal, and `check()` (called by the pytest plugin,
`agent.real.pytest_plugin`, after each test) fails with the API's own words.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.api.requests import LATEST_VERSION, RequestRejected
from agent.models.fake import FakeModel, ScriptExhausted, ThreadNotFound
from agent.real.server_faults import ServerFault
from agent.scripts import Script, load_script, parse_script

IN_PROCESS_URL = "http://stand-in.invalid"  # no such host: only the transport answers it


@dataclass
class HeardRequest:
    """One request the stand-in answered: its body as it arrived, and the answer (a message or an error body)."""

    endpoint: str
    """`messages` or `count_tokens`."""
    body: Any
    status: int
    answer: dict[str, Any]

    @property
    def error(self) -> dict[str, Any] | None:
        """The answer's `error` object (`type`, `message`, maybe `details`), when it was one."""
        return self.answer.get("error") if self.answer.get("type") == "error" else None

    @property
    def failed_check(self) -> bool:
        """Whether this request broke a rule of the API (a 400 that no thread recovery answers), or came after the
        script's last reply."""
        error = self.error or {}
        if self.status == 400:
            return "error_code" not in (error.get("details") or {})  # a thread rejection the SDK recovers from
        return self.status == 500 and str(error.get("message", "")).startswith("the script ")

    def words(self) -> str:
        error = self.error or {}
        return f"{self.status} {error.get('type', '')}: {error.get('message', '')}"


@dataclass
class ServedScript:
    """A script being served, where to reach it, and every request it heard."""

    script: Script
    base_url: str
    transport: Any = None
    """The in-process transport, when there is no server: pass it to the client (`client()` does)."""
    requests: list[HeardRequest] = field(default_factory=list)
    check_at_end: bool = True
    """Whether the pytest plugin fails the test for a failed check after it ran; False when a test expects one."""

    @property
    def failed_checks(self) -> list[HeardRequest]:
        return [heard for heard in self.requests if heard.failed_check]

    def check(self) -> None:
        """Raise AssertionError with the API's own words for each request that failed a check."""
        failed = self.failed_checks
        if not failed:
            return
        paths = {"messages": "/v1/messages", "count_tokens": "/v1/messages/count_tokens"}
        lines = [f"request {self.requests.index(heard) + 1} (POST {paths.get(heard.endpoint, heard.endpoint)}): "
                 f"{heard.words()}" for heard in failed]
        raise AssertionError(f"the stand-in Messages API ({self.script.name!r}) refused {len(failed)} "
                             f"request{'s' if len(failed) != 1 else ''} that the agent sent:\n  " + "\n  ".join(lines))

    def client(self, **options: Any) -> Any:
        """An `anthropic.Anthropic` client pointed here (`options` go to its constructor)."""
        import anthropic
        import httpx2

        if self.transport is not None:
            options.setdefault("http_client", httpx2.Client(transport=self.transport))
        return anthropic.Anthropic(**{"api_key": "stand-in", "base_url": self.base_url, **options})

    def hear(self, endpoint: str, body: Any, answer: Any) -> None:
        """Keep a request and its answer: the server's `on_answer`, and the transport's."""
        if isinstance(answer, dict):
            self.requests.append(HeardRequest(endpoint, body, 200, answer))
        else:  # an ApiError
            self.requests.append(HeardRequest(endpoint, body, answer.status, answer.body("")))


def script_of(script: str | Path | Script | None = None, *, replies: list[dict[str, Any]] | None = None,
              **settings: Any) -> Script:
    """A script from a built-in name, a file path, a Script, or replies given here (with task, tools, system...)."""
    if replies is not None:
        if script is not None:
            raise ValueError("give a script or replies, not both")
        return parse_script({"replies": replies, **settings}, name="replies given in the test", source="the test")
    if script is None:
        raise ValueError("say what to serve: a built-in script's name, a script file's path, or replies=[...]")
    return script if isinstance(script, Script) else load_script(script)


@contextmanager
def serve_script(script: Script, *, mode: str = "lesson", in_process: bool = False,
                 faults: Sequence[ServerFault | dict[str, Any]] = (), order_only: bool = False,
                 strict_models: bool = False) -> Iterator[ServedScript]:
    """Serve `script` on a free loopback port (or, `in_process`, through a transport) until the block ends;
    `faults` (`agent.real.server_faults.ServerFault`s, or dicts of its fields) hit the requests they name, over
    HTTP only. A recording's replay refuses a request that differs from the recorded one, unless `order_only`.
    `strict_models` answers a model name the SDK does not list with the API's 404 (`model: NAME`)."""
    given = tuple(ServerFault(**fault) if isinstance(fault, dict) else fault for fault in faults)
    if in_process and given:
        raise ValueError("faults on demand go over the wire: serve over HTTP (in_process=False) to use them")
    if in_process:
        served = ServedScript(script, IN_PROCESS_URL)
        served.transport = FakeModelTransport(script, mode=mode, on_answer=served.hear, strict_models=strict_models)
        yield served
        return
    from agent.real.server import running_server  # the server only when one is asked for

    with running_server(script, host="127.0.0.1", port=0, mode=mode, faults=given,
                        match_recorded=not order_only, strict_models=strict_models) as server:
        served = ServedScript(script, server.base_url)
        server.on_answer = served.hear
        yield served


class FakeModelTransport:
    """An `httpx` or `httpx2` transport that answers the Messages API from a FakeModel, with no socket.

    `anthropic.Anthropic(http_client=httpx2.Client(transport=FakeModelTransport(script)))` runs whole loops,
    streaming included. The FakeModel plays the script in order and holds one message thread, as a single client's
    run needs; `POST /v1/messages` is the one route.
    """

    def __init__(self, script: Script, *, mode: str = "lesson", version: str = LATEST_VERSION,
                 on_answer: Callable[[str, Any, Any], None] | None = None, strict_models: bool = False) -> None:
        self.model = FakeModel(script, mode=mode, version=version)
        self.on_answer = on_answer
        self.strict_models = strict_models
        """Answer a model name the SDK does not list with the API's 404, as `StandInServer.strict_models`."""

    def handle_request(self, request: Any) -> Any:
        from agent.real.api_errors import ApiError, betas_of, checked_request

        http = sys.modules[type(request).__module__.split(".")[0]]  # answer in the client's own module's types
        body: Any = None
        try:
            if request.method != "POST" or request.url.path.rstrip("/") != "/v1/messages":
                raise ApiError(404, "not_found_error", f"{request.method} {request.url.path}: Not Found")
            body, version = checked_request(request.headers, request.read())
            self._use_version(version, betas_of(request.headers, request.url.query))
            message = self._answer(body)
        except ApiError as error:
            if self.on_answer is not None:
                self.on_answer("messages", body, error)
            request_id = f"req_{uuid.uuid4().hex[:24]}"
            return http.Response(error.status, json=error.body(request_id), request=request,
                                 headers={"request-id": request_id, **error.headers})
        if self.on_answer is not None:
            self.on_answer("messages", body, message)
        if isinstance(body, dict) and body.get("stream") is True:
            return http.Response(200, headers={"content-type": "text/event-stream"}, request=request,
                                 content=_event_bytes(message))
        return http.Response(200, json=message, request=request)

    def _use_version(self, version: str, betas: tuple[str, ...] = ()) -> None:
        """Apply the rules of the request's `anthropic-version` and betas, as the server does."""
        if version != self.model.version:  # the script plays on from where it was
            self.model = FakeModel(self.model.script, mode=self.model.mode, calls=self.model.calls, version=version)
        self.model.use_betas(betas)  # the model, and the thread it holds, stay

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        from agent.api.error_types import STATUS_OF_TYPE
        from agent.real.models import unknown_model
        from agent.real.server import ApiError, estimate_tokens

        try:
            reply = self.model.answer_body(body)
            if self.strict_models and (unknown := unknown_model(body)):
                raise ApiError(404, "not_found_error", unknown)
        except ThreadNotFound as exc:
            raise ApiError(404, exc.type, exc.message, details={"error_code": exc.error_code}) from None
        except RequestRejected as exc:
            raise ApiError(400, "invalid_request_error", exc.message) from None
        except ScriptExhausted as exc:
            raise ApiError(500, "api_error", str(exc), {"x-should-retry": "false"}) from None
        except Exception as exc:  # a script's error entry: the SDK exception the FakeModel raised for it
            status, kind = getattr(exc, "status_code", None), getattr(exc, "type", None)
            said = getattr(exc, "body", None)
            if not isinstance(status, int) or not kind or not isinstance(said, dict):
                raise
            status = status if status >= 400 else STATUS_OF_TYPE.get(kind, 500)
            headers = {"retry-after": "0"} if status == 429 else {}
            raise ApiError(status, kind, said["error"]["message"], headers) from None
        usage = reply.get("usage") or {"input_tokens": estimate_tokens(body.get("system"), body.get("tools"),
                                                                       body.get("messages")),
                                       "output_tokens": estimate_tokens(reply["content"])}
        return {**reply, "model": body.get("model") or "stand-in", "stop_sequence": None, "usage": usage}

    def close(self) -> None:
        pass

    def __enter__(self) -> FakeModelTransport:
        return self

    def __exit__(self, *_: Any) -> None:
        pass


def _event_bytes(message: dict[str, Any]) -> Iterator[bytes]:
    from agent.real.sse import event_bytes, stream_events

    for name, data in stream_events(message):
        yield event_bytes(name, data)
