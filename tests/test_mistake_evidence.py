"""Naming a mistake from its evidence, one rule at a time: the refused request's reason and messages, the
requests a loop sent, its output beside the reference run's. Fast, so mutation testing can run them for every
change to agent/exercise/mistakes.py or learner_source.py (tests/test_exercise_naming.py names the labelled
loops end to end)."""

from dataclasses import replace

from agent.api.requests import check_messages
from agent.exercise.judge import Observation
from agent.exercise.learner_source import decision_line, own_turn_limit
from agent.exercise.mistake_words import MISTAKES
from agent.exercise.mistakes import (
    bad_request_mistake,
    exception_mistake,
    history_mistake,
    offending_index,
    output_lines,
    output_mistake,
)
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.scripts import load_script
from agent.summary import console_lines

TASK = {"role": "user", "content": "What is 2 + 3?"}
CALL = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "add",
                                          "input": {"a": 2, "b": 3}}]}


def test_a_blank_text_block_is_marked_where_the_api_names_no_message():
    messages = [TASK, {"role": "assistant", "content": [{"type": "text", "text": "  "}]}, {"role": "user",
                                                                                           "content": "go on"}]
    assert offending_index("messages: text content blocks must contain non-whitespace text", messages) == 1


def test_a_final_thinking_block_is_marked_only_for_the_reason_that_names_it():
    messages = [TASK, {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]}]
    assert offending_index("The final block in an assistant message cannot be `thinking`.", messages) == 1
    assert offending_index("some rule this judge has no pointer for", messages) is None


def test_a_request_after_an_end_turn_reply_is_named_kept_going():
    messages = [TASK, {"role": "assistant", "content": "5"}, {"role": "user", "content": ""}]
    reason = "messages: text content blocks must be non-empty"
    assert bad_request_mistake(reason, messages, 2, ["end_turn"], 2) == ("kept_going", 2)


def test_a_reply_changed_before_it_was_sent_back_is_named_content_changed():
    reason = "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message " \
             "cannot be modified."
    assert bad_request_mistake(reason, [TASK, CALL], 1, ["tool_use"], 2) == ("content_changed", 1)


def test_a_tools_output_sent_as_a_bare_string_is_named_results_as_text():
    messages = [TASK, CALL, {"role": "user", "content": ["5"]}]
    reason = "messages.2.content.0: Input should be a valid dictionary or object to extract fields from"
    assert bad_request_mistake(reason, messages, 2, ["tool_use"], 2) == ("results_as_text", 2)


def test_a_result_block_with_a_misspelled_type_is_not_called_results_as_text():
    messages = [TASK, CALL, {"role": "user", "content": [{"type": "tool_results", "tool_use_id": "toolu_01",
                                                         "content": "5"}]}]
    reason = "messages.2.content.0: Input tag 'tool_results' found using 'type' does not match any of the expected tags"
    assert bad_request_mistake(reason, messages, 2, ["tool_use"], 2) == (None, 2)


def test_a_result_put_inside_another_results_content_is_named_result_wrapped():
    inner = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}
    messages = [TASK, CALL, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                                         "content": [inner]}]}]
    reason = "messages.2.content.0.tool_result.content.0.type: Input should be 'text' or 'image'"
    assert bad_request_mistake(reason, messages, 2, ["tool_use"], 2) == ("result_wrapped", 2)


def test_a_file_that_does_not_parse_is_pointed_at_the_last_line_that_ran():
    assert decision_line("def run_agent(:\n", [3, 5, 7]) == 7


def test_a_call_the_script_never_made_is_not_said_to_have_changed_its_input():
    own = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_mine", "name": "add",
                                             "input": {"a": 1, "b": 1}}]}
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK, own]])
    assert history_mistake(seen, TASK["content"], replies=[]) is None


def test_a_wrong_answer_at_the_end_of_the_reference_run_is_named_answer_text():
    script = load_script("add_then_answer")
    state = RunState(script.task)
    run_to_end(state, FakeModel(script))
    expected = console_lines(state)
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK]], stop_reasons=["tool_use", "end_turn"],
                       tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "str", "text": "7"})
    actual = expected[:-1] + ["result: 7"]
    assert output_mistake(state, seen, expected, actual, len(expected) - 1) == "answer_text"


