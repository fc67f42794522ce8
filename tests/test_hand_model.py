"""Be the model: replies written by a person, checked like any model's, saved as a script that replays."""

import pytest

from agent.api.signing import sign
from agent.loop import RunState, step
from agent.models.fake import FakeModel
from agent.models.hand_model import HandModel, HandReplyError, reply_from_form
from agent.real import save_recording
from agent.scripts import load_script
from agent.summary import console_lines

TOOLS = ["add", "word_count", "list_files"]


def test_a_form_becomes_a_reply_in_the_api_s_shape_with_ids_generated():
    reply = reply_from_form("tool_use", [{"type": "thinking", "thinking": "add first"},
                                         {"type": "text", "text": "Adding."},
                                         {"type": "tool_use", "name": "add", "input": {"a": 2, "b": 3}},
                                         {"type": "tool_use", "name": "list_files", "input": {}}], TOOLS)
    assert reply == {"stop_reason": "tool_use", "content": [
        {"type": "thinking", "thinking": "add first", "signature": sign("add first")},
        {"type": "text", "text": "Adding."},
        {"type": "tool_use", "id": "toolu_hand_0001", "name": "add", "input": {"a": 2, "b": 3}},
        {"type": "tool_use", "id": "toolu_hand_0002", "name": "list_files", "input": {}}]}


@pytest.mark.parametrize(("stop_reason", "blocks", "words"), [
    ("tool_use", [{"type": "tool_use", "name": "upper", "input": {"text": "x"}}], "this agent has no tool 'upper'"),
    ("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 2}}], 'add needs "b"'),
    ("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": "2", "b": 3}}], 'add needs "a" to be a number'),
    ("tool_use", [{"type": "tool_use", "name": "add", "input": [2, 3]}], "a tool's input is a JSON object"),
    ("tool_use", [{"type": "text", "text": "no call"}], "a tool_use reply needs at least one tool_use block"),
    ("", [], "pick a stop_reason"),
    ("end_turn", [{"type": "image"}], "not 'image'"),
])
def test_a_reply_the_form_cannot_send_is_refused_in_words(stop_reason, blocks, words):
    with pytest.raises(HandReplyError, match=words):
        reply_from_form(stop_reason, blocks, TOOLS)


def test_ids_stay_new_across_a_session():
    hand = HandModel()
    first = hand.give("tool_use", [{"type": "tool_use", "name": "list_files", "input": {}}], TOOLS)
    second = hand.give("tool_use", [{"type": "tool_use", "name": "list_files", "input": {}}], TOOLS)
    assert first["content"][0]["id"] == "toolu_hand_0001" and second["content"][0]["id"] == "toolu_hand_0002"


def test_the_loop_cannot_tell_a_hand_model_from_any_other():
    state = RunState("What is 2 + 3?", tool_names=TOOLS)
    hand = HandModel()
    record = step(state, hand)  # nothing written yet: a failed attempt, the run intact
    assert record.path == "model_error" and "write its reply first" in record.error and state.turn == 0
    hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 2, "b": 3}}], TOOLS)
    assert step(state, hand).tool_runs[0].content == "5"
    hand.give("end_turn", [{"type": "text", "text": "5."}], TOOLS)
    step(state, hand)
    assert state.result == "5." and hand.calls == 2 and state.records[1].reply["model"] == "you"


def test_a_bad_request_is_refused_before_the_hand_reply_is_used():
    state = RunState("hi", tool_names=TOOLS)
    state.messages.append({"role": "user", "content": "again"})  # two user messages in a row: lesson mode refuses
    hand = HandModel()
    hand.give("end_turn", [{"type": "text", "text": "hello"}], TOOLS)
    record = step(state, hand)
    assert record.path == "bad_request" and hand.pending is not None and hand.calls == 0


def test_a_session_saved_as_a_script_loads_back_like_a_built_in_one_and_replays_identically(tmp_path):
    state = RunState("Count the words of my notes' names, then add 2 and 3.", tool_names=TOOLS, max_turns=10)
    hand = HandModel()
    for stop_reason, blocks in [
        ("tool_use", [{"type": "thinking", "thinking": "list them"}, {"type": "tool_use", "name": "list_files"}]),
        ("tool_use", [{"type": "tool_use", "name": "word_count", "input": {"text": "notes.txt todo.txt"}},
                      {"type": "tool_use", "name": "add", "input": {"a": 2, "b": 3}}]),
        ("end_turn", [{"type": "text", "text": "Two names; 2 + 3 is 5."}]),
    ]:
        hand.give(stop_reason, blocks, TOOLS)
        step(state, hand)
    path = tmp_path / "my_scenario.json"
    save_recording(state, path)
    script = load_script(path)
    assert script.name == "my_scenario" and script.expected_output == console_lines(state)
    again = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    fake = FakeModel(script)
    while not again.done:
        step(again, fake)
    assert console_lines(again) == console_lines(state) and again.messages == state.messages


@pytest.mark.parametrize("fields", [{"max_tokens": -1}, {"max_tokens": "5"}, {"temperature": 3}, {"top_k": -1}])
def test_a_reply_by_hand_meets_the_same_checks_as_a_script_s(fields):
    """One checked path: the hand model refuses a body the FakeModel refuses, in the same words."""
    from agent.api.requests import RequestRejected
    from agent.models.fake import FakeModel
    from agent.scripts import load_script

    messages = [{"role": "user", "content": "Hi"}]
    with pytest.raises(RequestRejected) as scripted:
        FakeModel(load_script("add_then_answer")).create(messages, **fields)
    hand = HandModel()
    hand.give("end_turn", [{"type": "text", "text": "Hello."}], [])
    with pytest.raises(RequestRejected) as by_hand:
        hand.create(messages, **fields)
    assert str(by_hand.value) == str(scripted.value)
