"""The in-process transport: the SDK and raw httpx2 or httpx answered from a FakeModel, with no socket opened."""

import socket

import anthropic
import httpx2
import pytest

from agent.loop import RunState, run_to_end
from agent.real import AnthropicModel
from agent.real.testing import FakeModelTransport, script_of, serve_script
from agent.scripts import load_script
from agent.summary import console_lines
from helpers import peer


@pytest.fixture
def no_sockets(monkeypatch):
    """Any attempt at a connection fails the test."""
    def refuse(*_, **__):
        raise AssertionError("a socket was opened")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_the_adapter_runs_a_whole_loop_streaming_with_no_socket(no_sockets):
    played = load_script("three_tool_chain")
    with serve_script(played, in_process=True) as api:
        model = AnthropicModel("sk-test", base_url=api.base_url, max_retries=0,
                               http_client=httpx2.Client(transport=api.transport))  # its own streaming calls
        state = RunState(played.task, system=played.system, tool_names=played.tools, threads=True)
        assert run_to_end(state, model) == "THE SUM IS 3.5 has 4 words."
    assert console_lines(state) == played.expected_output[:-1] + ["messages sent each turn: 1, 1, 1, 1"]
    assert all(heard.body["stream"] is True and heard.status == 200 for heard in api.requests)


def test_a_scripts_error_is_answered_in_the_apis_shape_and_the_sdk_retries_it(no_sockets):
    with serve_script(load_script("overloaded_529"), in_process=True) as api:
        client = api.client(max_retries=2)
        task = {"role": "user", "content": "What is 2 + 3?"}
        first = client.messages.create(model="m", max_tokens=64, messages=[task])
        results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
        second = client.messages.create(model="m", max_tokens=64, messages=[
            task, {"role": "assistant", "content": first.content}, results])
    assert second.stop_reason == "end_turn"
    assert [heard.status for heard in api.requests] == [200, 529, 200]
    assert api.requests[1].error == {"type": "overloaded_error", "message": "Overloaded"}
    assert not api.failed_checks  # an error the script plays on purpose breaks no rule


@pytest.mark.parametrize("client_module", ["httpx2", "httpx"])  # the SDK's own, and the one most projects have
def test_a_raw_client_is_answered_too_and_a_wrong_route_in_the_apis_words(no_sockets, client_module):
    http_module = httpx2 if client_module == "httpx2" else peer("httpx")
    transport = FakeModelTransport(script_of(replies=[{"stop_reason": "end_turn", "content": [
        {"type": "text", "text": "Hi."}]}]))
    with http_module.Client(transport=transport, base_url="http://stand-in.invalid",
                            headers={"x-api-key": "any"}) as http:
        answered = http.post("/v1/messages", json={"model": "m", "max_tokens": 9,
                                                    "messages": [{"role": "user", "content": "Hello"}]})
        lost = http.get("/v1/nowhere")
    assert answered.status_code == 200 and answered.json()["content"] == [{"type": "text", "text": "Hi."}]
    assert lost.status_code == 404 and lost.json()["error"] == {"type": "not_found_error",
                                                                "message": "GET /v1/nowhere: Not Found"}


def test_a_failed_check_fails_with_the_apis_words():
    with serve_script(load_script("add_then_answer"), in_process=True) as api:
        with pytest.raises(anthropic.BadRequestError):
            api.client(max_retries=0).messages.create(model="m", max_tokens=64,
                                                      messages=[{"role": "user", "content": "hi"}],
                                                      extra_body={"temperature": 1})
    with pytest.raises(AssertionError, match=r"request 1 \(POST /v1/messages\): 400 invalid_request_error: "
                                             r"temperature: Extra inputs are not permitted"):
        api.check()


def test_the_version_header_decides_the_rules_as_the_servers_does(no_sockets):
    with serve_script(load_script("add_then_answer"), in_process=True) as api:
        old = api.client(max_retries=0, default_headers={"anthropic-version": "2023-06-01"})
        taken = old.messages.create(model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}],
                                    extra_body={"temperature": 1.0})
        with pytest.raises(anthropic.BadRequestError, match="is not a version this stand-in knows"):
            api.client(max_retries=0, default_headers={"anthropic-version": "1999-01-01"}).messages.create(
                model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}])
    assert taken.stop_reason == "tool_use"


@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "over-http"])
def test_a_request_past_the_scripts_last_reply_is_a_failed_check(in_process):
    one = script_of(replies=[{"stop_reason": "end_turn", "content": [{"type": "text", "text": "Hi."}]}])
    with serve_script(one, in_process=in_process) as api:
        client = api.client(max_retries=2)  # the 500 says not to retry: one request each
        hello = [{"role": "user", "content": "Hello"}]
        client.messages.create(model="m", max_tokens=9, messages=hello)
        with pytest.raises(anthropic.InternalServerError):
            client.messages.create(model="m", max_tokens=9, messages=[
                *hello, {"role": "assistant", "content": "Hi."}, {"role": "user", "content": "And?"}])
    assert [heard.status for heard in api.requests] == [200, 500]
    with pytest.raises(AssertionError, match=r"request 2 \(POST /v1/messages\): 500 api_error: the script "):
        api.check()