def test_a_text_reply_earlier_is_not_blamed_for_a_refusal_elsewhere():
    bad_call = {"role": "assistant", "content": [{"type": "tool_use", "id": "bad id!", "name": "add",
                                                  "input": {"a": 2, "b": 3}}]}
    messages = [TASK, {"role": "assistant", "content": "Let me add."}, {"role": "user", "content": "go on"}, bad_call]
    reason = "messages.3.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    assert bad_request_mistake(reason, messages, 3, ["end_turn", "tool_use"], 3)[0] != "reply_as_text"
    assert bad_request_mistake(reason, messages, None, ["tool_use"], 2) == (None, None)


def test_a_call_left_without_its_result_is_named_call_not_answered():
    two_calls = {"role": "assistant", "content": [*CALL["content"], {"type": "tool_use", "id": "toolu_02",
                                                                     "name": "add", "input": {"a": 5, "b": 1}}]}
    one_result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    reason = ("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_02. Each "
              "`tool_use` block must have a corresponding `tool_result` block in the next message.")
    assert bad_request_mistake(reason, [TASK, two_calls, one_result], 1, ["tool_use"], 2) == ("call_not_answered", 1)


def test_an_answer_holding_a_new_line_is_a_wrong_answer_not_an_extra_print():
    script = load_script("add_then_answer")
    state = RunState(script.task)
    run_to_end(state, FakeModel(script))
    expected = console_lines(state)  # the tool line, the result line, the requests line
    answer = f"{state.result}\nDone."
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK]], stop_reasons=["tool_use", "end_turn"],
                       tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "str", "text": answer},
                       printed=expected[0] + "\n")  # the loop printed only its tool line
    actual = [expected[0], f"result: {state.result}", "Done.", expected[2]]
    assert output_mistake(state, seen, expected, actual, 2) == "answer_text"


def test_a_system_message_is_marked_where_it_stands():
    messages = [TASK, {"role": "system", "content": "Be brief."}]
    assert offending_index('messages: Unexpected role "system". Use the top-level `system` parameter.', messages) == 1


def test_a_file_with_no_if_or_while_is_pointed_at_its_last_line_that_ran():
    assert decision_line("x = 1\ny = 2\n", [1, 2]) == 2


def test_a_call_sent_back_with_another_input_is_named_tool_input_changed():
    changed = {"role": "assistant", "content": [dict(CALL["content"][0], input={"a": 2, "b": 30})]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "32"}]}
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK, changed, result]])
    assert history_mistake(seen, TASK["content"], replies=[CALL]) == ("tool_input_changed", 1, 2)


def test_a_request_no_longer_after_the_calls_ran_is_named_conversation_not_kept():
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK]], stop_reasons=["tool_use"],
                       tool_call_replies=[1])
    assert history_mistake(seen, TASK["content"], replies=[CALL]) == ("conversation_not_kept", 0, 2)


