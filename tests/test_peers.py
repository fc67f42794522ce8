"""Conformance: the clients people use run whole tool loops against `serve`, unchanged, and reach the script's answer.

The anthropic SDK in all its ways (sync and async `create`, `messages.stream`, raw `stream=True` events, the tool
runner with its defaults, which use message threads, and with `thread=False`, `count_tokens`, `with_raw_response`,
the models list); then pydantic-ai, langchain-anthropic and litellm, from the optional extra
`pip install -e ".[peers]"`. Without the extra those tests skip and say so; under CI=true they fail instead
(but in the run `.ci/run` makes before it installs the extra, `LOOP_SANDBOX_PEERS=later`).
Each runs on the built-in scripts that end in an answer, in both modes. Nothing leaves 127.0.0.1. The stand-in is
the `stand_in_api` fixture (this package's pytest plugin): a request any client sends that breaks a rule of the
API fails the test in the API's words, even if the client took the 400 in its stride.
"""

from __future__ import annotations

import asyncio
import json
import os

import anthropic
import pytest

from agent.scripts import load_script
from agent.tools import TOOLS, run_tool, tool_schemas
from helpers import peer

# litellm fetches its price list from the internet on import unless told to use the copy it ships.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ANSWERING = ["add_then_answer", "thinking_then_answer", "three_tool_chain", "two_calls_one_reply", "two_file_search",
             "failing_tool"]
MODES = ["lesson", "real-api"]
MODEL = "claude-sonnet-5"


def answer_of(name: str) -> str:
    """The answer the script's last reply gives."""
    last = load_script(name).replies[-1]
    return "".join(block["text"] for block in last["content"] if block["type"] == "text")


def call_tool(name: str, arguments: dict) -> str:
    """The sandbox's own tool, as every client here runs it."""
    block = {"type": "tool_use", "id": "toolu_x", "name": name, "input": arguments}
    return str(run_tool(block, list(TOOLS))["content"])


def sdk_loop(client: anthropic.Anthropic, name: str, create) -> str:
    """The lesson's loop through an SDK call `create(**params) -> Message`."""
    script = load_script(name)
    messages = [{"role": "user", "content": script.task}]
    for _ in range(script.max_turns):
        message = create(model=MODEL, max_tokens=512, messages=messages, tools=tool_schemas(script.tools),
                         **({"system": script.system} if script.system else {}))
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]})
        if message.stop_reason != "tool_use":
            return "".join(b.text for b in message.content if b.type == "text")
        messages.append({"role": "user", "content": [
            run_tool(b.model_dump(), script.tools) for b in message.content if b.type == "tool_use"]})
    raise AssertionError("no answer")


@pytest.fixture(params=MODES)
def mode(request):
    return request.param


def sdk(api, **options):
    return anthropic.Anthropic(api_key="sk-local", base_url=api.base_url, max_retries=0, **options)


# ---- the anthropic SDK ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ANSWERING)
def test_sdk_create_sync_and_with_raw_response(stand_in_api, name, mode):
    api = stand_in_api(name, mode=mode)
    client = sdk(api)
    assert sdk_loop(client, name, client.messages.create) == answer_of(name)
    raw = []

    def create_raw(**params):
        response = client.messages.with_raw_response.create(**params)
        raw.append(response.headers.get("request-id"))
        return response.parse()

    assert sdk_loop(client, name, create_raw) == answer_of(name)
    assert raw and all(request_id.startswith("req_") for request_id in raw)


@pytest.mark.parametrize("name", ANSWERING)
def test_sdk_async_create(stand_in_api, name, mode):
    async def main(api):
        client = anthropic.AsyncAnthropic(api_key="sk-local", base_url=api.base_url, max_retries=0)
        script = load_script(name)
        messages = [{"role": "user", "content": script.task}]
        while True:
            message = await client.messages.create(model=MODEL, max_tokens=512, messages=messages,
                                                   tools=tool_schemas(script.tools))
            content = [b.model_dump(exclude_none=True) for b in message.content]
            messages.append({"role": "assistant", "content": content})
            if message.stop_reason != "tool_use":
                await client.close()
                return "".join(b.text for b in message.content if b.type == "text")
            messages.append({"role": "user", "content": [
                run_tool(b.model_dump(), script.tools) for b in message.content if b.type == "tool_use"]})

    api = stand_in_api(name, mode=mode)
    assert asyncio.run(main(api)) == answer_of(name)


