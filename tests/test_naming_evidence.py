"""The evidence rules for the patterns an outside corpus found named wrong or not at all (tests/beginner_loops_unseen/
holds loops for each): each rule fires on its evidence and not beside it. Fast, without running a learner's file."""

from dataclasses import replace

from agent.api.requests import check_messages
from agent.exercise.judge import Observation, process_cpu_seconds
from agent.exercise.learner_source import loop_line, whole_numbers
from agent.exercise.mistake_words import MISTAKES
from agent.exercise.mistakes import bad_request_mistake, history_mistake, output_mistake
from agent.exercise.runner import Limits
from agent.exercise.verdict import VERDICTS, judge
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.scripts import load_script
from agent.summary import console_lines

TASK = {"role": "user", "content": "Add 3 and 4, and uppercase the word hello."}
CALLS = {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 3, "b": 4}},
    {"type": "tool_use", "id": "toolu_02", "name": "upper", "input": {"text": "hello"}}]}


def result(call_id, content="7"):
    return {"type": "tool_result", "tool_use_id": call_id, "content": content}


def refused(messages):
    return check_messages(messages)[0]


def reference(name):
    script = load_script(name)
    state = RunState(script.task, tool_names=list(script.tools), max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return script, state


def judged(seen, source=""):
    script, state = reference(seen.script)
    return judge(script, state, seen, Limits(), source)


# ---- results: empty, one call answered twice, after the reply they answer ------------------------------------


def test_an_empty_results_message_after_a_tool_call_is_named_and_an_empty_message_elsewhere_is_not():
    messages = [TASK, CALLS, {"role": "user", "content": []}]
    assert bad_request_mistake(refused(messages), messages, 2, ["tool_use"], 2) == ("empty_results", 2)
    after_words = [TASK, {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]},
                   {"role": "user", "content": []}]
    assert bad_request_mistake(refused(after_words), after_words, 2, ["end_turn"], 2)[0] != "empty_results"


def test_one_call_answered_twice_is_a_duplicated_id_and_ids_the_reply_never_used_are_not():
    twice = [TASK, CALLS, {"role": "user", "content": [result("toolu_01"), result("toolu_01")]}]
    assert "toolu_02" in refused(twice)
    assert bad_request_mistake(refused(twice), twice, 1, ["tool_use"], 2) == ("duplicate_result_id", 2)
    # One id on two different outputs: a stale or wrong id as much as a call run twice; no name.
    stale = [TASK, CALLS, {"role": "user", "content": [result("toolu_01", "7"), result("toolu_01", "HELLO")]}]
    assert bad_request_mistake(refused(stale), stale, 1, ["tool_use"], 2)[0] is None
    strangers = [TASK, CALLS, {"role": "user", "content": [result("toolu_99"), result("toolu_99")]}]
    assert bad_request_mistake(refused(strangers), strangers, 1, ["tool_use"], 2)[0] != "duplicate_result_id"
    # Accepted (every call answered, one twice), it still shows in the requests.
    seen = Observation(script="two_calls_one_reply", requests=[
        [TASK], [TASK, CALLS, {"role": "user", "content": [result("toolu_01"), result("toolu_02"),
                                                           result("toolu_02")]}]])
    assert history_mistake(seen, TASK["content"], [])[:2] == ("duplicate_result_id", 2)


def test_results_followed_by_the_reply_they_answer_are_the_reply_after_its_results():
    messages = [TASK, {"role": "user", "content": [result("toolu_01"), result("toolu_02")]}, CALLS]
    reason = refused(messages)
    assert "roles must alternate" in reason
    assert bad_request_mistake(reason, messages, 1, ["tool_use"], 2) == ("reply_after_results", 1)


# ---- a field added to a reply's block ------------------------------------------------------------------------


def test_a_field_added_to_a_tool_use_block_is_named_and_a_block_missing_its_own_fields_is_not():
    noted = {"role": "assistant", "content": [dict(CALLS["content"][0], output="7"), CALLS["content"][1]]}
    messages = [TASK, noted, {"role": "user", "content": [result("toolu_01"), result("toolu_02")]}]
    reason = refused(messages)
    assert reason == "messages.1.content.0.tool_use.output: Extra inputs are not permitted"
    assert bad_request_mistake(reason, messages, 1, ["tool_use"], 2) == ("field_added", 1)
    made_up = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "add", "args": {}}]}
    messages = [TASK, made_up, {"role": "user", "content": [result("toolu_01")]}]
    assert bad_request_mistake(refused(messages), messages, 1, ["tool_use"], 2)[0] != "field_added"