def exchange(number):
    """The model's tool call of one turn and its result, as a loop appends them."""
    call_id = f"toolu_0{number}"
    return [{"role": "assistant", "content": [{"type": "tool_use", "id": call_id, "name": "add",
                                               "input": {"a": number, "b": 1}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": str(number + 1)}]}]


def test_a_request_that_keeps_the_task_and_the_latest_exchange_but_drops_older_ones_is_old_messages_dropped():
    ran = {"stop_reasons": ["tool_use"] * 3, "tool_call_replies": [1, 2, 3]}
    latest_only = Observation(script="three_tool_chain", requests=[[TASK], [TASK] + exchange(1),
                                                                   [TASK] + exchange(2)], **ran)
    assert history_mistake(latest_only, TASK["content"], []) == ("old_messages_dropped", 1, 3)
    # A window of the last four messages after the task: the first exchange goes once the third comes.
    window = Observation(script="three_tool_chain", requests=[
        [TASK], [TASK] + exchange(1), [TASK] + exchange(1) + exchange(2), [TASK] + exchange(2) + exchange(3)], **ran)
    assert history_mistake(window, TASK["content"], []) == ("old_messages_dropped", 1, 4)
    assert "left out messages the request before it had sent" in MISTAKES["old_messages_dropped"]
    # Neither the latest call nor its result: the conversation was not kept, and its words say the model never
    # saw what its latest calls returned.
    first_only = Observation(script="three_tool_chain", requests=[
        [TASK], [TASK] + exchange(1), [TASK] + exchange(1)], **ran)
    assert history_mistake(first_only, TASK["content"], []) == ("conversation_not_kept", 2, 3)
    assert "never saw what its latest calls returned" in MISTAKES["conversation_not_kept"]
    # The latest call sent without its result is no window: the API refuses it for that, and no rule of the
    # history names it.
    unanswered = Observation(script="three_tool_chain", requests=[
        [TASK], [TASK] + exchange(1), [TASK] + exchange(2)[:1] + [{"role": "user", "content": "go on"}]], **ran)
    assert history_mistake(unanswered, TASK["content"], []) is None


def test_a_blank_message_is_marked_and_a_message_with_words_is_not():
    blank_string = [TASK, {"role": "assistant", "content": ""}]
    assert offending_index("messages: text content blocks must be non-empty", blank_string) == 1
    words_then_blank = [TASK, {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
                        {"role": "user", "content": [{"type": "text", "text": " "}]}]
    assert offending_index("messages: text content blocks must contain non-whitespace text", words_then_blank) == 2


def test_the_first_and_the_final_message_are_marked_where_the_reason_names_them():
    messages = [{"role": "assistant", "content": "hi"}, TASK, {"role": "assistant", "content": "5"}]
    assert offending_index('messages: the final message must use the "user" role', messages) == 2
    assert offending_index('messages: the first message must use the "user" role', messages) == 0


def test_a_whole_reply_appended_as_content_is_named_so():
    reply = {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn"}
    messages = [TASK, {"role": "assistant", "content": reply}]
    reason = "messages.1.content: Input should be a valid list"
    assert bad_request_mistake(reason, messages, 1, ["end_turn"], 2)[0] != "whole_reply_appended"  # kept going
    assert bad_request_mistake(reason, messages, 1, ["tool_use"], 2) == ("whole_reply_appended", 1)


def test_a_wrong_tool_line_with_the_right_turn_is_a_tool_line_even_on_a_later_script():
    script = load_script("add_then_answer")
    state = RunState(script.task)
    run_to_end(state, FakeModel(script))
    expected = console_lines(state)
    actual = ['turn 1: add {"a": 2, "b": 3} -> 6', *expected[1:]]
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK]], stop_reasons=["tool_use", "end_turn"],
                       tool_calls=["tool_use"], tool_call_replies=[1], earlier_tasks=["Add 1 and 2"],
                       returned={"type": "str", "text": state.result}, printed="\n".join(actual[:1]) + "\n")
    assert output_mistake(state, seen, expected, actual, 0) == "tool_lines"
    assert output_mistake(state, seen, expected, actual, 1) is None  # at the result line: not a tool line


def reference_run(name: str) -> tuple[RunState, list[str]]:
    """A script's reference run, with its turn limit, and the lines it prints."""
    script = load_script(name)
    state = RunState(script.task, tool_names=list(script.tools), max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return state, console_lines(state)


def test_a_loop_that_ran_every_call_but_gave_up_a_turn_before_the_limit_is_named_stopped_early():
    state, expected = reference_run("short_leash")  # three tool_use replies, then the limit
    sent = [[{"role": "user", "content": state.task}]] * 2
    seen = Observation(script="short_leash", requests=sent, stop_reasons=["tool_use", "tool_use"],
                       tool_calls=["tool_use", "tool_use"], tool_call_replies=[1, 2],
                       returned={"type": "str", "text": "stopped: turn limit"})
    actual = [*expected[:2], "result: stopped: turn limit", "messages sent each turn: 1, 3"]
    assert output_mistake(state, seen, expected, actual, 2) == "stopped_early"
    # Had it run none of the last reply's calls it returned that reply as it came: it never went round.
    assert output_mistake(state, replace(seen, tool_call_replies=[1]),
                          expected, actual, 2) == "did_not_go_round"


def test_a_loop_that_stops_short_of_an_answer_is_not_said_to_have_stopped_at_a_limit():
    state, expected = reference_run("three_tool_chain")  # three calls, then the answer: no turn limit reached
    seen = Observation(script="three_tool_chain", requests=[[{"role": "user", "content": state.task}]] * 2,
                       stop_reasons=["tool_use", "tool_use"], tool_calls=["tool_use", "tool_use"],
                       tool_call_replies=[1, 2], returned={"type": "str", "text": "stopped: after 2 turns"})
    actual = [*expected[:2], "result: stopped: after 2 turns", "messages sent each turn: 1, 3"]
    assert output_mistake(state, seen, expected, actual, 2) is None


def test_a_loop_that_returns_after_the_first_tool_call_never_went_round():
    state, expected = reference_run("add_then_answer")
    seen = Observation(script="add_then_answer", requests=[[TASK]], stop_reasons=["tool_use"],
                       tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "str", "text": "5"})
    assert output_mistake(state, seen, expected, [expected[0], "result: 5", "messages sent each turn: 1"],
                          1) == "did_not_go_round"


def test_a_cut_off_reply_returned_as_the_answer_is_a_wrong_stop_message_unless_the_loop_ends_on_any_text():
    state, expected = reference_run("cut_off_reply")  # one max_tokens reply: "Let me read the file."
    seen = Observation(script="cut_off_reply", requests=[[{"role": "user", "content": state.task}]],
                       stop_reasons=["max_tokens"], returned={"type": "str", "text": "Let me read the file."})
    actual = ["result: Let me read the file.", expected[1]]
    assert output_mistake(state, seen, expected, actual, 0) == "wrong_stop_message"  # max_tokens taken for an end
    # Earlier in the process it returned right after a tool_use reply too: it branches on the content, not this stop.
    on_content = replace(seen, earlier_tasks=["x"], earlier_returns_on_tool_use=1)
    assert output_mistake(state, on_content, expected, actual, 0) is None
    worded = {"type": "str", "text": "Stopped: the reply was cut off"}
    assert output_mistake(state, replace(seen, returned=worded), expected,
                          ["result: Stopped: the reply was cut off", expected[1]], 0) == "wrong_stop_message"


def test_a_turn_limit_held_in_a_parameters_default_is_the_loops_own():
    own = ("def run_agent(task, model, max_turns, verbose=False, limit=10):\n"
           "    for turn in range(limit):\n        model.create([])\n")
    assert own_turn_limit(own)
    # A default of 1 or a flag is no limit: the loop below has none of its own (nor reads max_turns).
    assert not own_turn_limit(own.replace("limit=10", "limit=1"))
    assert not own_turn_limit("def run_agent(task, model, max_turns=10, limit=3):\n"
                              "    for turn in range(max_turns):\n        model.create([])\n")


def test_a_loop_with_no_limit_at_all_is_not_said_to_keep_one_of_its_own():
    endless = ("def run_agent(task, model, max_turns):\n    messages = [task]\n    while True:\n"
               "        reply = model.create(messages)\n        if reply['stop_reason'] == 'end_turn':\n"
               "            return 'done'\n")
    assert not own_turn_limit(endless)  # its only comparison is with a stop reason, not a number of turns
    assert own_turn_limit(endless.replace("while True:", "for turn in range(10):"))


def test_a_request_with_nothing_of_the_learners_run_before_it_points_at_no_line():
    assert decision_line("while True:\n    pass\n", []) is None
    assert decision_line("x = 1\nwhile x:\n    x = 0\n", [1, 2, 3]) == 2


def test_the_task_sent_back_as_the_assistants_is_named_dropped_task():
    moved = [{"role": "assistant", "content": TASK["content"]}, CALL]
    seen = Observation(script="add_then_answer", requests=[[TASK], moved], stop_reasons=["tool_use"],
                       tool_call_replies=[1])
    assert history_mistake(seen, TASK["content"], replies=[CALL]) == ("dropped_task", 0, 2)


def test_a_results_list_sent_again_after_it_grew_is_named_sent_message_changed():
    # results = [] made once before the loop, appended each turn; the second reply was never appended.
    first, both = [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}], []
    both += [*first, {"type": "tool_result", "tool_use_id": "toolu_02", "content": "6"}]
    grown = {"role": "user", "content": both}
    seen = Observation(script="add_then_answer", requests=[
        [TASK], [TASK, CALL, {"role": "user", "content": first}], [TASK, CALL, grown, grown]],
        stop_reasons=["tool_use", "tool_use"], tool_call_replies=[1, 2])
    assert history_mistake(seen, TASK["content"], replies=[CALL]) == ("sent_message_changed", 2, 3)


def test_a_result_for_an_id_no_longer_in_the_latest_reply_is_named_only_in_the_message_just_added():
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_09", "content": "5"}]}
    messages = [TASK, CALL, result]
    reason = check_messages(messages)[0]
    assert "unexpected `tool_use_id`" in reason
    assert bad_request_mistake(reason, messages, 2, ["tool_use"], 2) == ("wrong_tool_use_id", 2)
    # The same refusal for an earlier message: it changed after it was sent, no wrong id of this turn's.
    later = [*messages, {"role": "assistant", "content": [{"type": "text", "text": "5"}]},
             {"role": "user", "content": "thanks"}]
    assert bad_request_mistake(reason, later, 2, ["tool_use", "end_turn"], 2) == (None, 2)


def test_results_behind_other_words_are_named_results_not_first():
    after = {"role": "user", "content": [{"type": "text", "text": "Here:"},
                                         {"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    reason = check_messages([TASK, CALL, after])[0]
    assert bad_request_mistake(reason, [TASK, CALL, after], 2, ["tool_use"], 2) == ("results_not_first", 2)
    # Words after the results are accepted: the rule is that the results come first, and the mistake says so.
    first = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"},
                                         {"type": "text", "text": "Here:"}]}
    assert check_messages([TASK, CALL, first]) == []
    words = MISTAKES["results_not_first"]
    assert "must begin with its tool_result blocks" in words and "may only come after them" in words
    assert "nothing else" not in words


def test_results_after_results_are_reply_not_appended_only_with_no_reply_after_them():
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    words = {"role": "user", "content": "go on"}
    reason = next(r for r in check_messages([TASK, results]) if "roles must alternate" in r)
    assert bad_request_mistake(reason, [TASK, results], 1, [], 1) == ("reply_not_appended", 1)
    # The reply whose call they answer comes right after them: appended in the wrong order.
    assert bad_request_mistake(reason, [TASK, results, CALL, words], 1, [], 1) == ("reply_after_results", 1)
    other = {"role": "assistant", "content": [dict(CALL["content"][0], id="toolu_09")]}
    assert bad_request_mistake(reason, [TASK, results, other, words], 1, [], 1) == (None, 1)


def test_a_tool_input_made_a_string_is_named_tool_input_changed():
    as_string = {"role": "assistant", "content": [dict(CALL["content"][0], input='{"a": 2, "b": 3}')]}
    reason = check_messages([TASK, as_string])[0]
    assert reason.startswith("messages.1.content.0.tool_use.input: ")
    assert bad_request_mistake(reason, [TASK, as_string], 1, [], 1) == ("tool_input_changed", 1)
    as_list = {"role": "assistant", "content": [dict(CALL["content"][0], input=[2, 3])]}
    assert bad_request_mistake(check_messages([TASK, as_list])[0], [TASK, as_list], 1, [], 1) == (None, 1)


def test_a_tools_output_sent_as_a_plain_message_is_named_results_as_text():
    messages = [TASK, CALL, {"role": "user", "content": "5"}]
    reason = check_messages(messages)[0]
    assert "without `tool_result` blocks immediately after" in reason
    assert bad_request_mistake(reason, messages, 1, ["tool_use"], 2) == ("results_as_text", 2)


def test_a_result_holding_a_block_of_another_kind_is_not_a_wrapped_result():
    call = {"type": "tool_use", "id": "toolu_02", "name": "add", "input": {"a": 1, "b": 1}}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": [call]}]}
    reason = check_messages([TASK, CALL, result])[0]
    assert reason.startswith("messages.2.content.0.tool_result.content.0")
    assert bad_request_mistake(reason, [TASK, CALL, result], 2, ["tool_use"], 2) == (None, 2)


def test_an_error_the_loop_raised_on_a_stop_reason_is_a_wrong_stop_message_and_another_error_is_not():
    task = [{"role": "user", "content": "Add 2 and 2."}]
    raised = {"type": "ValueError", "message": "unknown stop_reason: budget_exhausted", "line": 14,
              "code": "    raise ValueError(f\"unknown stop_reason: {reply['stop_reason']}\")"}
    seen = Observation(script="unknown_stop_reason", requests=[task], stop_reasons=["budget_exhausted"])
    assert exception_mistake(raised, seen) == "wrong_stop_message"
    asserted = dict(raised, type="AssertionError", message="", code="assert reply['stop_reason'] in KNOWN")
    assert exception_mistake(asserted, replace(seen, script="refusal", stop_reasons=["refusal"])) \
        == "wrong_stop_message"
    # Not raised by a line of its own (a lookup failed), or after a reply that ended or called a tool: no name.
    looked_up = dict(raised, type="KeyError", message="'budget_exhausted'", code="handler = HANDLERS[stop]")
    assert exception_mistake(looked_up, seen) is None
    assert exception_mistake(raised, replace(seen, stop_reasons=["tool_use"])) is None
    assert exception_mistake(raised, replace(seen, stop_reasons=["end_turn"])) is None
    # Raised after a request that got no reply (a refusal caught, say): not what the stop reason made it do.
    assert exception_mistake(raised, replace(seen, requests=[task, task])) is None
    words = MISTAKES["wrong_stop_message"]
    assert "not an error raised" in words and "even one your loop has never heard of" in words


def test_awaiting_model_create_or_run_tool_is_named_only_on_the_line_that_awaits_one():
    seen = Observation(script="add_then_answer", requests=[[TASK]], stop_reasons=["tool_use"])
    awaited = {"type": "TypeError", "message": "object dict can't be used in 'await' expression", "line": 9,
               "code": "reply = await model.create(messages)"}
    assert exception_mistake(awaited, seen) == "awaited_plain_call"
    assert exception_mistake(dict(awaited, code="response = (await self.model.create(history))"), seen) \
        == "awaited_plain_call"
    assert exception_mistake(dict(awaited, code="r = await run_tool(block)"), seen) == "awaited_plain_call"
    # The same TypeError from awaiting a helper of its own, or another TypeError on that line: no name.
    assert exception_mistake(dict(awaited, code="content = await blocks_of(reply)"), seen) is None
    assert exception_mistake(dict(awaited, message="'NoneType' object is not subscriptable"), seen) is None
    assert exception_mistake(dict(awaited, code="reply = model.create(messages)"), seen) is None


def test_reading_the_sdks_attributes_from_a_dict_is_named_reply_is_a_dict_and_other_attribute_errors_are_not():
    seen = Observation(script="add_then_answer", stop_reasons=["tool_use"])
    dict_reply = {"type": "AttributeError", "message": "'dict' object has no attribute 'content'"}
    assert exception_mistake(dict_reply, seen) == "reply_is_a_dict"
    other = {"type": "AttributeError", "message": "'NoneType' object has no attribute 'append'"}
    assert exception_mistake(other, seen) is None
    every_block = {"type": "KeyError", "message": "'text'"}  # the answer joined from every block, thinking too
    answered = replace(seen, stop_reasons=["tool_use", "tool_use", "end_turn"])
    assert exception_mistake(every_block, answered) == "answer_text"
    assert exception_mistake(every_block, seen) is None  # not on an answer: no answer built wrong


def test_the_limit_reached_with_other_words_is_named_wrong_limit_message():
    state, expected = reference_run("short_leash")
    seen = Observation(script="short_leash", requests=[[{"role": "user", "content": state.task}]] * 3,
                       stop_reasons=["tool_use"] * 3, tool_calls=["tool_use"] * 3, tool_call_replies=[1, 2, 3],
                       returned={"type": "str", "text": "stopped: too many turns"})
    actual = [*expected[:3], "result: stopped: too many turns", expected[4]]
    assert output_mistake(state, seen, expected, actual, 3) == "wrong_limit_message"


def test_a_final_thinking_block_is_marked_on_the_reply_that_ends_in_it_not_the_first_reply():
    ends_in_thinking = {"role": "assistant", "content": [{"type": "text", "text": "5"},
                                                         {"type": "thinking", "thinking": "hm", "signature": "s"}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    reason = "The final block in an assistant message cannot be `thinking`."
    assert offending_index(reason, [TASK, CALL, result, ends_in_thinking]) == 3


def test_a_limit_of_its_own_in_a_comparison_is_the_loops_own_and_a_file_that_does_not_parse_has_none():
    own = ("def run_agent(task, model, max_turns):\n    turn = 0\n    while turn < 10:\n        turn += 1\n"
           "        model.create([])\n")
    assert own_turn_limit(own)
    assert not own_turn_limit("def run_agent(task, model, max_turns):\n    while turn < 10\n")
    # No run_agent(task, model, max_turns) to read: nothing says which number would be the limit given.
    assert not own_turn_limit(own.replace("def run_agent(", "def agent("))
    assert not own_turn_limit(own.replace("task, model, max_turns", "task, model"))


def test_an_answer_with_the_replys_thinking_put_in_is_named_thinking_in_answer():
    state, expected = reference_run("thinking_then_answer")  # thinking "word_count said 4.", then the answer
    returned = "word_count said 4.\nIt has 4 words."
    seen = Observation(script="thinking_then_answer", requests=[[TASK]] * 2, stop_reasons=["tool_use", "end_turn"],
                       tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "str", "text": returned},
                       printed=expected[0] + "\n")
    actual = [expected[0], "result: word_count said 4.", "It has 4 words.", expected[2]]
    assert output_mistake(state, seen, expected, actual, 1) == "thinking_in_answer"
    other = replace(seen, returned={"type": "str", "text": "It has 5 words."})
    assert output_mistake(state, other, expected, [expected[0], "result: It has 5 words.", expected[2]],
                          1) == "answer_text"


def test_results_sent_as_the_assistants_after_the_reply_are_named_results_as_assistant():
    results = {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    messages = [TASK, CALL, results]
    reason = next(r for r in check_messages(messages) if "roles must alternate" in r)
    assert bad_request_mistake(reason, messages, offending_index(reason, messages), ["tool_use"], 2) == \
        ("results_as_assistant", 2)
    # Sent as the final message, with no reply before them: refused for the final message's role.
    alone = [TASK, results]
    reason = check_messages(alone)[0]
    assert bad_request_mistake(reason, alone, offending_index(reason, alone), ["tool_use"], 2) == \
        ("results_as_assistant", 1)
    assert bad_request_mistake(reason, [TASK, CALL], 1, ["tool_use"], 2) == ("results_not_appended", 1)


def test_a_loop_that_says_its_limit_a_turn_early_without_running_the_last_calls_stopped_early():
    state, expected = reference_run("short_leash")
    seen = Observation(script="short_leash", requests=[[{"role": "user", "content": state.task}]] * 2,
                       stop_reasons=["tool_use", "tool_use"], tool_calls=["tool_use"], tool_call_replies=[1],
                       returned={"type": "str", "text": "stopped: no answer after 2 turns"})
    actual = [expected[0], "result: stopped: no answer after 2 turns", "messages sent each turn: 1, 3"]
    assert output_mistake(state, seen, expected, actual, 1) == "stopped_early"


def test_a_thinking_block_whose_signature_was_changed_or_dropped_is_named_content_changed():
    for signature in ({"signature": "not the one given"}, {}):
        reply = {"role": "assistant", "content": [{"type": "thinking", "thinking": "add them", **signature},
                                                  *CALL["content"]]}
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
        reason = check_messages([TASK, reply, result])[0]
        assert bad_request_mistake(reason, [TASK, reply, result], 1, ["tool_use"], 2) == ("content_changed", 1)


def test_each_result_sent_in_a_message_of_its_own_is_named_one_message_per_result():
    two_calls = {"role": "assistant", "content": [*CALL["content"], {"type": "tool_use", "id": "toolu_02",
                                                                     "name": "add", "input": {"a": 5, "b": 1}}]}
    first, second = ({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_0{n}",
                                                   "content": "5"}]} for n in (1, 2))
    messages = [TASK, two_calls, first, second]
    reason = next(r for r in check_messages(messages) if "roles must alternate" in r)
    assert bad_request_mistake(reason, messages, offending_index(reason, messages), ["tool_use"], 2) == \
        ("one_message_per_result", 3)


def test_calls_answered_with_as_many_results_for_other_ids_are_no_single_mistake():
    two_calls = {"role": "assistant", "content": [*CALL["content"], {"type": "tool_use", "id": "toolu_02",
                                                                     "name": "add", "input": {"a": 5, "b": 1}}]}
    wrong = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "5"}
                                         for i in ("toolu_01", "toolu_09")]}
    reason = next(r for r in check_messages([TASK, two_calls, wrong]) if "without `tool_result`" in r)
    assert bad_request_mistake(reason, [TASK, two_calls, wrong], 1, ["tool_use"], 2) == (None, 1)


