"""Every request rule in both modes, with the API's wording."""

import pytest

from agent.api.requests import RequestChecker, RequestRejected, check_body, check_messages
from agent.api.signing import sign


def user(content):
    return {"role": "user", "content": content}


def assistant(content):
    return {"role": "assistant", "content": content}


def call(tool_id, name="add", tool_input=None):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input or {"a": 1, "b": 2}}


def result(tool_id, content="3"):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def text(value):
    return {"type": "text", "text": value}


def thought(value):
    return {"type": "thinking", "thinking": value, "signature": sign(value)}


GOOD = [user("What is 1 + 2?"), assistant([thought(""), call("toolu_1")]),
        user([result("toolu_1")])]


@pytest.mark.parametrize("mode", ["lesson", "real-api"])
def test_a_good_conversation_passes_in_both_modes(mode):
    assert check_messages(GOOD, mode) == []


@pytest.mark.parametrize("mode", ["lesson", "real-api"])
@pytest.mark.parametrize("messages, expected", [
    ([], "messages: at least one message is required"),
    ([{"role": "system", "content": "Be brief."}, user("hi")],
     'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" '
     'as an input message role.'),
    ([user("hi"), {"role": "tool", "content": "3"}], "messages.1.role: Input should be 'user' or 'assistant'"),
    ([user("hi"), assistant([call("toolu_a"), call("toolu_b")]), user([text("well?")])],
     "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b. "
     "Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
    ([user("hi"), assistant([call("toolu_a")]), user([result("toolu_x"), result("toolu_a")])],
     "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. Each `tool_result` "
     "block must have a corresponding `tool_use` block in the previous message."),
    ([user("hi"), assistant([call("toolu_a")]), user([text("here:"), result("toolu_a")])],
     "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
     "`tool_use` blocks must begin with a matching number of `tool_result` blocks."),
    ([user("hi"), assistant([call("toolu 1")]), user([result("toolu 1")])],
     "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    ([user("hi"), assistant([]), user("again")],
     "messages.1: all messages must have non-empty content except for the optional final assistant message"),
    ([user([text("")])], "messages: text content blocks must be non-empty"),
    ([user([text("  \n")])], "messages: text content blocks must contain non-whitespace text"),
    ([user("hi"), assistant([text("Let me think."), thought("hm")]), user("go on")],
     "The final block in an assistant message cannot be `thinking`."),
    ([user([{"type": "tool_call", "id": "x"}])],
     "messages.0.content.0: Input tag 'tool_call' found using 'type' does not match any of the expected tags: "
     "'text', 'image', 'document', 'search_result', 'thinking', 'redacted_thinking', 'tool_use', 'tool_result', "
     "'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', "
     "'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result', 'tool_search_tool_result', "
     "'container_upload'"),
])
def test_each_rule_names_its_place_in_the_apis_words(mode, messages, expected):
    assert check_messages(messages, mode)[0] == expected


@pytest.mark.parametrize("messages, expected", [
    ([assistant("Hello"), user("hi")], 'messages: first message must use the "user" role'),
    ([user("hi"), assistant([call("toolu_a")]), user([result("toolu_a")]), assistant([call("toolu_a")]),
      user([result("toolu_a")])],
     "messages.3.content.0: `tool_use` ids must be unique"),
    ([user("hi"), assistant([text(" "), call("toolu_a")]), user([result("toolu_a")])],
     "messages: text content blocks must contain non-whitespace text"),
])
def test_the_lesson_refuses_what_the_api_itself_accepts(messages, expected):
    assert check_messages(messages, "lesson")[0] == expected
    assert check_messages(messages, "real-api") == []


def test_real_api_mode_wants_tool_use_ids_unique_within_the_message_the_api_merges():
    twice = [user("hi"), assistant([call("toolu_a")]), assistant([call("toolu_a")]),
             user([result("toolu_a"), result("toolu_a")])]
    assert check_messages(twice, "real-api")[0] == "messages.1.content.1: `tool_use` ids must be unique"


def test_real_api_mode_numbers_blocks_as_the_api_does_after_merging_a_roles_messages():
    stray = [user("hi"), user([result("toolu_x")])]
    assert check_messages(stray, "real-api")[0].startswith("messages.0.content.1: unexpected `tool_use_id` found")
    assert check_messages(stray, "lesson")[0].startswith("messages: roles must alternate")
    split = [user("hi"), assistant([text("Two calls.")]), assistant([call("toolu_a"), call("toolu_b")]),
             user([result("toolu_a")]), user([text("and"), result("toolu_b")])]
    assert check_messages(split, "real-api") == [
        "messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks."]
    checker = RequestChecker("real-api")  # checked again from its last turn, the numbers are the same
    answered = split[:3] + [user([result("toolu_a"), result("toolu_b")])]
    assert checker.check(answered) == []
    later = answered + [assistant([call("toolu_c")]), user("hi"), user([result("toolu_c")])]
    assert checker.check(later) == check_messages(later, "real-api") == [
        "messages.4: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks."]


def test_real_api_mode_wants_a_server_tools_call_answered_in_its_own_message_unless_it_is_the_paused_last():
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "x"}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}
    unanswered = [user("hi"), assistant([search]), user("go on")]
    assert check_messages(unanswered, "real-api") == [
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: srvtoolu_01. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."]
    assert check_messages([user("hi"), assistant([search, found, text("Found it.")]), user("go on")], "real-api") == []
    assert check_messages([user("hi"), assistant([search])], "real-api") == []  # pause_turn: sent back to go on


def test_lesson_mode_refuses_two_user_messages_in_a_row():
    problems = check_messages([user("hi"), user("again")], "lesson")
    assert problems == ['messages: roles must alternate between "user" and "assistant", but found multiple "user" '
                        'roles in a row']


def test_lesson_mode_names_the_assistant_role_too():
    problems = check_messages([user("hi"), assistant("a"), assistant("b"), user("c")], "lesson")
    assert 'found multiple "assistant" roles in a row' in problems[0]


def test_real_api_mode_merges_consecutive_turns_of_one_role():
    assert check_messages([user("hi"), user("again")], "real-api") == []
    # merged, the results still lead the user turn that follows the calls
    messages = [user("hi"), assistant([call("toolu_a")]), user([result("toolu_a")]), user("and also this")]
    assert check_messages(messages, "real-api") == []


def test_lesson_mode_wants_the_last_message_to_be_the_users():
    problems = check_messages([user("hi"), assistant("Hello")], "lesson")
    assert problems == ['messages: the final message must use the "user" role']


def test_real_api_mode_allows_a_prefill_but_not_trailing_whitespace():
    assert check_messages([user("hi"), assistant("The answer is")], "real-api") == []
    assert check_messages([user("hi"), assistant("The answer is ")], "real-api") == [
        "messages: final assistant content cannot end with trailing whitespace"]


def test_real_api_mode_allows_an_empty_final_assistant_message_only():
    assert check_messages([user("hi"), assistant([])], "real-api") == []
    assert check_messages([user("hi"), assistant([])], "lesson")[0].startswith("messages.1: all messages must")


def test_a_prefill_cannot_leave_a_call_unanswered():
    problems = check_messages([user("hi"), assistant([call("toolu_a")])], "real-api")
    assert problems[0].startswith("messages.1: `tool_use` ids were found without `tool_result` blocks")


def test_every_problem_is_listed_in_order():
    problems = check_messages([assistant([text("")]), assistant("x")], "lesson")
    assert problems == ['messages: first message must use the "user" role',
                        "messages: text content blocks must be non-empty",
                        'messages: roles must alternate between "user" and "assistant", but found multiple '
                        '"assistant" roles in a row',
                        'messages: the final message must use the "user" role']


def test_a_string_content_is_one_text_block():
    assert check_messages([user("")], "lesson") == [
        "messages.0: all messages must have non-empty content except for the optional final assistant message"]


def test_require_raises_the_first_problem():
    with pytest.raises(RequestRejected) as caught:
        RequestChecker().require([assistant("x")])
    assert str(caught.value) == 'messages: first message must use the "user" role'
    assert len(caught.value.problems) == 2


def test_unknown_mode_is_refused_in_words():
    with pytest.raises(ValueError, match="mode must be one of lesson, real-api"):
        RequestChecker("strict")


class TestIncrementalChecking:
    """A request that extends the last one re-checks only what is new, with the same verdicts."""

    def test_the_growing_conversation_of_a_run_passes(self):
        checker, messages = RequestChecker(), [user("go")]
        for k in range(1, 50):
            assert checker.check(messages) == []
            messages.append(assistant([call(f"toolu_{k}")]))
            messages.append(user([result(f"toolu_{k}")]))
        assert checker.check(messages) == []

    def test_a_bad_new_message_is_still_caught(self):
        checker, messages = RequestChecker(), [user("go")]
        messages += [assistant([call("toolu_1")]), user([result("toolu_1")])]
        assert checker.check(messages) == []
        messages += [assistant([call("toolu_2")]), user([result("toolu_9")])]
        assert checker.check(messages)[0].startswith("messages.4.content.0: unexpected `tool_use_id`")

    def test_a_reused_id_from_long_ago_is_still_caught(self):
        checker, messages = RequestChecker(), [user("go")]
        for k in range(1, 6):
            messages += [assistant([call(f"toolu_{k}")]), user([result(f"toolu_{k}")])]
            assert checker.check(messages) == []
        messages += [assistant([call("toolu_1")]), user([result("toolu_1")])]
        assert checker.check(messages) == ["messages.11.content.0: `tool_use` ids must be unique"]

    def test_a_retried_request_of_the_same_length_passes_again(self):
        checker = RequestChecker()
        assert checker.check(GOOD) == []
        assert checker.check(GOOD) == []

    def test_a_different_conversation_is_checked_from_scratch(self):
        checker = RequestChecker()
        assert checker.check(GOOD) == []
        other = [assistant("x")] + GOOD[1:]
        assert checker.check(other)[0] == 'messages: first message must use the "user" role'

    def test_real_api_mode_merges_across_the_boundary(self):
        checker, messages = RequestChecker("real-api"), [user("go"), assistant("Sure.")]
        assert checker.check(messages) == []  # a prefill
        messages += [assistant([call("toolu_1")]), user([text("done?")])]
        # the call joins the prefill's turn, which starts at messages.1
        assert checker.check(messages) == [
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. "
            "Each `tool_use` block must have a corresponding `tool_result` block in the next message."]


class TestBody:
    def test_a_bare_list_is_checked_as_messages(self):
        assert check_body(GOOD) == []

    def test_a_body_needs_messages(self):
        assert check_body({"model": "m", "max_tokens": 10}) == ["messages: Field required"]

    @pytest.mark.parametrize("mode", ["lesson", "real-api"])
    def test_both_modes_need_model_and_max_tokens(self, mode):
        assert check_body({"messages": GOOD}, mode) == ["max_tokens: Field required", "model: Field required"]

    def test_max_tokens_zero_only_warms_the_cache_and_is_accepted(self):
        # SDK 2.x's docstring: "Set to `0` to populate the prompt cache without generating a response."
        assert check_body({"model": "m", "messages": GOOD, "max_tokens": 0}) == []
        assert check_body({"model": "m", "messages": GOOD, "max_tokens": -1}) == [
            "max_tokens: Input should be greater than or equal to 0"]

    def test_not_an_object(self):
        assert check_body("hello") == ["body: a request is a JSON object with a messages list"]


# Rules each of which a small change to the code once broke unseen (bench/mutation.py found them).

def test_a_dict_sent_as_messages_is_refused_as_not_a_list():
    assert check_messages(user("hi")) == ["messages: Input should be a valid list"]
    assert check_body({"model": "m", "max_tokens": 10, "messages": user("hi")}) == [
        "messages: Input should be a valid list"]


@pytest.mark.parametrize("tool_id", ["toolu-1", "toolu_01-abc", "A9_z"])
def test_a_tool_id_may_hold_letters_digits_underscores_and_hyphens(tool_id):
    assert check_messages([user("hi"), assistant([call(tool_id)]), user([result(tool_id)])]) == []


def test_real_api_mode_still_refuses_an_empty_final_user_message():
    for empty in ("", []):
        assert check_messages([user("hi"), assistant("Hello"), user(empty)], "real-api") == [
            "messages.2: all messages must have non-empty content except for the optional final assistant message"]


def test_citations_are_refused_on_the_users_text_only_and_only_by_the_new_version():
    where = {"type": "char_location", "cited_text": "x", "document_index": 0, "document_title": None,
             "start_char_index": 0, "end_char_index": 1}
    cited = {**text("As the report says."), "citations": [where]}
    assert check_messages([user("hi"), assistant([cited]), user("go on")]) == []
    assert check_messages([user([cited])]) == [
        "messages.0.content.0.text.citations: citations on a `text` block in a `user` message are not accepted "
        "by API version 2026-10-21"]
    assert check_messages([user([cited])], version="2023-06-01") == []


def test_a_document_in_an_assistant_message_is_refused_by_the_new_version_only():
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    messages = [user("hi"), assistant([document]), user("go on")]
    assert check_messages(messages) == [
        "messages.1.content.0: a `document` block in an `assistant` message is not accepted by API version "
        "2026-10-21"]
    assert check_messages(messages, version="2023-06-01") == []
    assert check_messages([user([document])]) == []


def test_an_unanswered_call_is_listed_among_the_reasons_when_the_roles_also_fail_to_alternate():
    problems = check_messages([user("hi"), assistant([call("toolu_a")]), assistant("done"), user("ok")], "lesson")
    assert problems == [
        'messages: roles must alternate between "user" and "assistant", but found multiple "assistant" roles '
        "in a row",
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message."]


def test_one_of_two_calls_unanswered_gives_that_reason_alone():
    problems = check_messages([user("hi"), assistant([call("toolu_a"), call("toolu_b")]),
                               user([result("toolu_a"), text("and b?")])])
    assert problems == [
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message."]


def test_a_prefill_may_start_with_whitespace_but_not_end_with_it():
    assert check_messages([user("hi"), assistant("  The answer is")], "real-api") == []
    assert check_messages([user("hi"), assistant([text("\nThe answer is\n")])], "real-api") == [
        "messages: final assistant content cannot end with trailing whitespace"]


def test_a_whitespace_only_message_is_named_once():
    assert check_messages([user(" \n ")]) == ["messages: text content blocks must contain non-whitespace text"]


def test_after_a_refused_request_the_next_one_is_checked_whole_again():
    checker, messages = RequestChecker(), [user("go")]
    assert checker.check(messages) == []
    messages += [assistant([call("toolu_1")]), user([result("toolu_9")]), assistant("What now?"), user("Wait.")]
    refused = ["messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each "
               "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
               "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each "
               "`tool_use` block must have a corresponding `tool_result` block in the next message."]
    assert checker.check(messages) == refused
    messages += [assistant("Still here."), user("Nothing.")]  # the bad message stays: still refused
    assert checker.check(messages) == refused == check_messages(messages)


def test_a_user_message_holding_a_tool_use_block_is_checked_again_without_a_false_duplicate():
    # The API takes a tool_use block in a user message (its schema allows it); the last turn is checked twice.
    checker, messages = RequestChecker(), [user([text("I called:"), call("toolu_u")])]
    assert checker.check(messages) == []
    messages += [assistant("Noted."), user("Go on.")]
    assert checker.check(messages) == [] == check_messages(messages)


def test_a_block_that_is_not_an_object_does_not_hide_the_problems_of_the_blocks_after_it():
    assert check_messages([user([42, text("")])]) == ["messages.0.content.0: Input should be a valid dictionary",
                                                     "messages: text content blocks must be non-empty"]


def test_a_later_result_does_not_count_as_leading():
    problems = check_messages([user("hi"), assistant([call("toolu_a"), call("toolu_b")]),
                               user([result("toolu_a"), text("and:"), result("toolu_b")])])
    assert problems == [
        "messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages following "
        "`tool_use` blocks must begin with a matching number of `tool_result` blocks."]


def test_a_tool_use_block_in_a_user_message_asks_the_assistant_for_nothing():
    assert check_messages([user([text("I ran:"), call("toolu_u")]), assistant("Noted."), user("Go on.")]) == []


def test_a_message_with_no_usable_role_does_not_hide_the_problems_after_it():
    assert check_messages([user("hi"), {"role": "tool", "content": "3"}, user([text("")])]) == [
        "messages.1.role: Input should be 'user' or 'assistant'",
        "messages: text content blocks must be non-empty",
        'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row']


def test_each_of_two_assistant_messages_in_a_row_is_named_for_its_own_unanswered_call():
    assert check_messages([user("hi"), assistant([call("toolu_x")]), assistant([call("toolu_y")]), user("ok")]) == [
        'messages: roles must alternate between "user" and "assistant", but found multiple "assistant" roles in a row',
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_x. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message.",
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_y. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message."]


def test_a_thinking_block_without_a_signature_is_named_once_for_the_missing_field():
    unsigned = {"type": "thinking", "thinking": "hm"}
    assert check_messages([user("hi"), assistant([unsigned, text("a")]), user("ok")]) == [
        "messages.1.content.0.thinking.signature: Field required"]


def test_a_checker_told_not_to_verify_signatures_takes_any():
    forged = {"type": "thinking", "thinking": "hm", "signature": "not-ours"}
    messages = [user("hi"), assistant([forged, text("a")]), user("ok")]
    assert RequestChecker(verify_signatures=False).check(messages) == []
    assert check_messages(messages) == ["messages.1.content.0: Invalid `signature` in `thinking` block"]


def test_trust_takes_only_signed_thinking_blocks_and_ignores_the_rest():
    checker = RequestChecker()
    checker.trust(["text", None, {"type": "thinking", "thinking": None, "signature": "s"},
                   {"type": "thinking", "thinking": "unsigned"}, {"type": "text", "text": "t", "signature": "s"}])
    assert checker.trusted == set()


def test_require_applies_the_thinking_rules_only_when_told_thinking_is_on():
    loop = [user("hi"), assistant([call("toolu_1")]), user([result("toolu_1")])]
    RequestChecker().require(loop)
    with pytest.raises(RequestRejected, match=r"^messages\.1\.content\.0\.type: Expected `thinking`"):
        RequestChecker().require(loop, thinking=True)


def test_a_message_that_lost_its_content_since_the_last_request_is_refused():
    checker, messages = RequestChecker(), [user("go"), assistant([call("toolu_1")]), user([result("toolu_1")])]
    assert checker.check(messages) == []
    del messages[0]["content"]
    messages += [assistant("Done."), user("Thanks.")]
    assert checker.check(messages) == check_messages(messages) == ["messages.0.content: Field required"]
