"""The loop: every stop reason, the turn limit, tool results, failures, stepping and the state's JSON."""

import json
import time

import anthropic
import httpx2
import pytest

from agent.api.error_types import error_words
from agent.loop import RunState, TurnPath, reopen, run_agent, run_to_end, step
from agent.summary import console_lines
from agent.tools import TOOLS, tool_schemas
from helpers import fake_run, reply, text, thinking, tool_use


def test_the_reference_run():
    state, model = fake_run(reply("tool_use", thinking(), tool_use("toolu_01")),
                            reply("end_turn", text("2 + 3 is 5.")))
    assert run_to_end(state, model) == "2 + 3 is 5."
    assert [r.sent for r in state.records] == [1, 3]
    assert state.messages == [
        {"role": "user", "content": "What is 2 + 3?"},
        {"role": "assistant", "content": [thinking(), tool_use("toolu_01")]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]},
        {"role": "assistant", "content": [text("2 + 3 is 5.")]},
    ]
    assert console_lines(state) == ['turn 1: add {"a": 2, "b": 3} -> 5', "result: 2 + 3 is 5.",
                                    "messages sent each turn: 1, 3"]


def test_the_answer_is_the_text_blocks_joined_without_thinking():
    state, model = fake_run(reply("end_turn", thinking("secret plan"), text("It is "), text("5.")))
    assert run_to_end(state, model) == "It is 5."


def test_the_request_carries_system_tools_and_max_tokens():
    state, model = fake_run(reply("end_turn", text("ok")), tools=["add", "upper"], system="Be brief.",
                            max_tokens=77)
    step(state, model)
    sent = model.requests[0]
    assert sent["system"] == "Be brief." and sent["max_tokens"] == 77
    assert [tool["name"] for tool in sent["tools"]] == ["add", "upper"]


@pytest.mark.parametrize("stop_reason", ["max_tokens", "refusal", "pause_turn", "stop_sequence",
                                         "model_context_window_exceeded", "invented_tomorrow"])
def test_any_other_stop_reason_stops_and_runs_nothing(stop_reason):
    state, model = fake_run(reply(stop_reason, text("I was"), tool_use("toolu_1")))
    assert run_to_end(state, model) == f"stopped: {stop_reason}"
    record = state.records[0]
    assert record.tool_runs == [] and record.path == "stopped"
    assert state.messages[-1]["role"] == "assistant"  # the reply is kept, no results appended


def test_every_call_of_a_reply_runs_in_order_and_is_answered_in_one_message():
    state, model = fake_run(
        reply("tool_use", tool_use("toolu_a"), tool_use("toolu_b", "upper", {"text": "hi"})),
        reply("end_turn", text("done")), tools=["add", "upper"])
    step(state, model)
    assert [run.name for run in state.records[0].tool_runs] == ["add", "upper"]
    assert state.messages[-1] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "5"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "HI"}]}


def test_the_turn_limit_stops_a_runaway():
    replies = [reply("tool_use", tool_use(f"toolu_{k}")) for k in range(5)]
    state, model = fake_run(*replies, max_turns=3)
    assert run_to_end(state, model) == "stopped: no answer after 3 turns"
    assert state.turn == 3 and model.calls == 3
    assert state.records[-1].path == "limit"


def test_the_allowlist_reaches_run_tool():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1", "read_file", {"path": "notes.txt"})),
                            reply("end_turn", text("no")), tools=["add"])
    step(state, model)
    run = state.records[0].tool_runs[0]
    assert run.is_error and run.content == "error: read_file is not available to this agent (its tools: add)"


def test_step_runs_exactly_one_turn_and_refuses_after_the_end():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    first = step(state, model)
    assert (first.turn, first.path, state.done, len(state.messages)) == (1, "tool_use", False, 3)
    second = step(state, model)
    assert (second.turn, second.path, state.result) == (2, "answer", "5")
    with pytest.raises(RuntimeError, match="the loop has finished: 5"):
        step(state, model)


def test_a_bad_request_ends_the_run_in_the_apis_words():
    state, model = fake_run(reply("end_turn", text("hi")))
    state.messages.append({"role": "user", "content": "again"})
    assert run_to_end(state, model) == ('bad request: messages: roles must alternate between "user" and '
                                        '"assistant", but found multiple "user" roles in a row')
    assert state.records[-1].path == "bad_request" and state.turn == 1


def test_an_overload_is_not_a_turn_and_the_next_step_tries_again():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")),
                            {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
                            reply("end_turn", text("5")))
    step(state, model)
    failed = step(state, model)
    assert (failed.path, failed.counted, failed.retryable) == ("model_error", False, True)
    assert failed.error == "529 overloaded_error: Overloaded"
    assert state.turn == 1 and state.error == failed.error and len(state.messages) == 3
    again = step(state, model)
    assert (again.turn, again.path, state.result, state.error) == (2, "answer", "5", None)


