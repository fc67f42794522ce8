"""The FakeModel: copies of replies, request checks, injected API errors, the end of the script."""

import anthropic
import pytest

from agent.api.requests import OLD_VERSION, RequestRejected
from agent.models.fake import FakeModel, ScriptExhausted
from agent.scripts import parse_script
from helpers import reply, text, thinking, tool_use

ADD = {"name": "add", "description": "Add two numbers.",
       "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}


def model(*replies, mode="lesson"):
    return FakeModel(parse_script({"replies": list(replies)}, name="s"), mode=mode)


def test_create_takes_just_the_messages_and_answers_a_plain_dict():
    fake = model(reply("end_turn", text("hi"), usage={"input_tokens": 4, "output_tokens": 1}))
    answer = fake.create([{"role": "user", "content": "hello"}])
    assert answer == {"id": "msg_fake_0001", "type": "message", "role": "assistant", "model": "fake",
                      "content": [text("hi")], "stop_reason": "end_turn",
                      "usage": {"input_tokens": 4, "output_tokens": 1}}


def test_each_answer_is_a_new_object():
    fake = model(reply("tool_use", tool_use("t1")), reply("tool_use", tool_use("t2")))
    first = fake.create([{"role": "user", "content": "go"}])
    first["content"].clear()
    assert fake.script.replies[0]["content"] == [tool_use("t1")]


def test_a_bad_request_is_refused_before_a_reply_is_used():
    fake = model(reply("end_turn", text("hi")))
    with pytest.raises(RequestRejected, match='first message must use the "user" role'):
        fake.create([{"role": "assistant", "content": "x"}])
    assert fake.calls == 0


def test_modes_differ_on_a_prefill():
    prefill = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}]
    with pytest.raises(RequestRejected, match="final message must use the \"user\" role"):
        model(reply("end_turn", text("x"))).create(prefill)
    assert model(reply("end_turn", text("x")), mode="real-api").create(prefill)["stop_reason"] == "end_turn"


def test_max_tokens_zero_is_taken_and_a_negative_one_refused():
    # SDK 2.x: "Set to `0` to populate the prompt cache without generating a response."
    assert model(reply("end_turn", text("x"))).create([{"role": "user", "content": "hi"}], max_tokens=0)
    with pytest.raises(RequestRejected, match="max_tokens: Input should be greater than or equal to 0"):
        model(reply("end_turn", text("x"))).create([{"role": "user", "content": "hi"}], max_tokens=-1)


