"""The ToyModel: a few patterns that read the task, replying in the Messages API's shape, checked like any model."""

import pytest

from agent.fake import FakeModel
from agent.loop import RunState, console_lines, run_to_end
from agent.real import record_script
from agent.requests import RequestChecker
from agent.toy import CAN_DO, TOY_MODEL_NAME, ToyModel


def ran(task: str, **settings) -> RunState:
    state = RunState(task, **settings)
    run_to_end(state, ToyModel())
    return state


def calls(state: RunState) -> list[list[tuple[str, object]]]:
    return [[(run.name, run.input) for run in r.tool_runs] for r in state.records if r.tool_runs]


def test_a_sum_is_one_add_call_then_the_answer():
    state = ran("What is 10 + 20?")
    assert calls(state) == [[("add", {"a": 10, "b": 20})]]
    assert state.result == "10 + 20 is 30."


def test_several_numbers_are_a_chain_of_calls_each_on_the_last_result():
    state = ran("Add 1, 2 and 3 please, then 4")
    assert calls(state) == [[("add", {"a": 1, "b": 2})], [("add", {"a": 3, "b": 3})], [("add", {"a": 6, "b": 4})]]
    assert state.result == "1 + 2 + 3 + 4 is 10."


def test_separate_sums_are_parallel_calls_in_one_reply():
    state = ran("What is 2 + 3 and 7 + 8?")
    assert calls(state) == [[("add", {"a": 2, "b": 3}), ("add", {"a": 7, "b": 8})]]
    assert state.result == "2 + 3 is 5; 7 + 8 is 15."
    assert [len(r.tool_runs) for r in state.records] == [2, 0]


def test_words_files_and_shouting():
    assert calls(ran("How many words are in 'the cat sat down'?")) == [[("word_count", {"text": "the cat sat down"})]]
    files = ran("What is in my notes?")
    assert calls(files) == [[("list_files", {})], [("read_file", {"path": "notes.txt"})]]
    assert "oat milk" in files.result
    assert calls(ran("Shout good morning")) == [[("upper", {"text": "good morning"})]]
    assert ran("Shout good morning").result == "GOOD MORNING"


def test_anything_else_is_a_polite_answer_saying_what_it_can_do():
    state = ran("Write me a poem about the sea")
    assert state.result == CAN_DO and "not a language model" in CAN_DO
    assert state.records[0].reply["stop_reason"] == "end_turn"


def test_a_tool_it_was_not_given_is_said_not_called():
    state = ran("What is 2 + 3?", tool_names=["upper"])
    assert calls(state) == [] and "not given it" in state.result


def test_replies_have_the_api_shape_ids_usage_and_stop_reasons():
    state = ran("What is 2 + 3?")
    first, last = (r.reply for r in state.records)
    assert set(first) == {"id", "type", "model", "role", "content", "stop_reason", "stop_sequence", "usage"}
    assert first["type"] == "message" and first["role"] == "assistant" and first["model"] == TOY_MODEL_NAME
    assert first["stop_reason"] == "tool_use" and last["stop_reason"] == "end_turn"
    call = next(b for b in first["content"] if b["type"] == "tool_use")
    assert call["id"].startswith("toolu_") and first["id"].startswith("msg_")
    assert first["usage"]["input_tokens"] > 0 and first["usage"]["output_tokens"] > 0
    assert last["usage"]["input_tokens"] > first["usage"]["input_tokens"]  # the conversation grew
    assert ran("What is 2 + 3?").records[0].reply == first  # the same run, the same ids


def test_max_tokens_cuts_a_reply_off_as_a_real_model_does():
    state = ran("What is 2 + 3?", max_tokens=1)
    assert state.result == "stopped: max_tokens" and state.records[0].reply["usage"]["output_tokens"] == 1
    assert not any(b["type"] == "tool_use" for b in state.records[0].reply["content"])


def test_a_bad_request_is_refused_in_the_apis_words():
    model = ToyModel()
    with pytest.raises(Exception, match="roles must alternate|must alternate|first message") as refused:
        model.create([{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}], max_tokens=10)
    assert refused.value.__class__.__name__ == "RequestRejected"
    with pytest.raises(Exception, match="max_tokens: Input should be greater than or equal to 0"):
        model.create([{"role": "user", "content": "hi"}], max_tokens=-1)


def test_max_tokens_0_generates_nothing_as_the_api_does():
    reply = ToyModel().create([{"role": "user", "content": "What is 2 + 3?"}], max_tokens=0)
    assert (reply["content"], reply["stop_reason"], reply["usage"]["output_tokens"]) == ([], "max_tokens", 0)


def test_every_request_of_its_runs_is_one_the_api_accepts():
    for task in ["What is 1 + 2 + 3 + 4 + 5?", "What is 1 + 1 and 2 + 2 and 3 + 3?", "What is in todo.txt?"]:
        state = ran(task)
        checker = RequestChecker("lesson")
        for record in state.records:
            assert checker.check(state.messages[:record.sent]) == []


def test_a_toy_run_records_into_a_script_that_replays_it():
    state = ran("What is 2 + 3 and 4 + 4?")
    script = record_script(state)
    replay = RunState(script.task, tool_names=script.tools)
    run_to_end(replay, FakeModel(script))
    assert console_lines(replay) == console_lines(state) == script.expected_output
