"""Faults on demand: each goes through agent.loop.step, and the loop does what it does with the real thing."""

import pytest

from agent.branches import RunTree
from agent.loop import run_to_end, step
from agent.models.faults import FAULTS, Fault, cut_input, cut_off, step_with_fault
from agent.real import AnthropicModel, running_server
from agent.scripts import load_script
from agent.summary import console_lines
from helpers import fake_run, reply, text, tool_use

CALL = reply("tool_use", text("Let me add."), tool_use("toolu_01"), tool_use("toolu_02", "word_count", {"text": "a b"}))
ANSWER = reply("end_turn", text("2 + 3 is 5."))


def test_the_chosen_tool_raises_inside_the_loop_s_own_call_and_the_model_reads_an_error():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    [record] = step_with_fault(state, fake, Fault("tool_raises", "add"))
    assert [(r.name, r.content, r.is_error) for r in record.tool_runs] == [
        ("add", "error: add broke down (an injected fault)", True), ("word_count", "2", False)]
    assert state.messages[-1]["content"][0]["is_error"] is True and record.path == "tool_use"
    assert run_to_end(state, fake) == "2 + 3 is 5."  # the next turn is the model's again


def test_every_tool_raises_when_no_tool_is_named():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    [record] = step_with_fault(state, fake, Fault("tool_raises"))
    assert all(r.is_error for r in record.tool_runs)


def test_a_reply_cut_off_mid_call_stops_the_loop_and_runs_nothing():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    [record] = step_with_fault(state, fake, Fault("cut_off"))
    assert record.path == "stopped" and state.result == "stopped: max_tokens" and record.tool_runs == []
    assert record.reply["content"] == [text("Let me add."), tool_use("toolu_01", "add", {"a": 2})]
    assert "usage" not in record.reply  # the script's reply had none, and nobody measured the cut one
    assert fake.calls == 1  # the model did answer; its answer was cut


def test_a_cut_off_keeps_the_usage_the_model_counted_and_invents_none():
    counted = {**CALL, "usage": {"input_tokens": 412, "output_tokens": 57}}
    cut = cut_off(counted, 1024)
    assert cut["usage"] == {"input_tokens": 412, "output_tokens": 57} and cut["stop_reason"] == "max_tokens"
    assert "usage" not in cut_off(CALL, 1024)
    assert counted["usage"] == {"input_tokens": 412, "output_tokens": 57}  # the inner reply is left as it was


def test_cutting_an_input_keeps_the_first_half_and_cuts_the_last_string_short():
    assert cut_input({"path": "notes.txt"}) == {"path": "note"}
    assert cut_input({"a": 1, "b": 2, "c": 3}) == {"a": 1, "b": 2}
    assert cut_input({}) == {}
    answer = cut_off(ANSWER, 50)  # no tool call to cut: the text is cut instead
    assert answer["stop_reason"] == "max_tokens" and answer["content"] == [text("2 + 3")]


def test_a_refusal_stops_the_loop_even_with_a_complete_call_in_the_reply():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    [record] = step_with_fault(state, fake, Fault("refusal"))
    assert state.result == "stopped: refusal" and record.tool_runs == [] and len(record.reply["content"]) == 3


def test_an_overload_is_a_failed_attempt_then_the_retry_takes_the_turn():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    failed, retry = step_with_fault(state, fake, Fault("overloaded"))
    assert failed.path == "model_error" and failed.retryable and failed.turn == 1
    assert failed.error == "529 overloaded_error: Overloaded"
    assert retry.path == "tool_use" and retry.turn == 1 and state.turn == 1 and fake.calls == 1
    assert console_lines(state)[0] == "turn 1: model error: 529 overloaded_error: Overloaded"


def test_a_timeout_is_a_failed_attempt_the_next_step_tries_again():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    [record] = step_with_fault(state, fake, Fault("timeout"))
    assert record.path == "model_error" and record.retryable and state.turn == 0 and fake.calls == 0
    assert record.error.startswith("APITimeoutError: Request timed out")  # the SDK's own words
    assert state.error == record.error and not state.done


def test_an_unknown_fault_or_tool_is_refused_in_words():
    with pytest.raises(ValueError, match="no fault 'meteor'"):
        Fault("meteor")
    with pytest.raises(ValueError, match="no tool 'hammer'"):
        Fault("tool_raises", "hammer")
    assert set(FAULTS) == {"tool_raises", "cut_off", "refusal", "overloaded", "timeout"}


def test_the_tree_marks_the_injected_attempt():
    state, fake = fake_run(CALL, ANSWER, tools=["add", "word_count"])
    tree = RunTree.start(state)
    tree.step(fake, Fault("overloaded"))
    assert tree.branch.marks[0].words == FAULTS["overloaded"] and 1 not in tree.branch.marks


@pytest.mark.parametrize("kind", ["cut_off", "refusal", "overloaded"])
def test_faults_wrap_the_real_model_through_the_sdk_as_they_wrap_the_fake(kind):
    played = load_script("add_then_answer")
    fake_state, fake = fake_run(*played.replies, tools=played.tools)
    step_with_fault(fake_state, fake, Fault(kind))
    with running_server(played) as server:
        state, _ = fake_run(*played.replies, tools=played.tools)
        step_with_fault(state, AnthropicModel("sk-test", base_url=server.base_url, max_retries=0), Fault(kind))
    assert console_lines(state) == console_lines(fake_state)
    assert state.result == fake_state.result


@pytest.mark.parametrize("kind", ["cut_off", "refusal", "overloaded"])
def test_a_fault_in_a_run_over_threads_goes_over_the_thread_as_the_turns_around_it_do(kind):
    script = load_script("three_tool_chain")
    state, fake = fake_run(*script.replies, tools=script.tools)
    state.threads = True
    step(state, fake)
    records = step_with_fault(state, fake, Fault(kind))
    assert all(r.thread is not None for r in records)  # the injected attempt and the retry after it, alike
    counted = [r for r in state.records if r.counted]
    assert [r.messages_sent for r in counted][1:] == [1] * (len(counted) - 1)
    assert console_lines(state, readable=True)[-1].endswith(
        f"over a message thread (the whole array each turn: {', '.join(str(r.sent) for r in counted)})")