def test_outputs_sent_as_text_blocks_are_results_as_text_and_text_beside_an_image_is_not():
    as_text = {"role": "user", "content": [{"type": "text", "text": "5"}]}
    reason = check_messages([TASK, CALL, as_text])[0]
    assert bad_request_mistake(reason, [TASK, CALL, as_text], 1, ["tool_use"], 2) == ("results_as_text", 2)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    beside = {"role": "user", "content": [{"type": "text", "text": "5"}, image]}
    reason = check_messages([TASK, CALL, beside])[0]
    assert bad_request_mistake(reason, [TASK, CALL, beside], 1, ["tool_use"], 2) == (None, 1)


def test_a_dict_returned_is_named_not_a_string():
    state, expected = reference_run("add_then_answer")
    seen = Observation(script="add_then_answer", requests=[[TASK]] * 2, stop_reasons=["tool_use", "end_turn"],
                       tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "dict", "text": "{...}"})
    assert output_mistake(state, seen, expected, [expected[0], "result: {...}", expected[2]], 1) == "not_a_string"


def test_a_changed_tool_line_beside_an_extra_line_is_a_tool_line_not_an_extra_print():
    state, expected = reference_run("add_then_answer")
    actual = ['turn 1: add {"a": 2, "b": 3} -> 6', "debug", *expected[1:]]
    seen = Observation(script="add_then_answer", requests=[[TASK]] * 2, stop_reasons=["tool_use", "end_turn"],
                       tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "str", "text": state.result},
                       printed="\n".join(actual[:2]) + "\n")
    assert output_mistake(state, seen, expected, actual, 0) == "tool_lines"


