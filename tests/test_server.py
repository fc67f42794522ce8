"""The stand-in Messages API, spoken to over real HTTP: by the real SDK, by plain urllib, and from the CLI."""

import json
import subprocess
import sys
import urllib.error
import urllib.request

import anthropic
import pytest

from agent.real.server import assistant_turns, estimate_tokens, running_server
from agent.scripts import parse_script
from helpers import reply, text, thinking, tool_use

USER = {"role": "user", "content": "What is 2 + 3?"}
TWO_TURNS = [reply("tool_use", thinking("add them"), tool_use("toolu_01")),
             reply("end_turn", text("2 + 3 is 5."), usage={"input_tokens": 40, "output_tokens": 7})]


def script(*replies, **settings):
    return parse_script({"replies": list(replies), **settings}, name="test")


def second_request():
    return [USER, {"role": "assistant", "content": TWO_TURNS[0]["content"]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}]


def client(server, **options):
    return anthropic.Anthropic(api_key="sk-test", base_url=server.base_url, max_retries=0, **options)


def post(server, path, body, headers=None, whole=True):
    """POST with urllib, no SDK: (status, headers, parsed JSON or raw text).

    With `whole`, a body without `model` (and `max_tokens`, which count_tokens does not take) gets them,
    as the API requires both in either mode."""
    if whole and isinstance(body, dict):
        body = {"model": "m", **({} if path.endswith("count_tokens") else {"max_tokens": 64}), **body}
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(server.base_url + path, data=data, method="POST",
                                     headers={"x-api-key": "k", "content-type": "application/json",
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, head, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, head, raw = error.code, error.headers, error.read()
    try:
        return status, head, json.loads(raw)
    except json.JSONDecodeError:
        return status, head, raw.decode()


def test_the_sdk_creates_against_it_unchanged():
    with running_server(script(*TWO_TURNS)) as server:
        first = client(server).messages.create(model="m", max_tokens=100, messages=[USER])
        second = client(server).messages.create(model="m", max_tokens=100, messages=second_request())
    assert first.stop_reason == "tool_use" and first.content[1].input == {"a": 2, "b": 3}
    dumped = second.model_dump(mode="json", exclude_none=True)
    assert dumped["content"] == [text("2 + 3 is 5.")] and dumped["usage"] == {"input_tokens": 40, "output_tokens": 7}
    assert dumped["model"] == "m" and dumped["role"] == "assistant" and dumped["id"].startswith("msg_")


def test_a_stream_follows_the_apis_event_sequence():
    with running_server(script(reply("tool_use", thinking("sum"), text("Adding them."), tool_use("toolu_01"))))\
            as server:
        events = list(client(server).messages.create(model="m", max_tokens=100, messages=[USER], stream=True))
    kinds = [(e.type, e.delta.type if e.type == "content_block_delta" else None) for e in events]
    assert kinds[0] == ("message_start", None) and kinds[-2:] == [("message_delta", None), ("message_stop", None)]
    starts = [e.content_block.type for e in events if e.type == "content_block_start"]
    assert starts == ["thinking", "text", "tool_use"]
    assert {k for k in kinds if k[0] == "content_block_delta"} == {
        ("content_block_delta", "thinking_delta"), ("content_block_delta", "signature_delta"),
        ("content_block_delta", "text_delta"), ("content_block_delta", "input_json_delta")}
    assert [e.type for e in events].count("content_block_stop") == 3
    assert events[0].message.stop_reason is None and events[-2].delta.stop_reason == "tool_use"
    assert "".join(e.delta.text for e in events if e.type == "content_block_delta" and e.delta.type == "text_delta") \
        == "Adding them."


def test_a_streamed_reply_ends_as_the_same_message_as_a_json_one():
    block = {"type": "thinking", "thinking": "the sum, then the answer", "signature": "c2lnbmVk+/=="}
    with running_server(script(reply("end_turn", block, text("5"), usage={"input_tokens": 9, "output_tokens": 3})))\
            as server:
        with client(server).messages.stream(model="m", max_tokens=100, messages=[USER]) as stream:
            streamed = stream.get_final_message().model_dump(mode="json", exclude_none=True)
        whole = client(server).messages.create(model="m", max_tokens=100, messages=[USER]).model_dump(
            mode="json", exclude_none=True)
    assert streamed["content"] == whole["content"] == [block, text("5")]
    assert streamed["usage"] == whole["usage"] == {"input_tokens": 9, "output_tokens": 3}
    assert streamed["stop_reason"] == whole["stop_reason"] == "end_turn"


def test_count_tokens_is_an_estimate_and_says_so():
    with running_server(script(*TWO_TURNS)) as server:
        counted = client(server).messages.count_tokens(model="m", messages=second_request())
        status, headers, _ = post(server, "/v1/messages/count_tokens", {"messages": [USER]})
    assert counted.input_tokens == estimate_tokens(second_request())
    assert status == 200 and "estimate" in headers["x-token-count"]


def test_a_bad_request_gets_400_in_the_apis_words_and_shape():
    with running_server(script(*TWO_TURNS)) as server:
        with pytest.raises(anthropic.BadRequestError) as caught:
            client(server).messages.create(model="m", max_tokens=10, messages=[{"role": "assistant", "content": "x"}])
        status, headers, body = post(server, "/v1/messages", {"messages": [USER, USER]})
    assert caught.value.api_message == 'messages: first message must use the "user" role'
    assert caught.value.type == "invalid_request_error"
    assert status == 400 and body["type"] == "error" and body["request_id"].startswith("req_")
    assert body["error"] == {"type": "invalid_request_error", "message":
                             'messages: roles must alternate between "user" and "assistant", but found multiple '
                             '"user" roles in a row'}
    assert headers["request-id"] == body["request_id"]


def test_thinking_sent_back_changed_is_refused():
    with running_server(script(*TWO_TURNS)) as server:
        changed = second_request()
        changed[1] = {"role": "assistant", "content": [thinking("something else"), tool_use("toolu_01")]}
        status, _, body = post(server, "/v1/messages", {"messages": changed})
    assert status == 400 and "cannot be modified" in body["error"]["message"]


def test_real_api_mode_wants_model_and_max_tokens_and_allows_a_prefill():
    with running_server(script(*TWO_TURNS), mode="real-api") as server:
        missing = post(server, "/v1/messages", {"messages": [USER]}, whole=False)
        prefill = post(server, "/v1/messages", {"model": "m", "max_tokens": 5,
                                                "messages": [USER, {"role": "assistant", "content": "Sure"}]})
    assert missing[0] == 400 and missing[2]["error"]["message"] == "max_tokens: Field required"
    assert prefill[0] == 200 and prefill[2]["stop_reason"] == "tool_use"  # a prefill is not a finished turn


def test_both_ways_of_sending_a_key_are_accepted_and_none_is_401():
    with running_server(script(*TWO_TURNS)) as server:
        by_header = post(server, "/v1/messages", {"messages": [USER]})
        by_bearer = post(server, "/v1/messages", {"messages": [USER]}, {"x-api-key": "", "authorization": "Bearer k"})
        without = post(server, "/v1/messages", {"messages": [USER]}, {"x-api-key": ""})
    assert by_header[0] == by_bearer[0] == 200
    assert without[0] == 401 and without[2]["error"]["type"] == "authentication_error"


def test_the_reply_is_chosen_from_the_request_itself():
    with running_server(script(*TWO_TURNS)) as server:
        later_first = post(server, "/v1/messages", {"messages": second_request()})
        early = post(server, "/v1/messages", {"messages": [USER]})
        again = post(server, "/v1/messages", {"messages": [USER]})
    assert later_first[2]["content"] == TWO_TURNS[1]["content"]
    assert early[2]["content"] == again[2]["content"] == TWO_TURNS[0]["content"]


def test_an_error_entry_gets_its_status_and_body_once_per_request_then_a_retry_moves_on():
    overloaded = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}
    with running_server(script(TWO_TURNS[0], overloaded, overloaded, TWO_TURNS[1])) as server:
        first = post(server, "/v1/messages", {"messages": [USER]})
        tries = [post(server, "/v1/messages", {"messages": second_request()}) for _ in range(3)]
        other = post(server, "/v1/messages", {"messages": [*second_request()[:2], {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "6"}]}]})
    assert first[0] == 200
    assert [t[0] for t in tries] == [529, 529, 200] and tries[2][2]["content"] == TWO_TURNS[1]["content"]
    assert tries[0][2]["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert other[0] == 529  # another conversation meets the errors afresh


def test_a_429_says_when_to_retry():
    limited = {"error": {"status": 429, "type": "rate_limit_error", "message": "Number of requests exceeded",
                         "retry_after": 3}}
    with running_server(script(limited, TWO_TURNS[0])) as server:
        status, headers, body = post(server, "/v1/messages", {"messages": [USER]})
    assert status == 429 and headers["retry-after"] == "3" and body["error"]["type"] == "rate_limit_error"


def test_a_mid_stream_error_entry_breaks_a_stream_with_an_error_event():
    broken = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded", "mid_stream": True}}
    with running_server(script(broken, broken, TWO_TURNS[0])) as server:
        with pytest.raises(anthropic.APIStatusError) as caught:
            with client(server).messages.stream(model="m", max_tokens=10, messages=[USER]) as stream:
                stream.get_final_message()
        plain = post(server, "/v1/messages", {"messages": [USER]})
    assert caught.value.status_code == 200 and caught.value.type == "overloaded_error"
    assert plain[0] == 529  # without a stream, the same entry is an ordinary status


def test_a_recorded_mid_stream_error_without_a_stream_gets_the_status_of_its_type():
    recorded = {"error": {"status": 200, "type": "overloaded_error", "message": "Overloaded", "mid_stream": True}}
    with running_server(script(recorded, TWO_TURNS[0])) as server:
        status, _, body = post(server, "/v1/messages", {"messages": [USER]})
    assert status == 529 and body["error"] == {"type": "overloaded_error", "message": "Overloaded"}


def test_a_request_past_the_script_is_a_500_that_is_not_retried():
    with running_server(script(TWO_TURNS[0])) as server:
        status, headers, body = post(server, "/v1/messages", {"messages": second_request()})
    assert status == 500 and headers["x-should-retry"] == "false"
    assert body["error"]["message"] == "the script 'test' has 1 reply and this is request 2: there is no reply to give"


@pytest.mark.parametrize("path, body, status, kind", [
    ("/v1/complete", {"messages": []}, 404, "not_found_error"),
    ("/v1/messages", b"{not json", 400, "invalid_request_error"),
    ("/v1/messages", {"max_tokens": -1, "messages": [USER]}, 400, "invalid_request_error"),
])
def test_other_mistakes_get_the_apis_error_shape(path, body, status, kind):
    with running_server(script(*TWO_TURNS)) as server:
        got = post(server, path, body)
    assert got[0] == status and got[2]["type"] == "error" and got[2]["error"]["type"] == kind


def test_assistant_turns_counts_finished_turns_only():
    assistant = {"role": "assistant", "content": "a"}
    assert assistant_turns([USER]) == 0
    assert assistant_turns([USER, assistant]) == 0  # a prefill
    assert assistant_turns([USER, assistant, USER]) == 1
    assert assistant_turns([USER, assistant, assistant, USER, assistant, USER]) == 2  # merged in real-api mode


def test_the_server_logs_a_line_a_request_with_the_reason_for_a_400():
    lines = []
    with running_server(script(*TWO_TURNS), log=lines.append) as server:
        post(server, "/v1/messages", {"messages": [USER]})
        post(server, "/v1/messages", {"messages": [USER, USER]})
    assert lines[0] == "POST /v1/messages -> 200 reply 1: tool_use"
    assert lines[1].startswith("POST /v1/messages -> 400 invalid_request_error: messages: roles must alternate")


def test_serve_from_the_command_line_prints_the_base_url_and_answers_the_sdk():
    process = subprocess.Popen([sys.executable, "-m", "agent", "serve", "add_then_answer", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        base_url = lines[1].split("Base URL: ")[1].strip()
        assert base_url.startswith("http://127.0.0.1:")
        answer = anthropic.Anthropic(api_key="k", base_url=base_url, max_retries=0).messages.create(
            model="m", max_tokens=10, messages=[USER])
        assert answer.content[-1].name == "add"
        rest = [process.stdout.readline().strip() for _ in range(3)]
        assert rest[-1] == "POST /v1/messages -> 200 reply 1: tool_use"
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_serve_says_in_one_line_when_the_port_is_taken():
    with running_server(script(*TWO_TURNS)) as server:
        port = server.server_address[1]
        done = subprocess.run([sys.executable, "-m", "agent", "serve", "add_then_answer", "--port", str(port)],
                              capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    assert "Traceback" not in done.stderr


def test_a_fault_on_demand_says_what_is_wrong_with_it():
    from agent.real.server_faults import ServerFault, fault_for

    for bad in ({"after": -1, "status": 429}, {"after": 0, "status": 200}, {"after": 0}, {"after": 0, "delay": 1,
                                                                                            "times": 0}):
        with pytest.raises(ValueError, match="fault"):
            ServerFault(**bad)
    faults = (ServerFault.error(529, after=2, times=2), ServerFault.slow(1.5, after=1))
    assert [getattr(fault_for(faults, n), "status", None) for n in range(1, 6)] == [None, None, 529, 529, None]
    assert fault_for(faults, 2).delay == 1.5
    assert ServerFault.error(429, retry_after=2).headers == {"retry-after": "2"}
    assert ServerFault.error(529).kind == "overloaded_error" and ServerFault.error(503).kind == "api_error"
