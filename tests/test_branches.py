"""Forking a run at any turn: the prefix is shared as data, nothing before the fork is sent again."""

import json

import pytest

from agent.branches import MAIN, BranchError, RunTree, prefix
from agent.fake import FakeModel
from agent.faults import Fault
from agent.hand_model import HandModel
from agent.loop import RunState, console_lines, run_to_end, step
from agent.real import record_script
from agent.scripts import load_script, parse_script
from helpers import fake_run, reply, text, thinking, tool_use


def played_run(name: str) -> tuple[RunTree, FakeModel]:
    script = load_script(name)
    state = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    fake = FakeModel(script)
    run_to_end(state, fake)
    return RunTree.start(state), fake


def replay(state: RunState) -> list[str]:
    """The console of the branch's script, played from the start by a fresh FakeModel."""
    script = parse_script(json.loads(json.dumps(record_script(state).to_dict())))
    again = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    model = FakeModel(script)
    for _ in state.records:  # as many attempts as the branch made: an unfinished branch replays unfinished
        if not again.done:
            step(again, model)
    return console_lines(again)


@pytest.mark.parametrize("k", [0, 1, 17, 39, 40])
def test_stepping_on_from_turn_k_of_a_40_turn_run_sends_no_request_for_turns_1_to_k(k):
    tree, main_model = played_run("runaway")
    assert tree.branch.state.turn == 40 and len(main_model.requests) == 40
    branch = tree.fork(k)
    model = FakeModel(load_script("runaway"), calls=branch.script_replies_used(k))
    run_to_end(branch.state, model)
    assert len(model.requests) == 40 - k  # one request a turn after the fork, none for turns 1..k
    assert [r["messages"] for r in model.requests] == [2 * turn - 1 for turn in range(k + 1, 41)]
    assert console_lines(branch.state) == console_lines(tree.branches[MAIN].state)
    assert replay(branch.state) == console_lines(branch.state)  # the branch's export replays to the same console


def test_a_fork_shares_the_prefix_as_a_copy_and_leaves_the_parent_alone():
    tree, _ = played_run("three_tool_chain")
    main = tree.branches[MAIN].state
    before = main.to_json()
    branch = tree.fork(2)
    assert branch.parent == MAIN and branch.fork_turn == branch.shared == 2 and tree.current == branch.name
    assert branch.state.messages == main.messages[:5] and branch.state.turn == 2 and not branch.state.done
    branch.state.messages[1]["content"][0]["input"]["a"] = 99  # a copy: the parent never changes with it
    assert main.to_json() == before


def test_a_fork_at_the_last_turn_of_a_finished_run_is_finished_too():
    tree, _ = played_run("add_then_answer")
    branch = tree.fork(2)
    assert branch.state.result == "2 + 3 is 5." and branch.state.done
    with pytest.raises(BranchError, match="no turn 3"):
        tree.fork(3)


def test_an_edited_reply_runs_through_the_loop_and_the_script_continues_after_it():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    record = tree.edit_reply("tool_use", [{"type": "tool_use", "id": "toolu_01", "name": "add",
                                           "input": {"a": 40, "b": 2}}])
    branch = tree.branch
    assert record.tool_runs[0].content == "42" and branch.shared == 0 and branch.mark_of(record).kind == "edited"
    assert branch.state.messages[2]["content"][0]["content"] == "42"
    model = FakeModel(load_script("three_tool_chain"), calls=branch.script_replies_used(1))
    step(branch.state, model)
    assert model.requests[0]["messages"] == 3 and branch.state.turn == 2
    assert console_lines(branch.state)[0] == 'turn 1: add {"a": 40, "b": 2} -> 42'
    assert replay(branch.state) == console_lines(branch.state)


def test_an_edit_that_makes_a_bad_request_is_refused_in_the_api_s_words():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "bad id!", "name": "add", "input": {"a": 1, "b": 2}}])
    model = FakeModel(load_script("three_tool_chain"), calls=tree.branch.script_replies_used(1))
    record = step(tree.branch.state, model)
    assert record.branch == "bad_request"
    assert tree.branch.state.result == ("bad request: messages.1.content.0.tool_use.id: String should match pattern "
                                        "'^[a-zA-Z0-9_-]+$'")
    assert len(model.requests) == 1 and model.calls == 1  # refused before the script gave a reply


def test_a_stop_reason_edit_to_end_turn_makes_the_text_the_answer():
    tree, _ = played_run("three_tool_chain")
    tree.fork(2)
    tree.edit_reply("end_turn", [{"type": "text", "text": "Done early."}])
    assert tree.branch.state.result == "Done early." and tree.branch.state.turn == 2
    assert replay(tree.branch.state) == console_lines(tree.branch.state)


def test_an_edited_tool_result_is_what_the_next_request_carries():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    tree.edit_tool_result(0, "the calculator is on fire", True)
    assert tree.branch.state.messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "the calculator is on fire", "is_error": True}]
    model = FakeModel(load_script("three_tool_chain"), calls=tree.branch.script_replies_used(1))
    step(tree.branch.state, model)
    assert tree.branch.state.turn == 2 and "result of add edited" in tree.branch.marks[0].words
    with pytest.raises(BranchError, match="stepped on"):
        tree.edit_tool_result(0, "again", False)