def test_a_reply_sent_back_as_a_string_is_marked_where_it_stands():
    messages = [TASK, {"role": "assistant", "content": " "}, {"role": "user", "content": "go on"}]
    reason = check_messages(messages)[0]
    index = offending_index(reason, messages)
    assert index == 1 and bad_request_mistake(reason, messages, index, ["tool_use"], 2) == ("reply_as_text", 1)


OWN_LIMIT = ("def run_agent(task, model, max_turns):\n    turn = 0\n    while turn < LIMIT:\n        turn += 1\n"
             "        model.create([])\n")


def test_a_limit_of_its_own_is_found_however_it_is_written():
    assert own_turn_limit("LIMIT = 10\n\n\n" + OWN_LIMIT)
    assert own_turn_limit("LIMIT: int = 10\n\n\n" + OWN_LIMIT)
    assert not own_turn_limit("LIMIT = 1\n\n\n" + OWN_LIMIT)  # 1 is no limit of turns
    assert own_turn_limit(OWN_LIMIT.replace("max_turns):", "max_turns, *, LIMIT=10):"))
    assert own_turn_limit(OWN_LIMIT.replace("LIMIT", "2"))
    assert own_turn_limit(OWN_LIMIT.replace("turn = 0", "max_turns = 10\n    turn = 0"))  # the one given, overwritten