@pytest.mark.parametrize("name", ANSWERING)
def test_sdk_messages_stream_and_raw_stream_events(stand_in_api, name, mode):
    api = stand_in_api(name, mode=mode)
    client = sdk(api)

    def streamed(**params):
        with client.messages.stream(**params) as stream:
            return stream.get_final_message()

    assert sdk_loop(client, name, streamed) == answer_of(name)
    kinds = []

    def raw_events(**params):
        with client.messages.stream(**params) as stream:
            for event in stream:
                kinds.append(event.type)
            return stream.get_final_message()

    assert sdk_loop(client, name, raw_events) == answer_of(name)
    events = list(client.messages.create(model=MODEL, max_tokens=64, stream=True,
                                         messages=[{"role": "user", "content": load_script(name).task}],
                                         tools=tool_schemas(load_script(name).tools)))
    assert events[0].type == "message_start" and events[-1].type == "message_stop"
    assert "message_delta" in kinds


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize("threaded", [True, False], ids=["threads", "thread=False"])
@pytest.mark.parametrize("name", ["add_then_answer", "thinking_then_answer", "three_tool_chain", "two_file_search"])
def test_sdk_tool_runner_with_its_defaults_and_without_threads(stand_in_api, name, threaded, stream, mode):
    from anthropic import beta_tool

    script = load_script(name)

    @beta_tool
    def add(a: float, b: float) -> str:
        """Add two numbers."""
        return call_tool("add", {"a": a, "b": b})

    @beta_tool
    def word_count(text: str) -> str:
        """Count the words of a text."""
        return call_tool("word_count", {"text": text})

    @beta_tool
    def upper(text: str) -> str:
        """A text in upper case."""
        return call_tool("upper", {"text": text})

    @beta_tool
    def search_files(query: str) -> str:
        """Search the files."""
        return call_tool("search_files", {"query": query})

    @beta_tool
    def read_file(path: str) -> str:
        """Read a file."""
        return call_tool("read_file", {"path": path})

    tools = [tool for tool in (add, word_count, upper, search_files, read_file) if tool.name in script.tools]
    api = stand_in_api(name, mode=mode)
    runner = sdk(api).beta.messages.tool_runner(
        model=MODEL, max_tokens=512, tools=tools, messages=[{"role": "user", "content": script.task}],
        stream=stream, **({} if threaded else {"thread": False}))
    final = None
    for item in runner:
        final = item.get_final_message() if stream else item
    assert "".join(b.text for b in final.content if b.type == "text") == answer_of(name)
    threads = [heard.body.get("thread") for heard in api.requests]
    if threaded:  # with its defaults the runner creates a thread, then continues it with only the new messages
        assert threads == [{"type": "create"}] + [{"type": "continue", "previous_message_id": heard.answer["id"]}
                                                  for heard in api.requests[:-1]]
    else:
        assert threads == [None] * len(api.requests)


def test_sdk_count_tokens_takes_no_max_tokens_and_the_models_list(stand_in_api, mode):
    api = stand_in_api("add_then_answer", mode=mode)
    client = sdk(api)
    counted = client.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    first_page = client.models.list(limit=5)
    listed = [model.id for model in client.models.list(limit=5)]  # iterating pages on by `after_id`
    one = client.models.retrieve(MODEL)
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("no-such-model")
    assert counted.input_tokens > 0
    assert len(first_page.data) == 5 and first_page.has_more
    assert MODEL in listed and len(listed) == len(set(listed)) > 5 and one.id == MODEL


def test_the_version_header_decides_the_sampling_fields(stand_in_api, mode):
    api = stand_in_api("add_then_answer", mode=mode, check_at_end=False)  # a refusal is what it looks for
    with pytest.raises(anthropic.BadRequestError) as refused:
        sdk(api).messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}],
                                 extra_body={"temperature": 1.0})
    old = sdk(api, default_headers={"anthropic-version": "2023-06-01"})
    taken = old.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}],
                                extra_body={"temperature": 1.0})
    assert refused.value.api_message == "temperature: Extra inputs are not permitted"
    assert taken.stop_reason == "tool_use"