def test_main_cannot_be_edited_and_a_fork_before_turn_1_has_no_reply_to_edit():
    tree, _ = played_run("add_then_answer")
    with pytest.raises(BranchError, match="fork it first"):
        tree.edit_reply("end_turn", [])
    tree.fork(0)
    with pytest.raises(BranchError, match="no reply to edit"):
        tree.edit_reply("end_turn", [])


@pytest.mark.parametrize(("keep_signature", "result"), [
    (True, "bad request: messages.1.content.0: Invalid `signature` in `thinking` block"),  # changed under its signature
    # Written anew, it is signed as the model would sign it; lesson mode still holds it to what was served.
    (False, "bad request: messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant "
            "message cannot be modified")])
def test_changed_thinking_in_an_edit_is_refused_as_the_api_refuses_it(keep_signature, result):
    state, fake = fake_run(reply("tool_use", thinking("plan"), tool_use("toolu_01")), reply("end_turn", text("5")))
    step(state, fake)
    served = state.messages[1]["content"][0]
    tree = RunTree.start(state)
    tree.fork(1)
    edited = {"type": "thinking", "thinking": "another plan",
              **({"signature": served["signature"]} if keep_signature else {})}
    call = {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 3}}
    tree.edit_reply("tool_use", [edited, call])
    model = FakeModel(fake.script, calls=tree.branch.script_replies_used(1))
    step(tree.branch.state, model)
    assert tree.branch.state.result.startswith(result)


def test_the_script_position_skips_injected_failures_and_hand_replies():
    tree, _ = played_run("add_then_answer")
    tree.fork(0)
    script = load_script("add_then_answer")
    model = FakeModel(script)
    tree.step(model, Fault("overloaded"))  # the 529 takes no reply; its retry takes reply 1
    assert [r.branch for r in tree.branch.state.records] == ["model_error", "tool_use"]
    assert tree.branch.script_replies_used(1) == 1 == model.calls
    hand = HandModel()
    hand.give("end_turn", [{"type": "text", "text": "five"}], tree.branch.state.tool_names)
    tree.step(hand)
    assert tree.branch.script_replies_used(2) == 1 and tree.branch.marks[2].kind == "hand"


def test_the_tree_writes_to_json_and_reads_back():
    tree, _ = played_run("three_tool_chain")
    tree.fork(2)
    tree.edit_tool_result(0, "changed", False)
    tree.fork(1)
    tree.step(FakeModel(load_script("three_tool_chain"), calls=tree.branch.script_replies_used(1)), Fault("refusal"))
    again = RunTree.from_json(tree.to_json())
    assert again.to_dict() == tree.to_dict()
    assert list(again.branches) == ["main", "branch 1", "branch 2"] and again.current == "branch 2"
    assert again.branch.parent == "branch 1" and again.branch.marks[1].kind == "injected"
    assert again.branch.state.result == "stopped: refusal"


def test_switching_to_a_missing_branch_says_which_there_are():
    tree, _ = played_run("add_then_answer")
    with pytest.raises(BranchError, match="the branches: main"):
        tree.switch("nope")


def test_prefix_of_turn_0_is_the_task_alone():
    tree, _ = played_run("add_then_answer")
    start = prefix(tree.branch.state, 0)
    assert start.messages == [{"role": "user", "content": "What is 2 + 3?"}] and start.records == []


def test_a_branch_whose_tool_result_was_edited_saves_without_a_promise_its_replay_cannot_keep():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    tree.edit_tool_result(0, "7", False)
    run_to_end(tree.branch.state, FakeModel(load_script("three_tool_chain"), calls=tree.branch.script_replies_used(1)))
    script = record_script(tree.branch.state)
    assert script.expected_output is None and "no expected_output" in script.about
    plain = record_script(tree.branches[MAIN].state)
    assert plain.expected_output == console_lines(tree.branches[MAIN].state)


def test_the_console_marks_what_was_injected_or_edited_and_says_nothing_more_without_notes():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    tree.edit_reply("end_turn", [{"type": "text", "text": "Stop here."}])
    notes = {i: f"{m.kind}: {m.words}" for i, m in tree.branch.marks.items()}
    assert console_lines(tree.branch.state, notes) == [
        "turn 1:   <- edited: reply edited: stop_reason tool_use → end_turn, 0 tool calls, text changed",
        "result: Stop here.", "messages sent each turn: 1"]
    assert console_lines(tree.branch.state) == ["result: Stop here.", "messages sent each turn: 1"]


def test_the_script_steps_on_after_a_reply_written_by_hand():
    tree, _ = played_run("add_then_answer")
    tree.fork(0)
    model = FakeModel(load_script("add_then_answer"))
    tree.step(model)  # the script's reply 1, with a thinking block
    hand = HandModel()
    hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 1, "b": 1}}], ["add", "word_count"])
    tree.step(hand)  # a reply of the person's, without thinking: not the script's reply changed
    tree.step(model)
    assert tree.branch.state.result == "2 + 3 is 5." and len(model.requests) == 2


def test_a_fork_at_a_refused_turn_starts_from_the_turn_before_it():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "bad id", "name": "add", "input": {"a": 1, "b": 2}}])
    step(tree.branch.state, FakeModel(load_script("three_tool_chain"), calls=1))
    assert tree.branch.state.turn == 2 and tree.branch.state.records[-1].branch == "bad_request"
    again = tree.fork(2)
    assert again.fork_turn == 1 and again.state.turn == 1 and not again.state.done
    assert [r.branch for r in again.state.records] == ["tool_use"] and len(again.state.messages) == 3