# ---- OpenAI's habits -------------------------------------------------------------------------------------------


def test_openais_function_role_tool_call_id_and_function_call_items_are_named_as_its_habits():
    def named(*later):
        seen = Observation(script="two_calls_one_reply", requests=[[TASK], [TASK, *later]])
        return history_mistake(seen, TASK["content"], [])[:2]

    assert named(CALLS, {"role": "function", "name": "add", "content": "7"}) == ("openai_tool_role", 2)
    by_call_id = {"type": "tool_result", "tool_call_id": "toolu_01", "content": "7"}
    assert named(CALLS, {"role": "user", "content": [by_call_id]}) == ("openai_tool_role", 2)
    items = {"role": "assistant", "content": [{"type": "function_call", "call_id": "toolu_01", "name": "add",
                                               "arguments": "{}"}]}
    assert named(items) == ("openai_tool_calls", 1)
    output = {"type": "function_call_output", "call_id": "toolu_01", "output": "7"}
    assert named(CALLS, {"role": "user", "content": [output]}) == ("openai_tool_role", 2)


# ---- state kept between calls ---------------------------------------------------------------------------------


def test_a_first_request_carrying_a_reply_an_earlier_run_was_given_is_kept_state():
    kept = [{"role": "user", "content": "Task: What is 2 + 3?"}, CALLS,
            {"role": "user", "content": [result("toolu_01"), result("toolu_02")]},
            {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            {"role": "user", "content": f"Task: {TASK['content']}"}]
    assert check_messages(kept) == []  # a valid first request: the refusal, if any, comes later
    seen = Observation(script="two_calls_one_reply", requests=[kept], earlier_tasks=["What is 2 + 3?"],
                       earlier_replies=[CALLS["content"], [{"type": "text", "text": "Done."}]])
    assert history_mistake(seen, TASK["content"], [])[:2] == ("kept_state", 1)
    # A made-up assistant turn (a prefill, an example) on a first run is no state kept.
    assert history_mistake(replace(seen, earlier_tasks=[], earlier_replies=[]), TASK["content"], []) is None
    other = replace(seen, earlier_replies=[[{"type": "text", "text": "Something else."}]])
    assert history_mistake(other, TASK["content"], []) is None


def test_a_turn_offset_is_kept_state_only_past_the_offset_the_earlier_runs_showed():
    script, state = reference("two_file_search")
    expected = console_lines(state)
    shifted = [expected[0].replace("turn 1:", "turn 2:", 1), *expected[1:]]
    seen = Observation(script="two_file_search", requests=[[{"role": "user", "content": script.task}]] * 3,
                       stop_reasons=["tool_use", "tool_use", "end_turn"], tool_calls=["tool_use", "tool_use"],
                       tool_call_replies=[1, 2], returned={"type": "str", "text": state.result},
                       earlier_tasks=["What is 2 + 3?"])
    assert output_mistake(state, replace(seen, earlier_turns=[2]), expected, shifted, 0) == "tool_lines"
    assert output_mistake(state, replace(seen, earlier_turns=[1]), expected, shifted, 0) == "kept_state"
    assert output_mistake(state, replace(seen, earlier_turns=[]), expected, shifted, 0) is None
    assert output_mistake(state, replace(seen, earlier_tasks=[]), expected, shifted, 0) == "tool_lines"


# ---- stop replies and caps ------------------------------------------------------------------------------------


def test_a_pause_turn_replys_text_returned_is_a_wrong_stop_message():
    seen = Observation(script="pause_turn", requests=[[{"role": "user", "content": "x"}]],
                       stop_reasons=["pause_turn"], returned={"type": "str", "text": "Searching..."})
    check = judged(seen)
    assert (check.verdict, check.mistake) == ("output", "wrong_stop_message")
    assert "pause_turn" in MISTAKES["wrong_stop_message"]
    other = replace(seen, returned={"type": "str", "text": "Searching the web now"})
    assert judged(other).mistake is None  # neither its text nor words for a stop


def runaway_cut_at(turns, said):
    _, state = reference("runaway")
    return Observation(script="runaway", requests=[state.messages[:r.sent] for r in state.records[:turns]],
                       stop_reasons=["tool_use"] * turns, tool_calls=["tool_use"] * turns,
                       tool_call_replies=list(range(1, turns + 1)), returned={"type": "str", "text": said},
                       printed="".join(line + "\n" for line in console_lines(state)[:turns]))


def test_a_stop_at_a_number_the_file_writes_is_a_limit_of_its_own_and_another_early_stop_is_not():
    seen = runaway_cut_at(10, "stopped: no answer after 40 turns")
    capped = "def run_agent(task, model, max_turns):\n    for turn in range(1, min(max_turns, 10) + 1):\n        pass\n"
    assert judged(seen, capped).mistake == "own_turn_limit"
    short = "def run_agent(task, model, max_turns):\n    for turn in range(1, max_turns - 29):\n        pass\n"
    assert judged(seen, short).mistake is None  # 10 turns, and no 10 (or 9, 11) written in the file
    assert judged(runaway_cut_at(39, "stopped: no answer after 40 turns"), short).mistake == "stopped_early"
    assert whole_numbers("x = [0, 1, 2, 10]\n") == {2, 10} and whole_numbers("def (") == set()


# ---- the time limit: slow or endless -----------------------------------------------------------------------------


def timed_out_runaway(times, seconds=5.0, cpu=0.05, sizes_from_reference=True):
    seen = runaway_cut_at(len(times), "")
    seen.returned = None
    seen.stop_reasons = seen.stop_reasons[:len(times)]
    if not sizes_from_reference:
        seen.requests = [[{"role": "user", "content": "x"}]] * len(times)
    return replace(seen, request_times=times, seconds=seconds, cpu_seconds=cpu, ended="time_limit",
                   message=f"did not finish within {seconds:g} s (time limit)")


def test_a_loop_that_waits_before_each_request_is_too_slow_with_its_pace_and_the_limit():
    check = judged(timed_out_runaway([0.5 * n for n in range(1, 10)], seconds=5.0))
    assert (check.verdict, check.mistake) == ("too_slow", "too_slow")
    assert check.summary == ("took more than 5 s: each request waited about 0.5 s (9 of the 40 requests this "
                             "script needs came, each as the reference loop's); at that pace the run needs about "
                             "20 s, and the limit is 5 s")
    assert "too_slow" in VERDICTS and "too_slow" in MISTAKES


def test_a_loop_stuck_after_its_requests_is_endless_only_while_it_keeps_the_cpu_busy():
    stuck = timed_out_runaway([0.01, 0.02], seconds=5.0, cpu=4.0)
    assert (judged(stuck).verdict, judged(stuck).mistake) == ("time_limit", "endless_loop")
    asleep = replace(stuck, cpu_seconds=0.02)  # waiting, not running: no evidence it would never stop
    assert (judged(asleep).verdict, judged(asleep).mistake) == ("time_limit", None)
    assert judged(asleep).summary == "did not finish within 5 s (time limit)"


def test_a_slow_pace_off_the_reference_path_names_nothing():
    off_path = timed_out_runaway([0.5 * n for n in range(1, 10)], sizes_from_reference=False)
    assert (judged(off_path).verdict, judged(off_path).mistake) == ("time_limit", None)


def test_a_slow_loop_that_would_still_finish_in_time_is_not_called_slow():
    # Three quick requests, then stuck: its pace says it would have finished long before the limit.
    check = judged(timed_out_runaway([0.1, 0.2, 0.3], seconds=5.0, cpu=0.01))
    assert check.mistake != "too_slow" and check.verdict == "time_limit"


def test_the_cpu_time_of_a_process_tree_is_read_from_proc():
    import os

    used = process_cpu_seconds(os.getpid())
    assert used is not None and used > 0
    assert process_cpu_seconds(2**22 + 12345) is None  # no such process


def test_the_line_marked_for_a_runaway_is_the_loop_that_went_round():
    source = ("def run_agent(task, model, max_turns):\n"
              "    while True:\n"
              "        for block in []:\n"
              "            pass\n"
              "        reply = model.create([])\n")
    assert loop_line(source, [3, 2, 5]) == 2  # the inner for ran too, but the request is not inside it
    assert loop_line(source, []) is None and loop_line("def (", [1]) is None
