"""The real model: the FakeModel's `create`, answered by a model through the `anthropic` SDK.

`AnthropicModel.create` streams the reply with `client.messages.stream(...)`,
hands each piece of text and of a tool call's input to `on_event` as it
arrives, and returns the final message as the same plain dict the FakeModel
returns (`model_dump(mode="json", exclude_none=True)`), so thinking blocks and
their signatures go back to the API unchanged.

Before anything is sent, the engine's request checker runs in real-API mode:
a request the API would refuse raises `RequestRejected` and is not sent,
unless `send_anyway` is set. Any failure of the call raises `ModelCallError`,
whose words say what went wrong and what to do, and never hold the key; the
loop turns it into a state of the run (a 400 ends the run, anything else is a
failed attempt that the next Step tries again).

With a `thread` (the loop's Message threads switch), the call goes through the
SDK's threads beta as its tool runner sends it: `client.beta.messages.stream`
with the `message-threads-2026-08-12` beta and the `thread` field; a `continue`
carries only the new messages, and is checked whole with the conversation this
model holds for the reply it continues. A rejection the SDK replays from
(`thread_not_found`, `thread_already_continued`, `thread_continue_in_flight` in
`error.details.error_code`) keeps its code in `ModelCallError.error_code`, for
the loop to fall back on.

The base URL is settable, so the same code reaches Anthropic or any server
that speaks the Messages API: Ollama 0.14+, llama.cpp's `llama-server`, vLLM,
the LiteLLM proxy, or `python -m agent serve`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from agent.api.error_types import error_words, retryable_status, status_hint
from agent.api.requests import RequestChecker
from agent.scripts import MAX_USAGE
from agent.untrusted import UntrustedInputError, check_value

DEFAULT_MODEL = "claude-haiku-4-5"  # cheap and quick: a loop sends the whole conversation every turn
DEFAULT_TIMEOUT = 120.0  # seconds for one call; the SDK's own default is ten minutes
DEFAULT_MAX_RETRIES = 2  # the SDK's default: 408, 409, 429, 5xx and lost connections are retried with backoff

MIN_SECRET_LENGTH = 8
MESSAGE_THREADS_BETA = "message-threads-2026-08-12"  # the SDK's `lib/threads`, as its tool runner sends it
HELD_THREADS = 64  # conversations held for a `continue`: a run's last reply, and those its forks continue from

EventCallback = Callable[[dict[str, Any]], None]

class ModelCallError(Exception):
    """A model call that failed; `str()` is one line for a person, and never holds the key.

    It carries what `agent.api.error_types.error_words` reads: `status_code` (None when
    no answer came), the error's `type` and `api_message`.
    """

    def __init__(self, api_message: str, status_code: int | None = None, kind: str | None = None,
                 retry_after: float | None = None, request_id: str | None = None, retryable: bool = False,
                 error_code: str | None = None) -> None:
        super().__init__(api_message)
        self.api_message = api_message
        self.status_code = status_code
        self.type = kind
        self.error_code = error_code
        """`error.details.error_code` of the answer, where it has one (e.g. `thread_not_found`)."""
        self.retry_after = retry_after
        """Seconds the API asked to wait before trying again (429), when it said."""
        self.request_id = request_id
        self.retryable = retryable
        """Worth trying again as it is, by the SDK's rule: no answer, or 408, 409, 429, 5xx, or an overload
        said mid-stream."""

    def __str__(self) -> str:
        return error_words(self)  # the words the loop records, so every place says the same


class AnthropicModel:
    """A model behind the Messages API, with the FakeModel's `create(...)`."""

    holds_threads = True
    """It takes `thread` (create, continue) as the FakeModel does, through the SDK's threads beta."""

    def __init__(self, api_key: str | None, model: str = DEFAULT_MODEL, base_url: str | None = None,
                 on_event: EventCallback | None = None, *, max_retries: int = DEFAULT_MAX_RETRIES,
                 timeout: float = DEFAULT_TIMEOUT, http_client: Any = None) -> None:
        self._api_key = (api_key or "").strip()
        self.model = (model or "").strip() or DEFAULT_MODEL
        self.base_url = (base_url or "").strip() or None
        """None means the SDK's default (`ANTHROPIC_BASE_URL`, else https://api.anthropic.com)."""
        self.on_event = on_event
        """Called with `{"type": "text", "text": ...}` and `{"type": "input_json", "partial_json": ...,
        "name": ...}` while a reply arrives."""
        self.max_retries = max_retries
        self.timeout = timeout
        self.http_client = http_client
        """An `httpx2.Client` for the SDK to send through (e.g. one on `agent.real.testing`'s in-process transport)."""
        self.send_anyway = False
        """Send a request even though the real-API check refused it (to see the API's own answer)."""
        # The API's thinking signatures are its own to verify: the pre-flight checks that one is there, not its value.
        self._checker = RequestChecker("real-api", verify_signatures=False)
        self._client: Any = None
        self._threads: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        """The conversation each recent threaded reply ends, by its id: what a `continue` from it is checked with."""

    def __repr__(self) -> str:  # the key stays out of every repr, log line and page
        key = "set" if self._api_key else "missing"
        return f"AnthropicModel(model={self.model!r}, base_url={self.base_url!r}, key={key})"

    def create(self, messages: list[dict[str, Any]], *, system: str = "", tools: list[dict[str, Any]] | None = None,
               max_tokens: int = 1024, thread: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        """Check the request, stream the reply, and return it as a plain dict in the API's shape.

        `thread`: `{"type": "create"}`, or `{"type": "continue", "previous_message_id": ...}` with only the
        messages after that reply (and no system or tools: the thread keeps them).
        """
        whole = self._whole_conversation(messages, thread)
        if not self.send_anyway:
            self._checker.require(whole)  # RequestRejected: the loop ends the run as a bad request
        params = self._params(messages, system, tools, max_tokens=max_tokens)
        client = self._connect()
        failure = None
        try:
            if thread is None:
                opened = client.messages.stream(**params)
            else:  # as the SDK's tool runner sends a thread's turn
                opened = client.beta.messages.stream(**params, thread=thread, betas=[MESSAGE_THREADS_BETA])
            with opened as stream:
                self._pass_on(stream)
                final = stream.get_final_message()
        except Exception as exc:
            failure = self._explain(exc)
        if failure is not None:  # raised out here, so it does not chain the SDK's error and its request's headers
            raise failure
        reply = final.model_dump(mode="json", exclude_none=True)
        self._require_sane_reply(reply)
        if thread is not None:
            self._hold(reply, whole)
        # A server may echo the key inside a reply: it never enters the run, so no card, frame or export holds it.
        hidden: dict[str, Any] = self._hide_key_in(reply)
        return hidden

    def _whole_conversation(self, messages: list[dict[str, Any]], thread: dict[str, Any] | None) -> list[Any]:
        """The conversation a request stands for: on a `continue`, what the thread holds, then the new messages.

        A `continue` from a reply this model did not receive cannot be checked, and is answered as the API
        answers a thread it has lost, so the loop sends the whole array instead.
        """
        if thread is None or thread.get("type") != "continue":
            return messages
        previous = thread.get("previous_message_id")
        held = self._threads.get(previous) if isinstance(previous, str) else None
        if held is None:
            raise ModelCallError(f"thread.previous_message_id: this client holds no conversation up to {previous} "
                                 "(it did not receive that reply), so it cannot check a continue from it",
                                 error_code="thread_not_found")
        return [*held, *messages]

    def _hold(self, reply: dict[str, Any], whole: list[Any]) -> None:
        """Hold the conversation a threaded reply ends, for a `continue` from it; the oldest go past the bound."""
        self._threads[reply["id"]] = [*whole, {"role": "assistant", "content": reply["content"]}]
        while len(self._threads) > HELD_THREADS:
            self._threads.popitem(last=False)

    def _require_sane_reply(self, reply: dict[str, Any]) -> None:
        """Refuse what no real reply holds (a server's garbage): a lone surrogate, which no page or file can
        show, nesting past the untrusted reader's limit, or token counts that pricing and the page cannot add."""
        try:
            check_value(reply, "its reply")
        except UntrustedInputError as exc:
            raise ModelCallError(f"{self._where()} did not answer like the Messages API: {exc}") from None
        for name, count in (reply.get("usage") or {}).items():
            if isinstance(count, int) and not 0 <= count <= MAX_USAGE:
                said = str(count) if len(str(count)) < 20 else f"a number of {len(str(count))} digits"
                raise ModelCallError(f"{self._where()} did not answer like the Messages API: its usage says "
                                     f"{printable_name(name)} is {said}, which is no token count")

    def count_tokens(self, messages: list[dict[str, Any]], *, system: str = "",
                     tools: list[dict[str, Any]] | None = None) -> int:
        """What the API counts for a request's input, without sending it to the model."""
        params = self._params(messages, system, tools)
        client = self._connect()
        failure = None
        try:
            counted: int = client.messages.count_tokens(**params).input_tokens
            return counted
        except Exception as exc:
            failure = self._explain(exc)
        raise failure

    def _params(self, messages: list[dict[str, Any]], system: str, tools: list[dict[str, Any]] | None,
                **more: Any) -> dict[str, Any]:
        """A request's parameters; an empty system prompt or tool list is left out, as the API prefers."""
        params: dict[str, Any] = {"model": self.model, "messages": messages, **more}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = tools
        return params

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        if not self._api_key:
            raise ModelCallError("no API key: set ANTHROPIC_API_KEY or type one in the key field "
                                 "(a local server that needs none takes any text, e.g. `local`)",
                                 kind="authentication_error")
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ModelCallError(f"the base URL {self.base_url!r} must start with http:// or https://")
        import anthropic  # here, not at the top: a fake run never pays for this import

        failure = None
        try:
            self._client = anthropic.Anthropic(api_key=self._api_key, base_url=self.base_url,
                                               max_retries=self.max_retries, timeout=self.timeout,
                                               **({"http_client": self.http_client} if self.http_client else {}))
        except Exception as exc:
            failure = self._explain(exc, reading_reply=False)
        if failure is not None:
            raise failure
        return self._client

    def _pass_on(self, stream: Any) -> None:
        """Hand the reply's text and tool input to `on_event` as they arrive."""
        tool_name = ""
        for event in stream:
            if self.on_event is None:
                continue
            if event.type == "content_block_start" and event.content_block.type == "tool_use":
                tool_name = event.content_block.name
            elif event.type == "text":
                check_value(event.text, "its reply")  # a lone surrogate: refused before a page tries to draw it
                self.on_event({"type": "text", "text": self._hide_key(event.text)})
            elif event.type == "input_json":
                check_value(event.partial_json, "its reply")
                self.on_event({"type": "input_json", "partial_json": self._hide_key(event.partial_json),
                               "name": self._hide_key(tool_name)})

    def _hide_key(self, text: str) -> str:
        # A key of a few characters (a local server's placeholder) is no secret, and replacing it would garble words.
        if len(self._api_key) >= MIN_SECRET_LENGTH and self._api_key in text:
            return text.replace(self._api_key, "[the key]")
        return text

    def _hide_key_in(self, value: Any) -> Any:
        """A reply with the key blanked out of every string in it, keys of objects included."""
        if isinstance(value, str):
            return self._hide_key(value)
        if isinstance(value, list):
            return [self._hide_key_in(item) for item in value]
        if isinstance(value, dict):
            return {self._hide_key(key) if isinstance(key, str) else key: self._hide_key_in(item)
                    for key, item in value.items()}
        return value

    def _where(self) -> str:
        return self.base_url or "the Anthropic API"

    def _explain(self, exc: Exception, reading_reply: bool = True) -> Exception:
        """The SDK's exception as a ModelCallError in plain words; anything else as it is.

        `reading_reply`: the exception came while a server's answer was read, so a decoding error means the
        server did not speak the Messages API.
        """
        import anthropic

        if isinstance(exc, anthropic.APITimeoutError):
            return ModelCallError(f"no answer from {self._where()} within {self.timeout:g} s (timed out)",
                                  retryable=True)
        if isinstance(exc, anthropic.APIConnectionError):
            cause = exc.__cause__
            detail = f" ({self._hide_key(str(cause))})" if cause is not None and str(cause) else ""
            return ModelCallError(f"cannot reach {self._where()}: is the address right and the server "
                                  f"running?{detail}", retryable=True)
        if not isinstance(exc, anthropic.APIStatusError):
            if isinstance(exc, anthropic.AnthropicError):
                return ModelCallError(self._hide_key(f"{type(exc).__name__}: {exc}"))
            if reading_reply and isinstance(exc, UntrustedInputError):
                return ModelCallError(f"{self._where()} did not answer like the Messages API: {exc}")
            if reading_reply and isinstance(exc, ValueError | LookupError | TypeError | AttributeError):
                # The SDK met a body it cannot read (bytes that are not UTF-8, JSON that is not a message, events
                # out of order): said as what it means, not as the decoder's words.
                return ModelCallError(f"{self._where()} did not answer like the Messages API: its reply could not "
                                      f"be read as one ({type(exc).__name__}). Is the base URL a Messages API server?")
            return exc
        status, kind = exc.status_code, exc.type
        message = exc.api_message or (exc.body if isinstance(exc.body, str) else "") or "no message"
        retry_after = _seconds(exc.response.headers.get("retry-after"))
        if status == 404 and _error_code(exc.body) is None:  # a thread's 404 names its cause itself
            hint = f"no model {self.model!r} or no Messages API at {self._where()}"
            if self.base_url and self.base_url.rstrip("/").endswith("/v1"):
                hint += " (leave /v1 off the base URL: the SDK adds /v1/messages itself)"
        else:
            hint = status_hint(status, retry_after)
        text = f"{message} ({hint})" if hint else message
        retryable = retryable_status(status, kind)
        return ModelCallError(self._hide_key(text), status, kind, retry_after, exc.request_id, retryable,
                              _error_code(exc.body))


def printable_name(name: Any, limit: int = 40) -> str:
    """A field's name from a server, short enough for one line."""
    text = str(name)
    return text if len(text) <= limit else text[:limit] + "…"


def _seconds(header: str | None) -> float | None:
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None  # a date form of retry-after: the SDK honours it when it retries; here it goes unsaid


def _error_code(body: Any) -> str | None:
    """`error.details.error_code` of an error body, where there is one."""
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    code = details.get("error_code") if isinstance(details, dict) else None
    return code if isinstance(code, str) else None
