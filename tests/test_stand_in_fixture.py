"""The `stand_in_api` fixture as another project's test suite uses it: by name, from the installed package's pytest11
entry point, with nothing imported from this project. (tests/test_pytest_plugin.py runs such a suite in a subprocess
to see it fail with the API's own words.)"""

import anthropic
import httpx2
import pytest
from anthropic import beta_tool


@beta_tool
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


@beta_tool
def upper(text: str) -> str:
    """Upper case."""
    return text.upper()


@beta_tool
def word_count(text: str) -> str:
    """Count words."""
    return str(len(text.split()))


def my_agent(client: anthropic.Anthropic, task: str) -> str:
    """The agent under test: the SDK's tool runner, as it comes."""
    final = None
    for message in client.beta.messages.tool_runner(model="claude-sonnet-5", max_tokens=512,
                                                    tools=[add, upper, word_count],
                                                    messages=[{"role": "user", "content": task}]):
        final = message
    return "".join(block.text for block in final.content if block.type == "text")


@pytest.mark.parametrize("in_process", [False, True], ids=["over-http", "in-process"])
def test_the_sdk_tool_runner_runs_a_built_in_script(stand_in_api, in_process):
    api = stand_in_api("three_tool_chain", in_process=in_process)
    answer = my_agent(api.client(), "Add 1.5 and 2, upper-case a sentence with the sum, count its words.")
    assert answer == "THE SUM IS 3.5 has 4 words."
    assert [heard.status for heard in api.requests] == [200] * 4
    first, *later = [heard.body for heard in api.requests]
    assert first["thread"] == {"type": "create"} and len(first["messages"]) == 1
    assert all(body["thread"]["type"] == "continue" and len(body["messages"]) == 1 for body in later)


def test_replies_given_in_the_test(stand_in_api):
    api = stand_in_api(replies=[
        {"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add",
                                                 "input": {"a": 2, "b": 3}}]},
        {"stop_reason": "end_turn", "content": [{"type": "text", "text": "2 + 3 is 5."}]}], tools=["add"])
    assert my_agent(api.client(), "What is 2 + 3?") == "2 + 3 is 5."
    results = api.requests[1].body["messages"][0]["content"]
    assert results == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "5.0"}]


def test_another_client_raw_httpx2(stand_in_api):
    api = stand_in_api("add_then_answer")
    headers = {"x-api-key": "any", "anthropic-version": "2023-06-01"}
    task = {"role": "user", "content": "What is 2 + 3?"}
    with httpx2.Client(base_url=api.base_url, headers=headers) as http:
        first = http.post("/v1/messages", json={"model": "m", "max_tokens": 64, "messages": [task]}).json()
        call = first["content"][-1]
        results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "5"}]}
        second = http.post("/v1/messages", json={"model": "m", "max_tokens": 64, "messages": [
            task, {"role": "assistant", "content": first["content"]}, results]}).json()
    assert second["content"] == [{"type": "text", "text": "2 + 3 is 5."}]
    assert len(api.requests) == 2 and api.requests[1].body["messages"][2] == results


def test_a_refusal_a_test_expects_is_there_to_read(stand_in_api):
    api = stand_in_api("add_then_answer", check_at_end=False)
    with pytest.raises(anthropic.BadRequestError):
        api.client(max_retries=0).messages.create(model="m", max_tokens=64, messages=[{"role": "user", "content": ""}])
    assert [heard.failed_check for heard in api.requests] == [True]
    assert api.requests[0].error["message"] == ("messages.0: all messages must have non-empty content except for "
                                                "the optional final assistant message")


def test_a_429_with_retry_after_is_retried_by_the_sdk_itself(stand_in_api):
    api = stand_in_api("add_then_answer", faults=[{"status": 429, "after": 0, "retry_after": 0.2}])
    answer = my_agent(api.client(max_retries=2), "What is 2 + 3?")
    assert answer == "2 + 3 is 5."
    assert [heard.status for heard in api.requests] == [429, 200, 200]  # the SDK waited, then asked again
    assert api.requests[0].error["type"] == "rate_limit_error"
    assert api.requests[0].body == api.requests[1].body  # the retry is the same request


@pytest.mark.parametrize("status, kind", [(529, "overloaded_error"), (500, "api_error")])
def test_an_overload_or_a_failure_after_n_requests_and_no_retries_left(stand_in_api, status, kind):
    api = stand_in_api("add_then_answer", faults=[{"status": status, "after": 1, "times": 3}])
    with pytest.raises(anthropic.APIStatusError) as raised:
        my_agent(api.client(max_retries=2), "What is 2 + 3?")
    assert raised.value.status_code == status and raised.value.type == kind
    assert [heard.status for heard in api.requests] == [200, status, status, status]  # 1 try and 2 retries


def test_a_stream_dropped_mid_event_and_a_slow_answer(stand_in_api):
    api = stand_in_api("add_then_answer", faults=[{"cut_stream": True, "after": 0}, {"delay": 2.0, "after": 1}])
    client = api.client(max_retries=0)
    task = [{"role": "user", "content": "What is 2 + 3?"}]
    with pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"):
        with client.messages.stream(model="m", max_tokens=64, messages=task) as stream:
            stream.get_final_message()
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(model="m", max_tokens=64, messages=task, timeout=0.5)