def test_run_to_end_gives_up_after_the_retries():
    overload = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}
    state, model = fake_run(overload, overload, overload, reply("end_turn", text("5")))
    assert run_to_end(state, model, retries=2) == "model error: 529 overloaded_error: Overloaded"
    assert not state.done and model.calls == 3
    assert run_to_end(state, model) == "5"  # the state survived: going on picks up where it stopped


def test_an_error_not_worth_retrying_stops_at_once():
    state, model = fake_run({"error": {"status": 401, "type": "authentication_error", "message": "invalid x-api-key"}},
                            reply("end_turn", text("5")))
    assert run_to_end(state, model) == "model error: 401 authentication_error: invalid x-api-key"
    assert model.calls == 1


def test_a_script_that_runs_out_ends_the_run_in_words_naming_its_length():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")))
    result = run_to_end(state, model)
    assert result == "stopped: the script 'test' has 1 reply and this is request 2: there is no reply to give"
    assert state.done and state.records[-1].path == "no_reply" and state.turn == 2  # no Step tries it again


def test_a_failed_attempt_prints_no_result_line_while_the_run_goes_on():
    state, model = fake_run({"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
                            reply("end_turn", text("5")))
    step(state, model)
    assert console_lines(state, returned=False) == ["turn 1: model error: 529 overloaded_error: Overloaded",
                                                    "messages sent each turn: "]
    assert console_lines(state)[-2] == "result: model error: 529 overloaded_error: Overloaded"  # what run_agent gave


def test_a_model_that_crashes_is_a_state_not_a_crash():
    class Broken:
        def create(self, messages, **_):
            raise KeyError("content")
    state = RunState("hi")
    record = step(state, Broken())
    assert record.path == "model_error" and record.error == "KeyError: 'content'"


def test_mutating_a_reply_through_the_loop_cannot_change_the_script():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    step(state, model)
    state.records[0].reply["content"][0]["input"]["a"] = 1000
    state.messages[1]["content"].append(text("tampered"))
    assert model.script.replies[0]["content"] == [tool_use("toolu_1")]
    fresh, again = fake_run(*model.script.replies)
    step(fresh, again)
    assert fresh.records[0].tool_runs[0].content == "5"


def test_the_state_round_trips_through_json():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1"), usage={"input_tokens": 10, "output_tokens": 3}),
                            {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
                            reply("end_turn", text("5")), system="sys")
    run_to_end(state, model)
    loaded = RunState.from_json(state.to_json())
    assert loaded == state
    assert loaded.records[0].usage == {"input_tokens": 10, "output_tokens": 3}
    assert console_lines(loaded) == console_lines(state)


def test_a_record_holds_its_path_its_scripts_reply_number_and_its_status_as_data():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")),
                            {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
                            reply("end_turn", text("5")))
    run_to_end(state, model)
    facts = [(r.path, r.script_reply, r.status) for r in RunState.from_json(state.to_json()).records]
    assert facts == [(TurnPath.TOOL_USE, 1, None), (TurnPath.MODEL_ERROR, None, 529), (TurnPath.ANSWER, 3, None)]
    assert all(type(path) is TurnPath for path, _, _ in facts)


def test_a_file_saved_before_records_held_those_facts_reads_them_back():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")),
                            {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
                            reply("end_turn", text("5")))
    run_to_end(state, model)
    old = state.to_dict()
    for record in old["records"]:  # as an older version wrote it: `branch`, no number, no status
        record["branch"] = record.pop("path")
        del record["script_reply"], record["status"]
    assert RunState.from_dict(old) == state


def test_a_loaded_unfinished_run_steps_on():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    step(state, model)
    loaded = RunState.from_json(state.to_json())
    assert step(loaded, model).path == "answer" and loaded.result == "5"


def test_the_request_of_a_turn_is_a_prefix_of_the_conversation():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    run_to_end(state, model)
    request = state.request(state.records[1])
    assert request["messages"] == state.messages[:3] and request["max_tokens"] == state.max_tokens


def test_run_agent_reads_like_the_lesson():
    _, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("2 + 3 is 5.")))
    assert run_agent("What is 2 + 3?", model, ["add", "word_count"]) == "2 + 3 is 5."


def test_a_refused_run_can_be_reopened_and_the_turn_sent_again():
    state, model = fake_run(reply("end_turn", text("hi")))
    state.messages.append({"role": "user", "content": "again"})  # two user turns: lesson mode refuses
    step(state, model)
    assert state.result.startswith("bad request")
    reopen(state)
    assert (state.done, state.records, state.turn) == (False, [], 0)
    state.messages.pop()
    assert step(state, model).path == "answer"
    with pytest.raises(ValueError, match="only a run that a refused request ended can be reopened"):
        reopen(state)


