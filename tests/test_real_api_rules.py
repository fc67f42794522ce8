"""Real-API mode follows what the API accepted and refused in recorded exchanges; lesson mode keeps its rules."""

import base64

import pytest

from agent.api import limits, signing
from agent.api.requests import check_body

# The shape of a signature the API issues: long base64 (this one is made up, of that shape).
API_SIGNATURE = base64.b64encode(bytes(range(256)) * 2).decode()
THINKING_ON = {"type": "enabled", "budget_tokens": 1024}


def body(messages, **fields):
    return {"model": "claude-sonnet-4-5", "max_tokens": 2048, "messages": messages, **fields}


def tool_loop(thought):
    return [{"role": "user", "content": "What is 2 + 3?"},
            {"role": "assistant", "content": [thought, {"type": "tool_use", "id": "toolu_01", "name": "add",
                                                        "input": {"a": 2, "b": 3}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}]


def thought(text, signature):
    return {"type": "thinking", "thinking": text, "signature": signature}


def test_real_api_mode_accepts_a_signature_the_api_issued_and_refuses_a_malformed_or_changed_one():
    issued = body(tool_loop(thought("Add them.", API_SIGNATURE)), thinking=THINKING_ON)
    assert check_body(issued, "real-api") == []
    assert check_body(issued, "lesson") == ["messages.1.content.0: Invalid `signature` in `thinking` block"]
    for malformed in ("", "not base64!"):
        assert check_body(body(tool_loop(thought("Add them.", malformed)), thinking=THINKING_ON), "real-api") == [
            "messages.1.content.0: Invalid `signature` in `thinking` block"]
    changed = body(tool_loop(thought("Add them twice.", signing.sign("Add them."))), thinking=THINKING_ON)
    assert check_body(changed, "real-api") == ["messages.1.content.0: Invalid `signature` in `thinking` block"]


def test_real_api_mode_wants_max_tokens_above_the_thinking_budget():
    messages = [{"role": "user", "content": "hi"}]
    assert check_body(body(messages, max_tokens=1024, thinking=THINKING_ON), "real-api") == [
        "`max_tokens` must be greater than `thinking.budget_tokens`."]
    assert check_body(body(messages, max_tokens=1025, thinking=THINKING_ON), "real-api") == []


@pytest.mark.parametrize("schema, valid", [
    ({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}, True),
    ({"type": "object", "properties": {"x": {"type": ["string", "null"]}, "y": True}}, True),
    ({"type": "object", "properties": {"x": "number"}}, False),  # a property that is not a schema
    ({"type": "object", "properties": {"x": {"type": "strng"}}}, False),
    ({"type": "object", "required": "x"}, False),
    ({"type": "object", "properties": {"x": {"type": "array", "items": [{"type": "string"}]}}}, False),
    ({"type": "object", "properties": {"x": {"anyOf": []}}}, False),
    ({"type": "object", "properties": {"x": {"type": "string", "minLength": -1}}}, False),
])
def test_a_tools_input_schema_must_be_json_schema(schema, valid):
    tools = [{"name": "t", "description": "d", "input_schema": schema}]
    found = check_body(body([{"role": "user", "content": "hi"}], tools=tools), "real-api")
    assert found == ([] if valid else [limits.INVALID_SCHEMA.format(index=0)])
    assert found[0].startswith("tools.0.custom.input_schema: JSON schema is invalid") if found else valid


def test_the_total_text_of_a_request_has_the_apis_limit():
    half = "é" * (limits.MAX_TEXT_BYTES // 4)  # two bytes a character: the two messages hold the limit exactly
    at_limit = body([{"role": "user", "content": half}, {"role": "assistant", "content": half},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": []}]}])
    assert check_body(at_limit, "real-api") == ["messages.2.content.0: unexpected `tool_use_id` found in "
                                                "`tool_result` blocks: t. Each `tool_result` block must have a "
                                                "corresponding `tool_use` block in the previous message."]
    over = {**at_limit, "system": "s"}
    assert check_body(over, "real-api")[0] == "too many total text bytes: 9000001 > 9000000"
    in_a_result = {**at_limit, "messages": [*at_limit["messages"][:2], {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x"}]}]}]}
    assert check_body(in_a_result, "real-api")[0] == "too many total text bytes: 9000001 > 9000000"


def test_lesson_mode_keeps_its_rules_for_bodies():
    messages = [{"role": "user", "content": "hi"}]
    assert check_body(body(messages, max_tokens=64, thinking=THINKING_ON), "lesson") == []


@pytest.mark.parametrize("in_process", [False, True])
def test_the_stand_in_plays_any_model_unless_told_to_answer_as_the_api_does(stand_in_api, in_process):
    import anthropic

    from agent.real.models import model_names

    replies = [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "hi"}]}] * 2
    ask = {"max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    lenient = stand_in_api(replies=replies, in_process=in_process).client(max_retries=0)
    assert lenient.messages.create(model="claude-imaginary-9", **ask).content[0].text == "hi"
    strict = stand_in_api(replies=replies, in_process=in_process, strict_models=True).client(max_retries=0)
    with pytest.raises(anthropic.NotFoundError) as refused:
        strict.messages.create(model="claude-imaginary-9", **ask)
    assert refused.value.body["error"] == {"type": "not_found_error", "message": "model: claude-imaginary-9"}
    assert strict.messages.create(model=model_names()[0], **ask).content[0].text == "hi"


def test_with_thinking_on_real_api_mode_judges_the_merged_turns_before_the_last_tool_results():
    call = {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 3}}
    answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    split_turn = [{"role": "user", "content": "What is 2 + 3?"},
                  {"role": "assistant", "content": [thought("Add them.", signing.sign("Add them.")),
                                                    {"type": "text", "text": "Adding."}]},
                  {"role": "assistant", "content": [call]}, answer]
    assert check_body(body(split_turn, thinking=THINKING_ON), "real-api") == []
    dropped = [{"role": "user", "content": "What is 2 + 3?"}, {"role": "assistant", "content": [call]}, answer,
               {"role": "user", "content": "and then?"}]
    assert check_body(body(dropped, thinking=THINKING_ON), "real-api")[0].startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.")
    prefill = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "So"}]},
               {"role": "assistant", "content": [thought("x", signing.sign("x")), {"type": "text", "text": "ok"}]}]
    assert check_body(body(prefill), "real-api")[0].startswith(
        "messages.1.content.1: When thinking is disabled, an `assistant` message in the final position")


SEARCH = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "duration"}}
ADD = {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 2}}
ADDED = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "4"}]}
OPEN_SEARCH = ("messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
               "srvtoolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.")


