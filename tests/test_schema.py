"""The request body's schema: it is the SDK's, it never crashes, and each case of issue 9 reads in the API's words.

Wording sources (also in docs/request-rules.md's rules table): the `Extra inputs`, `Field required` and thinking
cases are quoted from public reports in issue 9; `Input tag ... expected tags: ...` is pydantic's discriminated-union
message as the API (and Bedrock's copy of it) sends it; the version rules follow the migration guide to 2026-10-21.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sdk_schema import SCHEMA_FILE, read_sdk_schema, schema_text

from agent.api import schema
from agent.api.requests import LATEST_VERSION, OLD_VERSION, RequestChecker, check_body, check_messages
from agent.api.signing import sign

USER = {"role": "user", "content": "What is 2 + 3?"}


def thought(value="plan", signature=None):
    return {"type": "thinking", "thinking": value, "signature": sign(value) if signature is None else signature}


def call(tool_id="toolu_1", **extra):
    return {"type": "tool_use", "id": tool_id, "name": "add", "input": {"a": 2, "b": 3}, **extra}


def result(tool_id="toolu_1", **extra):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "5", **extra}


def turn(*assistant_blocks, results=None):
    """A first turn: the task, the reply, the results."""
    return [USER, {"role": "assistant", "content": list(assistant_blocks)},
            {"role": "user", "content": results if results is not None else [result()]}]


def body(messages, **fields):
    return {"model": "claude-sonnet-5", "max_tokens": 2048, "messages": messages, **fields}


# ---- the schema is the installed SDK's ------------------------------------------------------------------------------


def test_the_schema_file_is_what_the_installed_sdk_says():
    """When the SDK moves, this fails: run `python tests/sdk_schema.py` and read the diff."""
    import anthropic

    written = json.loads(SCHEMA_FILE.read_text())["sdk_version"]
    assert SCHEMA_FILE.read_text() == schema_text(read_sdk_schema()), (
        f"agent/api/api_schema.json was read from anthropic {written}, and anthropic {anthropic.__version__} is "
        "installed: run `python tests/sdk_schema.py`, read `git diff agent/api/api_schema.json`, and commit it")


def test_every_content_block_type_the_sdk_lists_is_known():
    import typing

    from anthropic.types import ContentBlockParam

    listed = {typing.get_type_hints(member)["type"].__args__[0] for member in typing.get_args(ContentBlockParam)}
    assert {"container_upload", "web_fetch_tool_result", "code_execution_tool_result",
            "bash_code_execution_tool_result", "text_editor_code_execution_tool_result",
            "tool_search_tool_result"} <= listed
    known = {tag for m in schema.definition("AssistantMessageParam")["fields"]["content"]["union"][1]["list"]["union"]
             for tag in schema.definition(m["ref"])["fields"]["type"]["literal"]}
    assert known == listed


# ---- never a crash, whatever JSON comes -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10 ** 30), max_value=10 ** 30) | st.floats()
    | st.text(max_size=8) | st.sampled_from(["user", "assistant", "system", "text", "thinking", "tool_use",
                                            "tool_result", "image", "document", "enabled", "create", "continue"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "type", "text", "thinking", "signature", "id", "name", "input",
                         "tool_use_id", "is_error", "source", "model", "max_tokens", "messages", "thread", "x"]),
        inner, max_size=5),
    max_leaves=25)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, mode=st.sampled_from(["lesson", "real-api"]), version=st.sampled_from(
    ["2023-06-01", "2026-10-21"]), endpoint=st.sampled_from(["create", "count_tokens"]))
def test_no_json_value_makes_the_checks_raise(value, mode, version, endpoint):
    for candidate in (value, {"model": "m", "max_tokens": 1, "messages": value}, {"messages": [value]},
                      {"messages": [{"role": "user", "content": value}]},
                      {"messages": [USER, {"role": "assistant", "content": [value]}]}):
        problems = check_body(candidate, mode, version, endpoint)
        assert all(isinstance(problem, str) and problem for problem in problems)


@pytest.mark.parametrize("value", [10 ** 400, float("inf"), float("nan"), -0.0, [[[[[]]]]], {"": None}, "\ud800"])
def test_odd_values_are_answered_in_words(value):
    problems = check_body({"model": value, "max_tokens": value, "messages": [{"role": "user", "content": value}]})
    assert problems and all(isinstance(problem, str) for problem in problems)


# ---- refused, as the API refuses it ---------------------------------------------------------------------------------


@pytest.mark.parametrize("request_body, expected", [
    (body(turn(call(text="oops"))), "messages.1.content.0.tool_use.text: Extra inputs are not permitted"),
    (body(turn(call(result=5))), "messages.1.content.0.tool_use.result: Extra inputs are not permitted"),
    (body(turn({**thought(), "cache_control": {"type": "ephemeral"}}, call())),
     "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted"),
    (body([USER], response_format={"type": "json"}), "response_format: Extra inputs are not permitted"),
    (body(turn(call(), results=[result(is_error="yes")])),
     "messages.2.content.0.tool_result.is_error: Input should be a valid boolean"),
    (body(turn({**call(), "input": '{"a": 2}'})), "messages.1.content.0.tool_use.input: Input should be a valid "
                                                   "dictionary"),
    (body(turn(call(), results=[{**result(), "content": [result()]}])),
     "messages.2.content.0.tool_result.content.0: Input tag 'tool_result' found using 'type' does not match any of "
     "the expected tags: 'text', 'image', 'search_result', 'document', 'tool_reference', 'browser_state'"),
    (body(turn({"type": "thinking", "thinking": "plan"}, call())),
     "messages.1.content.0.thinking.signature: Field required"),
    (body(turn(thought("plan", signature=sign("another plan")), call())),
     "messages.1.content.0: Invalid `signature` in `thinking` block"),
    (body(turn(call(), results=[result()]), max_tokens=-1), "max_tokens: Input should be greater than or equal to 0"),
])
@pytest.mark.parametrize("mode", ["lesson", "real-api"])
def test_what_the_api_refuses_is_refused_in_its_words(request_body, expected, mode):
    assert check_body(request_body, mode)[0] == expected


def test_a_whole_reply_appended_as_a_message_is_refused():
    reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [call()],
             "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    problems = check_messages([USER, reply, {"role": "user", "content": [result()]}])
    assert problems[:2] == ["messages.1.id: Extra inputs are not permitted",
                            "messages.1.type: Extra inputs are not permitted"]


# ---- accepted, as the API accepts it --------------------------------------------------------------------------------


@pytest.mark.parametrize("block", [
    {"type": "container_upload", "file_id": "file_1"},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": {"url": "https://example.org"}},
])
def test_block_types_the_sdk_lists_are_known(block):
    assert check_messages([{"role": "user", "content": [block, {"type": "text", "text": "see above"}]}]) == []


def test_messages_may_be_any_iterable_as_the_sdk_sends_a_json_array():
    assert check_messages(tuple(turn(thought(), call()))) == []
    assert check_messages(iter(turn(thought(), call()))) == []


def test_max_tokens_zero_only_warms_the_cache():
    assert check_body(body([USER], max_tokens=0)) == []


def test_count_tokens_takes_no_max_tokens():
    assert check_body({"model": "m", "messages": [USER]}, "real-api", endpoint="count_tokens") == []
    assert check_body(body([USER]), endpoint="count_tokens") == ["max_tokens: Extra inputs are not permitted"]


def test_the_thread_field_of_the_threads_beta_is_a_field_of_the_body():
    assert check_body(body([USER], thread={"type": "create"})) == []
    assert check_body(body([USER], thread={"type": "continue"})) == [
        "thread.continue.previous_message_id: Field required"]


# ---- the API version decides ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("field, value", [("temperature", 1.0), ("top_p", 0.9), ("top_k", 5)])
def test_sampling_fields_are_refused_by_2026_10_21_even_at_defaults_and_taken_by_2023_06_01(field, value):
    assert check_body(body([USER], **{field: value})) == [f"{field}: Extra inputs are not permitted"]
    assert check_body(body([USER], **{field: value}), version=OLD_VERSION) == []
    assert check_body(body([USER], temperature="hot"), version=OLD_VERSION) == [
        "temperature: Input should be a valid number"]


def test_a_document_in_an_assistant_message_is_refused_by_2026_10_21_only():
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    messages = [USER, {"role": "assistant", "content": [document, {"type": "text", "text": "Read."}]},
                {"role": "user", "content": "go on"}]
    assert check_messages(messages) == ["messages.1.content.0: a `document` block in an `assistant` message is not "
                                        "accepted by API version 2026-10-21"]
    assert check_messages(messages, version=OLD_VERSION) == []


def test_citations_on_a_users_text_block_are_refused_by_2026_10_21_only():
    cited = {"type": "text", "text": "As said", "citations": [
        {"type": "char_location", "cited_text": "x", "document_index": 0, "document_title": None, "start_char_index": 0,
         "end_char_index": 1}]}
    messages = [{"role": "user", "content": [cited]}]
    assert check_messages(messages) == ["messages.0.content.0.text.citations: citations on a `text` block in a `user` "
                                        "message are not accepted by API version 2026-10-21"]
    assert check_messages(messages, version=OLD_VERSION) == []
    assert check_messages([{"role": "user", "content": [{**cited, "citations": []}]}]) == []


# ---- thinking: where the API's rules apply --------------------------------------------------------------------------


def test_with_thinking_on_the_last_assistant_turn_of_a_tool_loop_must_start_with_its_thinking():
    dropped = turn(call())
    problems = check_body(body(dropped, thinking={"type": "enabled", "budget_tokens": 1024}), "real-api")
    assert problems == [
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` "
        "is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of "
        "`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To "
        "avoid this requirement, disable `thinking`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"]
    assert check_body(body(dropped), "real-api") == []  # thinking off: earlier thinking may be left out


def test_with_thinking_on_a_redacted_thinking_block_may_lead_the_last_assistant_turn():
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr"}
    thinking_on = {"type": "enabled", "budget_tokens": 1024}
    assert check_body(body(turn(redacted, call()), thinking=thinking_on), "real-api") == []
    assert check_body(body(turn(thought(), call()), thinking=thinking_on), "real-api") == []


def test_with_thinking_off_a_prefill_may_not_hold_thinking():
    prefill = [USER, {"role": "assistant", "content": [thought(), {"type": "text", "text": "So"}]}]
    assert check_body(body(prefill), "real-api") == [
        "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
        "contain `thinking`. To use thinking blocks, enable `thinking` in your request."]
    assert check_body(body(prefill, thinking={"type": "adaptive"}), "real-api") == []


def test_a_signature_a_script_gives_holds_for_its_own_text_only():
    checker = RequestChecker()
    checker.trust([thought("plan", signature="EqQBCkYIARgC")])
    assert checker.check(turn(thought("plan", signature="EqQBCkYIARgC"), call())) == []
    assert checker.check(turn(thought("other", signature="EqQBCkYIARgC"), call())) == [
        "messages.1.content.0: Invalid `signature` in `thinking` block"]


def test_the_schema_file_is_json_with_one_definition_a_line():
    data = json.loads(SCHEMA_FILE.read_text())
    assert data["api_version"] == "2026-10-21" and data["create"] == "MessageCreateParamsBase"


def test_check_request_takes_the_version_and_the_endpoint(tmp_path, capsys):
    from agent.__main__ import main

    path = tmp_path / "body.json"
    path.write_text(json.dumps(body([USER], temperature=1.0)))
    assert main(["check-request", str(path)]) == 1
    assert capsys.readouterr().out == "bad request: temperature: Extra inputs are not permitted\n"
    assert main(["check-request", str(path), "--api-version", "2023-06-01"]) == 0
    assert main(["check-request", str(path), "--api-version", "2023-06-01", "--count-tokens"]) == 1
    assert "max_tokens: Extra inputs are not permitted" in capsys.readouterr().out


def test_the_fake_model_drops_the_lessons_thinking_rule_in_real_api_mode_where_the_api_has_none():
    from agent.api.requests import RequestRejected
    from agent.models.fake import FakeModel
    from agent.scripts import parse_script
    from helpers import reply, text, tool_use

    script = parse_script({"replies": [reply("tool_use", thought("add them"), tool_use("toolu_1")),
                                       reply("end_turn", text("5"))]}, name="t")
    for mode in ("lesson", "real-api"):
        model = FakeModel(script, mode=mode)
        first = model.create([USER])
        dropped = [USER, {"role": "assistant", "content": [b for b in first["content"] if b["type"] != "thinking"]},
                   {"role": "user", "content": [result("toolu_1")]}]
        if mode == "lesson":  # the lesson's rule: the whole reply goes back
            with pytest.raises(RequestRejected, match="cannot be modified"):
                model.create(dropped)
        else:  # the API with thinking off: earlier thinking may be left out
            assert model.create(dropped)["stop_reason"] == "end_turn"


def test_the_fake_model_checks_the_body_fields_a_loop_passes_by_the_sdks_version():
    from agent.api.requests import RequestRejected
    from agent.models.fake import FakeModel
    from agent.scripts import parse_script
    from helpers import reply, text

    script = parse_script({"replies": [reply("end_turn", text("hi"))]}, name="t")
    with pytest.raises(RequestRejected, match="^temperature: Extra inputs are not permitted$"):
        FakeModel(script).create([USER], temperature=0.0)
    assert FakeModel(script, version=OLD_VERSION).create([USER], temperature=0.0)["stop_reason"] == "end_turn"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, version=st.sampled_from(["2023-06-01", "2026-10-21"]))
def test_the_stand_in_answers_any_json_body_with_a_reply_or_an_api_error(value, version):
    from agent.real.server import ApiError, StandInServer
    from agent.scripts import load_script

    server = StandInServer(load_script("add_then_answer"), port=0)
    try:
        for candidate in (value, {"model": "m", "max_tokens": 5, "messages": value},
                          {"model": "m", "max_tokens": 5, "messages": [USER], "thread": value},
                          {"model": "m", "max_tokens": 5, "messages": [value], "thread": {"type": "create"}}):
            for answer in (server.answer, server.count_tokens):
                try:
                    answered = answer(candidate, version)
                except ApiError as refused:
                    assert refused.status in (400, 404) and refused.message
                else:
                    assert isinstance(answered, dict)
    finally:
        server.server_close()


def test_a_run_checked_again_keeps_an_assistant_turn_of_two_messages_whole_in_real_api_mode():
    checker = RequestChecker("real-api")
    messages = [USER, {"role": "assistant", "content": [call("toolu_x")]},
                {"role": "assistant", "content": [call("toolu_y")]},
                {"role": "user", "content": [result("toolu_x"), result("toolu_y")]}]
    assert checker.check(messages) == []
    messages += [{"role": "assistant", "content": "5"}, {"role": "user", "content": "Thanks."}]
    assert checker.check(messages) == []


THINKING_ON = {"type": "enabled", "budget_tokens": 1024}
NO_THINKING_FIRST = ("messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. "
                     "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
                     "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
                     "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please "
                     "consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking")


def test_with_thinking_on_a_plain_text_reply_before_the_results_is_named_as_text():
    problems = check_body(body([USER, {"role": "assistant", "content": "Let me add."},
                                {"role": "user", "content": [result()]}], thinking=THINKING_ON), "real-api")
    assert problems[-1] == NO_THINKING_FIRST.format(i=1, found="text")


def test_the_thinking_rule_still_applies_when_an_earlier_message_is_not_an_object():
    problems = check_body(body([USER, 42, *turn(call())[1:]], thinking=THINKING_ON), "real-api")
    assert problems[0] == "messages.1: Input does not match the expected shape."  # the API's words, recorded
    assert problems[-1] == NO_THINKING_FIRST.format(i=2, found="tool_use")


def test_with_thinking_on_an_assistant_content_that_is_an_object_is_refused_in_words():
    problems = check_body(body([USER, {"role": "assistant", "content": {"type": "text"}},
                                {"role": "user", "content": [result()]}], thinking=THINKING_ON), "real-api")
    assert problems and all(isinstance(p, str) for p in problems)
    assert problems[-1] == NO_THINKING_FIRST.format(i=1, found="text")


def test_with_thinking_off_a_prefill_may_not_hold_redacted_thinking_either():
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgB"}
    prefill = [USER, {"role": "assistant", "content": [redacted, {"type": "text", "text": "So"}]}]
    assert check_body(body(prefill), "real-api") == [
        "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
        "contain `thinking`. To use thinking blocks, enable `thinking` in your request."]


def test_a_run_checked_again_takes_only_the_assistant_turn_just_before_the_last_in_real_api_mode():
    checker = RequestChecker("real-api")
    messages = [USER, {"role": "assistant", "content": [call("toolu_x")]},
                {"role": "user", "content": [result("toolu_x")]}, {"role": "assistant", "content": [call("toolu_y")]},
                {"role": "assistant", "content": [call("toolu_z")]},
                {"role": "user", "content": [result("toolu_y"), result("toolu_z")]}]
    assert checker.check(messages) == []
    grown = messages + [{"role": "assistant", "content": "Done."}, {"role": "user", "content": "Thanks."}]
    assert checker.check(grown) == []
    checker = RequestChecker("real-api")
    assert checker.check(messages) == []
    messages[5]["content"][1]["tool_use_id"] = "toolu_q"  # the last turn is checked again, so this is seen
    messages += [{"role": "assistant", "content": "Sure."}, {"role": "user", "content": "Bye."}]
    assert checker.check(messages) == check_messages(messages, "real-api")
    assert checker.check(messages)[-1].startswith("messages.3: `tool_use` ids were found without `tool_result` blocks")


def test_an_unknown_api_version_is_refused_in_words():
    with pytest.raises(ValueError) as caught:
        RequestChecker(version="2024-01-01")
    assert str(caught.value) == "version must be one of 2023-06-01, 2026-10-21, not '2024-01-01'"


TAGS = ("'text', 'image', 'document', 'search_result', 'thinking', 'redacted_thinking', 'tool_use', 'tool_result', "
        "'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', "
        "'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result', 'tool_search_tool_result', "
        "'container_upload'")


# How each union is told apart is worked out once per process, on the first request that reaches it, and kept; every
# other test here meets it already worked out, so these start from nothing, as a fresh server or CLI does.
@pytest.mark.parametrize("request_body, expected", [
    (body([{"role": "bot", "content": "hi"}]), "messages.0.role: Input should be 'user' or 'assistant'"),
    (body([{"content": "hi"}]), "messages.0: Unable to extract tag using discriminator 'role'"),
    (body([{"role": "user", "content": [{"type": "imagee"}]}]),
     f"messages.0.content.0: Input tag 'imagee' found using 'type' does not match any of the expected tags: {TAGS}"),
    (body([{"role": "user", "content": [{"text": "x"}]}]),
     "messages.0.content.0: Unable to extract tag using discriminator 'type'"),
    (body([{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {}}]}]),
     "messages.0.content.0.text.cache_control.type: Field required"),  # a union of one object and null: no tag
    (body([{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral",
                                                                                       "ttl": "2h"}}]}]),
     "messages.0.content.0.text.cache_control.ttl: Input should be '1h' or '5m'"),
    (body([USER], max_tokens="many"), "max_tokens: Input should be a valid integer"),
    (body([USER], service_tier="slow"), "service_tier: Input should be 'auto' or 'standard_only'"),
])
def test_the_first_request_a_process_checks_is_refused_in_the_apis_words(request_body, expected, monkeypatch):
    monkeypatch.setattr(schema, "_plans", {})
    monkeypatch.setattr(schema, "_literal_pairs", {})
    assert check_body(request_body) == [expected]
    assert check_body(body(turn(thought(), call()))) == []  # and what is right still passes


def test_the_body_check_refuses_the_sampling_fields_unless_told_the_old_version_takes_them():
    assert schema.body_problems(body([USER], temperature=0.5)) == ["temperature: Extra inputs are not permitted"]
    assert schema.body_problems(body([USER], temperature=0.5), sampling=True) == []


def test_a_request_with_many_problems_lists_the_first_twenty():
    problems = check_body(body([USER], **{f"field_{n:02d}": n for n in range(30)}))
    assert problems == [f"field_{n:02d}: Extra inputs are not permitted" for n in range(20)]


@pytest.mark.parametrize("fields, version, expected", [
    ({"messages": [{"role": "user", "content": [{"type": 5}]}]}, None,
     f"messages.0.content.0: Input tag 5 found using 'type' does not match any of the expected tags: {TAGS}"),
    ({"messages": [{"role": 5, "content": "x"}]}, None, "messages.0.role: Input should be 'user' or 'assistant'"),
    ({"max_tokens": 1.5}, None, "max_tokens: Input should be a valid integer"),
    ({"max_tokens": True}, None, "max_tokens: Input should be a valid integer"),
    ({"stream": "yes"}, None, "stream: Input should be a valid boolean"),
    ({"metadata": "x"}, None, "metadata: Input should be a valid dictionary"),
    ({"tool_choice": {"type": "auto", "disable_parallel_tool_use": "no"}}, None,
     "tool_choice.auto.disable_parallel_tool_use: Input should be a valid boolean"),
    ({"tool_choice": {"type": "none2"}}, None,
     "tool_choice: Input tag 'none2' found using 'type' does not match any of the expected tags: 'auto', 'any', "
     "'tool', 'none'"),
    ({"stop_sequences": "END"}, None, "stop_sequences: Input should be a valid list"),
    ({"system": [{"type": "text", "text": 5}]}, None, "system.0.text: Input should be a valid string"),
    ({"tools": [{"name": "t", "input_schema": {"type": "object"}, "type": "customm"}]}, None,
     "tools.0.type: Input should be 'custom'"),
    ({"model": 5}, None, "model: Input should be 'claude-fable-5', 'claude-fable-5-1', "),
    ({"top_k": 1.5}, OLD_VERSION, "top_k: Input should be a valid integer"),
    ({"temperature": True}, OLD_VERSION, "temperature: Input should be a valid number"),
])
def test_a_field_of_the_wrong_kind_is_said_as_the_api_says_it(fields, version, expected):
    problems = check_body(body([USER]) | fields, version=version or LATEST_VERSION)
    assert len(problems) == 1 and problems[0].startswith(expected) and (expected.endswith(", ") or
                                                                         problems[0] == expected)
    assert check_body(body([USER], temperature=1), version=OLD_VERSION) == []