@pytest.mark.parametrize("error, retried", [
    ({"status_code": 200, "type": "overloaded_error"}, True),
    ({"status_code": 200, "type": "api_error"}, True),  # said mid-stream: the SDK retries these three
    ({"status_code": 200, "type": "rate_limit_error"}, True),
    ({"status_code": 500}, True),
    ({"status_code": 502}, True),
    ({"status_code": 409}, True),
    ({"status_code": 429}, True),
    ({"status_code": 499}, False),
    ({"status_code": 200, "type": "invalid_request_error"}, False),
    ({"status_code": 200}, False),  # a stream error of no known type
    ({"status_code": 404, "retryable": True}, True),
    ({"status_code": 503, "retryable": False}, False),
    ({"status_code": 408}, True),
    ({"status_code": 403}, False),
])
def test_run_to_end_retries_what_the_sdk_would(error, retried):
    class Failing:
        calls = 0

        def create(self, messages, **_):
            self.calls += 1
            if self.calls == 1:
                exc = Exception("failed")
                exc.__dict__.update(error)
                raise exc
            return {"stop_reason": "end_turn", "content": [text("ok")]}
    state, model = RunState("hi"), Failing()
    result = run_to_end(state, model)
    assert (result == "ok") is retried and (model.calls == 2) is retried


class Recording:
    """The FakeModel, keeping what each request sent: (messages, tools, system)."""

    def __init__(self, model):
        self.model, self.sent = model, []

    def create(self, messages, **kwargs):
        self.sent.append((list(messages), kwargs.get("tools"), kwargs.get("system")))
        return self.model.create(messages, **kwargs)


def test_run_agent_with_no_tools_gives_the_model_none():
    _, fake = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("I have no tools.")))
    model = Recording(fake)
    assert run_agent("What is 2 + 3?", model, tool_names=[]) == "I have no tools."
    assert [tools for _, tools, _ in model.sent] == [[], []]
    assert model.sent[1][0][-1]["content"][0]["content"] == \
        "error: add is not available to this agent (its tools: none)"
    every = Recording(fake_run(reply("end_turn", text("5")))[1])
    assert run_agent("What is 2 + 3?", every) == "5"
    assert [tool["name"] for tool in every.sent[0][1]] == list(TOOLS)  # no tool_names: every tool


def test_run_agent_passes_its_system_prompt_and_turn_limit_and_sends_no_system_by_default():
    model = Recording(fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))[1])
    assert run_agent("What is 2 + 3?", model, system="Be brief.", max_turns=1) == "stopped: no answer after 1 turns"
    assert [system for _, _, system in model.sent] == ["Be brief."]
    plain = Recording(fake_run(reply("end_turn", text("5")))[1])
    assert run_agent("What is 2 + 3?", plain) == "5" and plain.sent[0][2] == ""


def test_run_to_end_tries_a_failed_request_three_times_by_default():
    overload = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}
    state, model = fake_run(overload, overload, overload, reply("end_turn", text("5")))
    assert run_to_end(state, model) == "model error: 529 overloaded_error: Overloaded"
    assert model.calls == 3


@pytest.mark.parametrize("error", [anthropic.APIConnectionError, anthropic.APITimeoutError])
def test_a_lost_connection_or_a_timeout_is_tried_again(error):
    class Failing:
        calls = 0

        def create(self, messages, **_):
            self.calls += 1
            if self.calls == 1:
                raise error(request=httpx2.Request("POST", "http://127.0.0.1/v1/messages"))
            return {"stop_reason": "end_turn", "content": [text("ok")]}
    model = Failing()
    assert run_to_end(RunState("hi"), model) == "ok" and model.calls == 2


def test_an_error_is_told_with_what_the_sdk_gives():
    failure = Exception("repr-ish")
    failure.__dict__.update(status_code=403, message="Forbidden here")
    assert error_words(failure) == "403: Forbidden here"
    failure.type = "permission_error"
    assert error_words(failure) == "403 permission_error: Forbidden here"


def test_reopen_says_why_it_cannot():
    with pytest.raises(ValueError) as caught:
        reopen(RunState("hi"))
    assert str(caught.value) == "only a run that a refused request ended can be reopened"


def test_console_lines_put_each_note_beside_its_turn_and_print_inputs_sorted():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1", tool_input={"b": 3, "a": 2})),
                            reply("end_turn", text("5")))
    run_to_end(state, model)
    assert console_lines(state, {0: "a fault was injected", 1: "the last turn"}) == [
        'turn 1: add {"a": 2, "b": 3} -> 5   <- a fault was injected',
        "<- turn 2: the last turn (a note of the page's: run_agent printed nothing this turn)",
        "result: 5",
        "messages sent each turn: 1, 3"]