def test_the_last_line_that_ran_is_the_line_pointed_at():
    assert decision_line("x = 1\ny = 2\nz = 3\n", [1, 2, 3]) == 3
    assert decision_line("def run_agent(:\n", []) is None


def test_the_task_sent_again_as_one_text_block_is_still_the_task():
    as_block = {"role": "user", "content": [{"type": "text", "text": TASK["content"]}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}
    seen = Observation(script="add_then_answer", requests=[[TASK], [as_block, CALL, result]], stop_reasons=["tool_use"],
                       tool_call_replies=[1])
    assert history_mistake(seen, TASK["content"], replies=[CALL]) is None


def test_an_openai_function_call_is_named_as_openais():
    old_style = {"role": "assistant", "content": None, "function_call": {"name": "add", "arguments": "{}"}}
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK, old_style]])
    assert history_mistake(seen, TASK["content"], replies=[CALL]) == ("openai_tool_calls", 1, 2)


def test_printed_text_reads_as_its_lines_with_or_without_the_last_new_line():
    assert output_lines("turn 1: a\nresult: 5\n") == output_lines("turn 1: a\nresult: 5") == ["turn 1: a", "result: 5"]
    assert output_lines("") == []


def test_two_user_messages_in_a_row_are_marked_at_the_second():
    reason = next(r for r in check_messages([TASK, TASK]) if "roles must alternate" in r)
    assert offending_index(reason, [TASK, TASK]) == 1