def test_a_server_call_in_flight_is_taken_while_only_client_tool_results_follow_it():
    # pydantic/pydantic-ai's test_unpaired_native_tool_calls: accepted with only tool results after the call,
    # refused once a turn with any other content follows.
    in_flight = [{"role": "user", "content": "Look it up, then add 2 and 2."},
                 {"role": "assistant", "content": [SEARCH, ADD]}, ADDED]
    assert check_body(body(in_flight), "real-api") == []
    followed = [*in_flight, {"role": "assistant", "content": "It is 4."}, {"role": "user", "content": "And?"}]
    assert check_body(body(followed), "real-api") == [OPEN_SEARCH.format(i=1)]
    with_text = [*in_flight[:2], {"role": "user", "content": [*ADDED["content"], {"type": "text", "text": "go"}]}]
    assert check_body(body(with_text), "real-api") == [OPEN_SEARCH.format(i=1)]
    mcp = {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "ask", "server_name": "docs", "input": {}}
    mcp_open = [in_flight[0], {"role": "assistant", "content": [mcp, ADD]}, *followed[2:]]
    assert check_body(body(mcp_open), "real-api", betas=("mcp-client-2025-04-04",))[0].endswith(
        "after: mcptoolu_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.")


def test_an_incremental_check_refuses_a_server_call_once_the_conversation_moves_past_it():
    from agent.api.requests import RequestChecker

    checker = RequestChecker("real-api")
    messages = [{"role": "user", "content": "Look it up, then add 2 and 2."},
                {"role": "assistant", "content": [SEARCH, ADD]}, ADDED]
    assert checker.check(messages) == []
    messages += [{"role": "assistant", "content": "It is 4."}, {"role": "user", "content": "And?"}]
    assert checker.check(messages) == [OPEN_SEARCH.format(i=1)]
    assert checker.from_start == 1  # the second request was checked from the last turn on, and still caught it