def test_a_saved_run_is_indented_json_and_a_run_without_records_loads():
    state, model = fake_run(reply("end_turn", text("5")))
    run_to_end(state, model)
    assert state.to_json().splitlines()[1].startswith('  "')
    loaded = RunState.from_dict({"task": "What is 2 + 3?"})
    assert (loaded.records, loaded.messages, loaded.turn) == ([], [{"role": "user", "content": "What is 2 + 3?"}], 0)


def test_threads_on_with_a_model_that_holds_none_sends_the_whole_conversation():
    class NoThreads:
        """A model with no `holds_threads`: the loop must not send it a `thread`."""

        sent = []

        def create(self, messages, **kwargs):
            self.sent.append(kwargs)
            return {"stop_reason": "end_turn", "content": [text("ok")]}
    model = NoThreads()
    assert run_to_end(RunState("hi", threads=True), model) == "ok"
    assert "thread" not in model.sent[0] and model.sent[0]["tools"]


def test_a_400_from_the_api_itself_is_saved_as_sent_and_refused():
    class Refusing:
        def create(self, messages, **_):
            exc = Exception("messages: bad")
            exc.__dict__.update(status_code=400, type="invalid_request_error", message="messages: bad")
            raise exc
    state = RunState("hi")
    assert run_to_end(state, Refusing()) == "bad request: messages: bad"
    assert json.loads(state.to_json())["records"][-1]["refused_unsent"] is False


def test_a_failed_attempt_records_how_long_it_took_not_a_clock_reading():
    overload = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}
    state, model = fake_run(overload, reply("end_turn", text("5")))
    before = time.perf_counter()
    failed = step(state, model)
    took = time.perf_counter() - before
    assert failed.path == "model_error" and 0 <= failed.seconds == failed.model_seconds <= took


def test_the_messages_after_each_turn_are_what_the_next_turn_sent():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    run_to_end(state, model)
    assert state.messages_after(0) == state.messages[:1]
    assert state.messages_after(1) == state.messages[:3]
    assert state.messages_after(2) == state.messages[:] and len(state.messages) == 4


def test_the_request_a_turn_sent_holds_its_system_prompt_and_tools():
    state, model = fake_run(reply("end_turn", text("5")), tools=["add"], system="Be brief.")
    run_to_end(state, model)
    assert state.request(state.records[0]) == {"max_tokens": state.max_tokens, "system": "Be brief.",
                                               "tools": tool_schemas(["add"]), "messages": state.messages[:1]}


def test_a_thread_is_created_with_the_system_prompt_and_tools():
    class RecordingThreads(Recording):
        holds_threads = True
    _, fake = fake_run(reply("end_turn", text("5")), tools=["add"])
    model = RecordingThreads(fake)
    state = RunState("What is 2 + 3?", tool_names=["add"], system="Be brief.", threads=True)
    assert run_to_end(state, model) == "5"
    assert [(system, [t["name"] for t in tools]) for _, tools, system in model.sent] == [("Be brief.", ["add"])]


def test_on_a_thread_each_turn_sends_max_tokens_and_the_request_shows_the_thread():
    class Threads:
        holds_threads = True

        def __init__(self, model):
            self.model, self.sent = model, []

        def create(self, messages, **kwargs):
            self.sent.append(kwargs)
            return self.model.create(messages, **kwargs)
    _, fake = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    model = Threads(fake)
    state = RunState("What is 2 + 3?", threads=True, max_tokens=321)
    assert run_to_end(state, model) == "5"
    assert [kwargs["max_tokens"] for kwargs in model.sent] == [321, 321]
    assert state.request(state.records[0])["thread"] == {"type": "create"}
    assert state.request(state.records[1])["thread"]["type"] == "continue"


def test_an_empty_system_prompt_or_tool_list_is_left_out_of_the_request_as_sent():
    from agent.models.toy import ToyModel

    state = RunState("Hello", tool_names=[])
    run_to_end(state, ToyModel())
    assert state.request(state.records[0]) == {"max_tokens": 1024, "messages": [{"role": "user", "content": "Hello"}]}


def test_each_turn_times_the_model_inside_the_whole_turn():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")), reply("end_turn", text("5")))
    started = time.perf_counter()
    run_to_end(state, model)
    took = time.perf_counter() - started
    assert all(0 <= r.model_seconds <= r.seconds <= took for r in state.records)


def test_the_console_writes_other_letters_escaped_for_the_exercise_and_as_themselves_for_the_page():
    from agent.models.toy import ToyModel

    state = RunState("Shout café")
    run_to_end(state, ToyModel())
    assert console_lines(state)[0] == 'turn 1: upper {"text": "caf\\u00e9"} -> CAFÉ'
    assert console_lines(state, readable=True)[0] == 'turn 1: upper {"text": "café"} -> CAFÉ'
    assert console_lines(RunState("Hi"), readable=True) == [
        "messages sent each turn: none yet (no turn has gone through)"]