# ---- pydantic-ai, langchain-anthropic, litellm ----------------------------------------------------------------------


def sandbox_tool_functions(names):
    """Plain Python functions for the sandbox's tools, typed and documented, as these clients take tools."""
    def add(a: float, b: float) -> str:
        """Add two numbers."""
        return call_tool("add", {"a": a, "b": b})

    def word_count(text: str) -> str:
        """Count the words of a text."""
        return call_tool("word_count", {"text": text})

    def upper(text: str) -> str:
        """A text in upper case."""
        return call_tool("upper", {"text": text})

    def search_files(query: str) -> str:
        """Search the files."""
        return call_tool("search_files", {"query": query})

    def read_file(path: str) -> str:
        """Read a file."""
        return call_tool("read_file", {"path": path})

    return [f for f in (add, word_count, upper, search_files, read_file) if f.__name__ in names]


PEER_SCRIPTS = ["add_then_answer", "thinking_then_answer", "three_tool_chain", "two_file_search"]


# pydantic-ai ends a run at the first text of a reply when its output is `str`, even beside tool calls: a reply of
# text and a call (two_file_search's first) is its answer by its own design, so that script is left out for it.
@pytest.mark.parametrize("name", [name for name in PEER_SCRIPTS if name != "two_file_search"])
def test_pydantic_ai_run_sync_and_run_stream(stand_in_api, name, mode):
    agent_module = peer("pydantic_ai")
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    script = load_script(name)
    api = stand_in_api(name, mode=mode)
    model = AnthropicModel(MODEL, provider=AnthropicProvider(api_key="sk-local", base_url=api.base_url))
    agent = agent_module.Agent(model, tools=sandbox_tool_functions(script.tools), retries=0)
    assert agent.run_sync(script.task).output == answer_of(name)

    async def streamed():
        async with agent.run_stream(script.task) as run:
            return await run.get_output()

    assert asyncio.run(streamed()) == answer_of(name)


@pytest.mark.parametrize("name", PEER_SCRIPTS)
def test_langchain_anthropic_bind_tools_invoke_and_stream(stand_in_api, name, mode):
    peer("langchain_anthropic")
    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import HumanMessage, ToolMessage

    script = load_script(name)
    api = stand_in_api(name, mode=mode)
    chat = ChatAnthropic(model=MODEL, api_key="sk-local", base_url=api.base_url, max_retries=0,
                         max_tokens=512).bind_tools(sandbox_tool_functions(script.tools))
    for call in ("invoke", "stream"):
        messages = [HumanMessage(script.task)]
        for _ in range(script.max_turns):
            if call == "invoke":
                reply = chat.invoke(messages)
            else:
                reply = None
                for chunk in chat.stream(messages):
                    reply = chunk if reply is None else reply + chunk
            messages.append(reply)
            if not reply.tool_calls:
                break
            messages += [ToolMessage(call_tool(c["name"], c["args"]), tool_call_id=c["id"])
                         for c in reply.tool_calls]
        assert reply.text == answer_of(name)


@pytest.mark.parametrize("stream", [False, True], ids=["completion", "stream"])
@pytest.mark.parametrize("name", PEER_SCRIPTS)
def test_litellm_completion_with_tools(stand_in_api, name, stream, mode, monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # set at import too: no fetch from the internet
    litellm = peer("litellm")
    script = load_script(name)
    tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                               "parameters": t["input_schema"]}} for t in tool_schemas(script.tools)]
    api = stand_in_api(name, mode=mode)
    messages = [{"role": "user", "content": script.task}]
    for _ in range(script.max_turns):
        response = litellm.completion(model=f"anthropic/{MODEL}", api_base=api.base_url, api_key="sk-local",
                                      messages=messages, tools=tools, max_tokens=512, stream=stream)
        if stream:
            response = litellm.stream_chunk_builder(list(response), messages=messages)
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        messages += [{"role": "tool", "tool_call_id": c.id,
                      "content": call_tool(c.function.name, json.loads(c.function.arguments or "{}"))}
                     for c in message.tool_calls]
    assert message.content == answer_of(name)