def test_thinking_blocks_must_go_back_unchanged():
    fake = model(reply("tool_use", thinking("plan"), tool_use("t1")), reply("end_turn", text("5")))
    first = fake.create([{"role": "user", "content": "go"}])
    edited = [b for b in first["content"] if b["type"] != "thinking"]  # the thinking dropped
    with pytest.raises(RequestRejected) as caught:
        fake.create([{"role": "user", "content": "go"}, {"role": "assistant", "content": edited},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5"}]}])
    assert str(caught.value) == (
        "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot "
        "be modified. These blocks must remain as they were in the original response.")


def test_a_request_after_the_last_reply_names_the_scripts_length():
    fake = model(reply("end_turn", text("x")))
    fake.create([{"role": "user", "content": "hi"}])
    with pytest.raises(ScriptExhausted, match="the script 's' has 1 reply and this is request 2"):
        fake.create([{"role": "user", "content": "hi"}])
    two = model(reply("end_turn", text("x")), reply("end_turn", text("y")))
    two.create([{"role": "user", "content": "hi"}])
    two.create([{"role": "user", "content": "hi"}])
    with pytest.raises(ScriptExhausted) as caught:
        two.create([{"role": "user", "content": "hi"}])
    assert str(caught.value) == "the script 's' has 2 replies and this is request 3: there is no reply to give"


@pytest.mark.parametrize("status, error_type, exception", [
    (400, "invalid_request_error", anthropic.BadRequestError),
    (401, "authentication_error", anthropic.AuthenticationError),
    (403, "permission_error", anthropic.PermissionDeniedError),
    (404, "not_found_error", anthropic.NotFoundError),
    (429, "rate_limit_error", anthropic.RateLimitError),
    (500, "api_error", anthropic.InternalServerError),
    (529, "overloaded_error", anthropic.OverloadedError),
])
def test_an_error_entry_raises_the_sdks_class_for_its_status(status, error_type, exception):
    fake = model({"error": {"status": status, "type": error_type, "message": "boom"}})
    with pytest.raises(exception) as caught:
        fake.create([{"role": "user", "content": "hi"}])
    assert caught.value.status_code == status
    assert caught.value.type == error_type and caught.value.api_message == "boom"
    assert caught.value.body == {"type": "error", "error": {"type": error_type, "message": "boom"},
                                 "request_id": "req_fake"}


@pytest.mark.parametrize("status, exception", [
    (409, anthropic.ConflictError), (413, anthropic.APIStatusError), (503, anthropic.InternalServerError)])
def test_an_error_reads_as_the_sdks_own_does(status, exception):
    fake = model({"error": {"status": status, "type": "some_error", "message": "boom"}})
    with pytest.raises(anthropic.APIStatusError) as caught:
        fake.create([{"role": "user", "content": "hi"}])
    assert type(caught.value) is exception
    assert str(caught.value).startswith(f"Error code: {status} - {{'type': 'error', 'error': {{'type': 'some_error'")
    assert caught.value.request_id == "req_fake"  # what a loop logs to quote to support
    assert str(caught.value.request.url) == "https://api.anthropic.com/v1/messages"


def test_the_system_prompt_is_checked_as_the_api_checks_it():
    with pytest.raises(RequestRejected, match="^system: Input should be a valid list$"):
        model(reply("end_turn", text("x"))).create([{"role": "user", "content": "hi"}], system=5)


@pytest.mark.parametrize("kind", ["enabled", "adaptive"])
def test_with_thinking_on_a_tool_loop_that_drops_the_thinking_is_refused(kind):
    fake = model(reply("tool_use", tool_use("t1")), reply("end_turn", text("5")), mode="real-api")
    on = {"type": kind, "budget_tokens": 1024} if kind == "enabled" else {"type": kind}
    first = fake.create([{"role": "user", "content": "go"}], thinking=on, max_tokens=2048)
    with pytest.raises(RequestRejected, match=r"^messages\.1\.content\.0\.type: Expected `thinking` or "
                                              r"`redacted_thinking`, but found `tool_use`"):
        fake.create([{"role": "user", "content": "go"}, {"role": "assistant", "content": first["content"]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5"}]}],
                    thinking=on, max_tokens=2048)


def test_in_real_api_mode_the_thinking_budget_must_leave_room_in_max_tokens():
    fake = model(reply("end_turn", text("hi")), mode="real-api")
    with pytest.raises(RequestRejected, match=r"^`max_tokens` must be greater than `thinking.budget_tokens`\.$"):
        fake.create([{"role": "user", "content": "go"}], thinking={"type": "enabled", "budget_tokens": 1024})


def test_a_changed_thinking_block_is_named_where_the_loop_put_it():
    fake = model(reply("tool_use", thinking("plan"), thinking("more"), text("adding"), tool_use("t1")),
                 reply("end_turn", text("5")))
    first = fake.create([{"role": "user", "content": "go"}])
    plan, _, said, call = first["content"]
    moved = [said, plan, call]  # the text first, one thinking block dropped
    with pytest.raises(RequestRejected, match=r"^messages\.1\.content\.1: `thinking` or `redacted_thinking` blocks"):
        fake.create([{"role": "user", "content": "go"}, {"role": "assistant", "content": moved},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5"}]}])


def test_a_continue_that_sends_tools_again_is_refused_naming_them():
    fake = model(reply("tool_use", tool_use("t1")), reply("end_turn", text("5")))
    first = fake.create([{"role": "user", "content": "go"}], tools=[ADD], thread={"type": "create"})
    with pytest.raises(RequestRejected, match=r"^tools: a `continue` takes `tools` from the thread; the thread keeps "
                                              r"the `tools` it was created with$"):
        fake.create([], tools=[ADD], thread={"type": "continue", "previous_message_id": first["id"]})


def test_a_thinking_block_the_script_signed_itself_goes_back_accepted():
    signed = {"type": "thinking", "thinking": "plan", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk"}
    fake = model(reply("tool_use", signed, tool_use("t1")), reply("end_turn", text("5")))
    first = fake.create([{"role": "user", "content": "go"}])
    assert first["content"][0]["signature"] == signed["signature"]
    answer = fake.create([{"role": "user", "content": "go"}, {"role": "assistant", "content": first["content"]},
                          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5"}]}])
    assert answer["content"] == [text("5")]


def test_what_each_request_carried_is_kept_for_the_page():
    fake = model(reply("end_turn", text("x")))
    fake.create([{"role": "user", "content": "hi"}], system="Be brief.", max_tokens=64)
    assert fake.requests == [{"messages": 1, "system": "Be brief.", "tools": [], "max_tokens": 64}]


def test_a_fake_model_told_the_old_api_version_takes_its_sampling_fields():
    script = parse_script({"replies": [reply("end_turn", text("x"))]}, name="s")
    assert FakeModel(script, version=OLD_VERSION).create([{"role": "user", "content": "hi"}], temperature=0.5)
    with pytest.raises(RequestRejected, match="^temperature: Extra inputs are not permitted$"):
        FakeModel(script).create([{"role": "user", "content": "hi"}], temperature=0.5)


def test_the_lessons_thinking_rule_asks_for_the_same_thinking_not_the_same_order():
    fake = model(reply("tool_use", thinking("plan"), text("adding"), tool_use("t1")), reply("end_turn", text("5")))
    plan, said, call = fake.create([{"role": "user", "content": "go"}])["content"]
    answer = fake.create([{"role": "user", "content": "go"}, {"role": "assistant", "content": [said, plan, call]},
                          {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5"}]}])
    assert answer["content"] == [text("5")]


def test_no_system_prompt_given_as_none_or_empty_is_left_out_and_accepted():
    for system in (None, ""):
        answer = model(reply("end_turn", text("hi"))).create([{"role": "user", "content": "hi"}], system=system)
        assert answer["content"] == [{"type": "text", "text": "hi"}]