def test_real_api_mode_judges_the_merged_turn_numbered_as_the_api_numbers_it():
    question = {"role": "user", "content": "Look it up."}
    merged_users = [question, {"role": "user", "content": "Please."}, {"role": "assistant", "content": [SEARCH]},
                    {"role": "user", "content": "Thanks."}]
    assert check_body(body(merged_users), "real-api") == [OPEN_SEARCH.format(i=1)]
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}
    answered_later = [question, {"role": "assistant", "content": [SEARCH]}, {"role": "assistant", "content": [result]},
                      {"role": "user", "content": "Thanks."}]
    assert check_body(body(answered_later), "real-api") == []  # one merged turn holds the call and its result
    signed = thought("Hm.", signing.sign("Hm."))
    thinking_then_more = [question, {"role": "assistant", "content": [signed]},
                          {"role": "assistant", "content": [{"type": "text", "text": "Found it."}]},
                          {"role": "user", "content": "Thanks."}]
    assert check_body(body(thinking_then_more), "real-api") == []  # the merged turn ends with text
    assert check_body(body(thinking_then_more), "lesson")[0] == \
        "The final block in an assistant message cannot be `thinking`."
    ends_thinking = [question, {"role": "assistant", "content": [{"type": "text", "text": "So"}]},
                     {"role": "assistant", "content": [signed]}, {"role": "user", "content": "Thanks."}]
    assert check_body(body(ends_thinking), "real-api") == [
        "The final block in an assistant message cannot be `thinking`."]


SYSTEM_MESSAGE = {"role": "system", "content": [{"type": "text", "text": "Answer with type annotations."}]}


def test_a_system_message_inside_messages_is_taken_on_the_beta_endpoint_and_refused_on_the_plain_one():
    from agent.api.requests import BETA_ENDPOINT
    from agent.api.rules import SYSTEM_ROLE

    # pydantic/pydantic-ai's mid-conversation system cassettes: before the reply, or before another system message.
    history = [{"role": "user", "content": "Review it."}, {"role": "assistant", "content": "Looks fine."},
               {"role": "user", "content": "Again."}, SYSTEM_MESSAGE]
    assert check_body(body(history), "real-api", betas=(BETA_ENDPOINT,)) == []
    assert check_body(body([*history, SYSTEM_MESSAGE]), "real-api", betas=(BETA_ENDPOINT,)) == []
    assert check_body(body(history), "real-api") == [SYSTEM_ROLE]
    assert check_body(body(history), "lesson", betas=(BETA_ENDPOINT,)) == [SYSTEM_ROLE]
    before_user = [*history[:2], SYSTEM_MESSAGE, history[2]]
    assert check_body(body(before_user), "real-api", betas=(BETA_ENDPOINT,)) == [
        "messages.2: a `system` message must come right before an `assistant` message, another `system` message, "
        "or at the end of `messages`"]
    addition = {"role": "system", "content": [{"type": "tool_addition", "tool_name": "add"}]}
    assert check_body(body([*history[:3], addition]), "real-api", betas=(BETA_ENDPOINT,)) == [
        "messages.3.content.0: Input tag 'tool_addition' found using 'type' does not match any of the expected "
        "tags: 'text'"]


def test_the_beta_endpoint_alone_unlocks_no_beta_field():
    from agent.api.requests import BETA_ENDPOINT

    edits = body([{"role": "user", "content": "hi"}],
                 context_management={"edits": [{"type": "clear_tool_uses_20250919"}]})
    assert check_body(edits, "real-api", betas=(BETA_ENDPOINT,)) == [
        "context_management: Extra inputs are not permitted"]
    assert check_body(edits, "real-api", betas=(BETA_ENDPOINT, "context-management-2025-06-27")) == []


def test_with_thinking_on_the_rule_before_the_last_tool_results_sees_past_a_final_system_message():
    from agent.api.requests import BETA_ENDPOINT

    dropped = [{"role": "user", "content": "Look it up, then add 2 and 2."}, {"role": "assistant", "content": [ADD]},
               ADDED, SYSTEM_MESSAGE]
    assert check_body(body(dropped, thinking=THINKING_ON), "real-api", betas=(BETA_ENDPOINT,))[0].startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`.")
