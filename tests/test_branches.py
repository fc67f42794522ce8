"""Forking a run at any turn: the prefix is shared as data, nothing before the fork is sent again."""

import json

import pytest

from agent.branches import MAIN, BranchError, RunTree, prefix
from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.models.faults import Fault
from agent.models.hand_model import HandModel, tool_use_ids
from agent.page.branches_view import console_notes
from agent.real import record_script
from agent.scripts import Script, load_script, parse_script
from agent.summary import console_lines
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
    assert branch.mark_of(record).words == "reply edited: tool calls changed"  # its stop_reason is still tool_use
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
    assert record.path == "bad_request"
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


def test_a_tool_result_edited_at_turn_2_leaves_turn_1_shared_with_the_parent():
    tree, _ = played_run("three_tool_chain")
    assert tree.fork(2).shared == 2
    tree.edit_tool_result(0, "the calculator is on fire", True)
    assert tree.branch.shared == 1


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
    assert [r.path for r in tree.branch.state.records] == ["model_error", "tool_use"]
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
        "<- turn 1: edited: reply edited: stop_reason tool_use → end_turn, 0 tool calls, text changed (a note of "
        "the page's: run_agent printed nothing this turn)",
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
    assert (tree.branch.marks[1].kind, tree.branch.marks[1].words) == ("hand", "written by hand")


def test_a_fork_at_a_refused_turn_starts_from_the_turn_before_it():
    tree, _ = played_run("three_tool_chain")
    tree.fork(1)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "bad id", "name": "add", "input": {"a": 1, "b": 2}}])
    step(tree.branch.state, FakeModel(load_script("three_tool_chain"), calls=1))
    assert tree.branch.state.turn == 2 and tree.branch.state.records[-1].path == "bad_request"
    again = tree.fork(2)
    assert again.fork_turn == 1 and again.state.turn == 1 and not again.state.done
    assert [r.path for r in again.state.records] == ["tool_use"] and len(again.state.messages) == 3


# ------------------------------------------------------------ where the script goes on after faults, edits, hands


def stepped_run(name: str, turns: int, fault_at: int | None = None, fault: str = "") -> tuple[RunTree, FakeModel]:
    """A run of script `name` stepped through the tree `turns` times (or until it ends), `fault` injected at one."""
    script = load_script(name)
    tree = RunTree.start(RunState(script.task, system=script.system, tool_names=script.tools,
                                  max_turns=script.max_turns))
    fake = FakeModel(script)
    for turn in range(1, turns + 1):
        if not tree.branch.state.done:
            tree.step(fake, Fault(fault) if turn == fault_at else None)
    return tree, fake


def turn_lines(state: RunState, *turns: int) -> list[str]:
    return [line for line in console_lines(state) if any(line.startswith(f"turn {t}:") for t in turns)]


def test_the_issue_s_repro_a_fork_after_a_broken_tool_goes_on_with_the_next_reply_not_the_same_one_again():
    """Issue 16, point 2: tool raises at turn 5, fork after turn 5, step twice. Today's code plays reply 5
    again at turn 6, and turn 7's request is refused: messages.11.content.0: `tool_use` ids must be unique."""
    tree, _ = stepped_run("runaway", 7, fault_at=5, fault="tool_raises")
    clean, _ = stepped_run("runaway", 7)
    branch = tree.fork(5)
    model = FakeModel(load_script("runaway"), calls=branch.script_replies_used(5))
    tree.step(model)
    tree.step(model)
    assert not branch.state.done, branch.state.result
    assert turn_lines(branch.state, 6, 7) == turn_lines(clean.branch.state, 6, 7) == [
        'turn 6: add {"a": 6, "b": 1} -> 7', 'turn 7: add {"a": 7, "b": 1} -> 8']


@pytest.mark.parametrize("fault", ["tool_raises", "cut_off", "refusal", "overloaded", "timeout"])
def test_after_any_fault_a_fork_continues_the_script_at_the_reply_after_the_turn(fault):
    """tool raises, cut off and refusal use up the script's reply; a 529 or a timeout uses none (its retry does)."""
    tree, _ = stepped_run("runaway", 5, fault_at=5, fault=fault)
    if tree.branch.state.turn < 5:  # a timeout is a failed attempt: the next Step takes turn 5 again
        tree.step(FakeModel(load_script("runaway"), calls=4))
    branch = tree.fork(5)
    if branch.state.done:  # cut off or refused: the fork ends there too, until its turn 5 is a whole call again
        assert branch.state.result == f"stopped: {'max_tokens' if fault == 'cut_off' else 'refusal'}"
        tree.edit_reply("tool_use", [{"type": "tool_use", "id": "toolu_05", "name": "add", "input": {"a": 5, "b": 1}}])
    model = FakeModel(load_script("runaway"), calls=branch.script_replies_used(branch.state.turn))
    tree.step(model)
    tree.step(model)
    assert not branch.state.done, branch.state.result  # no reply played twice, so no duplicate tool_use ids
    assert turn_lines(branch.state, 6, 7) == ['turn 6: add {"a": 6, "b": 1} -> 7', 'turn 7: add {"a": 7, "b": 1} -> 8']


def test_a_cut_off_reply_edited_back_into_a_whole_call_is_not_played_again():
    tree, _ = stepped_run("three_tool_chain", 1, fault_at=1, fault="cut_off")
    assert tree.branch.state.result == "stopped: max_tokens"
    tree.fork(1)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 1.5, "b": 2}}])
    run_to_end(tree.branch.state, FakeModel(load_script("three_tool_chain"),
                                            calls=tree.branch.script_replies_used(1)))
    assert tree.branch.state.result == "THE SUM IS 3.5 has 4 words." and tree.branch.state.turn == 4


def run_with_a_scripted_529() -> tuple[RunTree, Script]:
    """Three tool calls and an answer, with the service's 529 before the second call: run to the end."""
    state, fake = fake_run(reply("tool_use", tool_use("toolu_01")),
                           {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
                           reply("tool_use", tool_use("toolu_02", tool_input={"a": 5, "b": 1})),
                           reply("tool_use", tool_use("toolu_03", tool_input={"a": 6, "b": 1})),
                           reply("end_turn", text("7.")))
    run_to_end(state, fake)
    assert [r.path for r in state.records] == ["tool_use", "model_error", "tool_use", "tool_use", "answer"]
    return RunTree.start(state), fake.script


def test_a_fork_after_a_turn_with_a_scripted_529_goes_on_with_the_reply_after_its_retry():
    tree, script = run_with_a_scripted_529()
    main = tree.branch.state
    branch = tree.fork(2)
    run_to_end(branch.state, FakeModel(script, calls=branch.script_replies_used(2)))
    assert console_lines(branch.state) == console_lines(main)  # toolu_03 once: no duplicate ids


def test_an_edit_of_a_turn_with_a_failed_attempt_keeps_the_attempt_and_the_script_s_place():
    tree, script = run_with_a_scripted_529()
    tree.fork(2)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "toolu_02", "name": "add", "input": {"a": 50, "b": 1}}])
    branch = tree.branch
    assert [r.path for r in branch.state.records] == ["tool_use", "model_error", "tool_use"]  # the 529 happened
    run_to_end(branch.state, FakeModel(script, calls=branch.script_replies_used(2)))
    assert console_lines(branch.state)[1:4] == [
        "turn 2: model error: 529 overloaded_error: Overloaded", 'turn 2: add {"a": 50, "b": 1} -> 51',
        'turn 3: add {"a": 6, "b": 1} -> 7']  # reply 4 of the script: not the 529 or reply 3 again
    assert branch.state.result == "7."


def test_a_reply_by_hand_after_a_scripted_529_leaves_the_script_after_the_529():
    tree, script = run_with_a_scripted_529()
    branch = tree.fork(1)
    model = FakeModel(script, calls=branch.script_replies_used(1))
    tree.step(model)  # the script's 529: a failed attempt at turn 2
    hand = HandModel()
    hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 40, "b": 2}}], ["add"])
    tree.step(hand)
    again = tree.fork(2)
    run_to_end(again.state, FakeModel(script, calls=again.script_replies_used(2)))
    assert turn_lines(again.state, 3, 4) == ['turn 3: add {"a": 5, "b": 1} -> 6',  # reply 3: the 529 is not replayed
                                             'turn 4: add {"a": 6, "b": 1} -> 7']
    assert again.state.result == "7."


def test_a_failed_hand_attempt_takes_no_reply_from_the_script_and_is_not_marked_as_written_by_hand():
    tree, _ = played_run("three_tool_chain")
    branch = tree.fork(1)
    hand = HandModel()
    tree.step(hand)  # sent before a reply was written: a failed attempt at turn 2
    hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 1, "b": 1}}], branch.state.tool_names)
    tree.step(hand)
    assert console_lines(branch.state, console_notes(branch), returned=False)[1:3] == [
        "turn 2: model error: you are the model: write its reply first, then send it",  # not said to be by hand
        'turn 2: add {"a": 1, "b": 1} -> 2   <- by hand']
    again = tree.fork(2)
    run_to_end(again.state, FakeModel(load_script("three_tool_chain"), calls=again.script_replies_used(2)))
    assert turn_lines(again.state, 3) == ['turn 3: upper {"text": "the sum is 3.5"} -> THE SUM IS 3.5']  # reply 2


def test_a_fault_on_the_turn_after_the_fork_leaves_no_mark_on_the_fork_s_own_next_turn():
    tree, _ = stepped_run("three_tool_chain", 2, fault_at=2, fault="tool_raises")
    branch = tree.fork(1)
    tree.step(FakeModel(load_script("three_tool_chain"), calls=branch.script_replies_used(1)))
    notes = {i: f"{m.kind}: {m.words}" for i, m in branch.marks.items()}
    assert console_lines(branch.state, notes)[1] == 'turn 2: upper {"text": "the sum is 3.5"} -> THE SUM IS 3.5'


def test_a_fork_at_a_turn_that_a_529_then_a_refusal_ended_starts_before_that_turn_and_can_be_edited():
    tree, _ = played_run("three_tool_chain")
    branch = tree.fork(1)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "bad id", "name": "add", "input": {"a": 1, "b": 2}}])
    script = load_script("three_tool_chain")
    tree.step(FakeModel(script, calls=1), Fault("overloaded"))  # turn 2: the 529, then the retry is refused
    assert [r.path for r in branch.state.records] == ["tool_use", "model_error", "bad_request"]
    again = tree.fork(2)
    assert again.fork_turn == 1 and not again.state.done and again.state.turn == 1
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 1, "b": 2}}])
    run_to_end(again.state, FakeModel(script, calls=again.script_replies_used(1)))
    assert again.state.result == "THE SUM IS 3.5 has 4 words."
    assert turn_lines(again.state, 1) == ['turn 1: add {"a": 1, "b": 2} -> 3']


def test_a_tool_result_can_be_changed_at_a_turn_the_turn_limit_ended():
    tree, _ = played_run("short_leash")
    assert tree.branch.state.records[-1].path == "limit"
    last = tree.branch.state.turn
    tree.fork(last)
    record = tree.edit_tool_result(0, "a hundred", False)
    assert record.tool_runs[0].content == "a hundred" and tree.branch.state.messages[-1]["content"][0][
        "content"] == "a hundred"


# ------------------------------------------------------------ tool ids made for a person never collide


def test_a_call_added_in_an_edit_takes_an_id_no_earlier_turn_has_and_the_next_request_is_accepted():
    """Issue 16, point 3: two turns written by hand (toolu_hand_0001, 0002), a fork after turn 2 and a call
    added there: today's code gives it toolu_hand_0001 again and the next request is refused."""
    tree, _ = played_run("add_then_answer")
    tree.fork(0)
    hand = HandModel()
    for _ in range(2):
        hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 1, "b": 1}}], ["add"])
        tree.step(hand)
    tree.fork(2)
    record = tree.edit_reply("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 2, "b": 2}}])
    assert record.reply["content"][0]["id"] == "toolu_hand_0002"  # free again: the edit replaced turn 2's call
    run_to_end(tree.branch.state, FakeModel(load_script("add_then_answer")))
    assert tree.branch.state.result == "2 + 3 is 5."  # the script's replies, every request accepted


def test_a_reply_by_hand_after_a_script_that_used_hand_ids_takes_new_ones():
    """A saved Be-the-model session replayed by the FakeModel holds toolu_hand_ ids; a new hand model must pass
    over them."""
    tree, _ = played_run("add_then_answer")
    tree.fork(0)
    first = HandModel()
    first.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 1, "b": 1}}], ["add"])
    tree.step(first)
    script = record_script(tree.branch.state)
    state = RunState(script.task, tool_names=script.tools)
    step(state, FakeModel(script))
    hand = HandModel()
    hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 2, "b": 2}}], ["add"],
              taken=tool_use_ids(state.messages))
    step(state, hand)
    hand.give("end_turn", [{"type": "text", "text": "Done."}], ["add"])
    step(state, hand)
    assert state.result == "Done." and [r.reply["content"][0]["id"] for r in state.records[:2]] == [
        "toolu_hand_0001", "toolu_hand_0002"]


def test_an_injected_529_takes_no_reply_even_when_its_retry_fails_and_the_turn_is_written_by_hand():
    tree, _ = stepped_run("overloaded_529", 1)
    script = load_script("overloaded_529")
    model = FakeModel(script, calls=1)
    tree.step(model, Fault("overloaded"))  # turn 2: the injected 529, then the retry meets the script's own 529
    hand = HandModel()
    hand.give("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 5, "b": 0}}], ["add", "word_count"])
    tree.step(hand)
    branch = tree.fork(2)
    run_to_end(branch.state, FakeModel(script, calls=branch.script_replies_used(2)))
    assert branch.state.result == "2 + 3 is 5."  # reply 3: the script has not run out


def test_a_fork_of_a_run_over_threads_goes_on_over_threads_and_says_when_it_falls_back():
    script = load_script("three_tool_chain")
    state = RunState(script.task, system=script.system, tool_names=script.tools, threads=True)
    fake = FakeModel(script)
    run_to_end(state, fake)
    tree = RunTree.start(state)
    branch = tree.fork(1)
    assert branch.state.threads
    model = FakeModel(script, calls=branch.script_replies_used(1))  # the branch's own: it holds no thread yet
    lost = step(branch.state, model)
    # The branch continues from turn 1's reply, which its model holds no thread for: the turn falls back, and says so.
    assert lost.thread == {"type": "create"} and lost.thread_lost.startswith("404 not_found_error: thread.")
    after = step(branch.state, model)
    assert after.thread["type"] == "continue" and after.thread_lost is None and after.messages_sent == 1
    assert console_lines(branch.state)[-1] == "messages sent each turn: 1, 3, 1"


def test_a_fork_of_a_run_on_a_short_leash_stops_at_the_same_turn_limit():
    tree, _ = played_run("short_leash")  # max_turns 3, not the usual 40
    branch = tree.fork(1)
    model = FakeModel(load_script("short_leash"), calls=branch.script_replies_used(1))
    run_to_end(branch.state, model)
    assert branch.state.result == "stopped: no answer after 3 turns" == tree.branches[MAIN].state.result
    assert len(model.requests) == 2  # turns 2 and 3, then the limit


def test_the_refusals_of_an_edit_are_said_in_full():
    tree, _ = played_run("add_then_answer")
    with pytest.raises(BranchError) as refused:
        tree.edit_reply("end_turn", [])
    assert str(refused.value) == "main is the run as it happened: fork it first, then edit the branch"
    tree.fork(1)
    with pytest.raises(BranchError) as refused:
        tree.switch("nope")
    assert str(refused.value) == "no branch 'nope' (the branches: main, branch 1)"
    for position, content in ((1, "6"), (-1, "6")):
        with pytest.raises(BranchError) as refused:
            tree.edit_tool_result(position, content, is_error=False)
        assert str(refused.value) == f"turn 1 has no tool call {position + 1} whose result could change"
    with pytest.raises(BranchError) as refused:
        tree.edit_tool_result(0, 6, is_error=False)
    assert str(refused.value) == "a tool result's content here is text"
    run_to_end(tree.branch.state, FakeModel(load_script("add_then_answer"), calls=1))
    with pytest.raises(BranchError) as refused:
        tree.edit_tool_result(0, "6", is_error=False)
    assert str(refused.value) == ("branch 1 has stepped on since the fork: only the fork's own turn can be edited, "
                                  "so fork again")
    tree.switch(MAIN)
    tree.fork(0)
    with pytest.raises(BranchError) as refused:
        tree.edit_reply("end_turn", [])
    assert str(refused.value) == "a fork before the first turn has no reply to edit: step it, or be the model"


def test_each_edit_is_marked_in_words_and_a_second_adds_to_the_first():
    tree, _ = played_run("add_then_answer")
    branch = tree.fork(1)
    tree.edit_tool_result(0, "35", is_error=True)
    assert (branch.marks[0].kind, branch.marks[0].words, branch.marks[0].fault) == \
        ("edited", "result of add edited (an error)", "")
    tree.edit_tool_result(0, "5", is_error=False)
    assert branch.marks[0].words == "result of add edited (an error); result of add edited"


def test_a_reply_edit_says_what_it_changed():
    tree, _ = played_run("two_calls_one_reply")
    tree.fork(1)
    reply = tree.branch.state.messages[1]["content"]
    first_call = next(i for i, b in enumerate(reply) if b["type"] == "tool_use")
    tree.edit_reply("tool_use", reply[:first_call + 1])
    assert tree.branch.marks[0].words == "reply edited: 1 tool call"
    tree, _ = played_run("add_then_answer")
    tree.fork(1)
    with pytest.raises(BranchError, match="there is nothing to apply"):  # an Apply that changes nothing is no edit
        tree.edit_reply("tool_use", tree.branch.state.messages[1]["content"])
    assert not tree.branch.marks and tree.branch.shared == 1
    tree.switch(MAIN)
    tree.fork(1)
    tree.edit_reply("tool_use", [dict(b, input={"a": "two", "b": 3}) if b["type"] == "tool_use" else b
                                 for b in tree.branch.state.messages[1]["content"]])
    assert tree.branch.marks[0].words == "reply edited: tool calls changed"  # an input the tool refuses is kept
    assert tree.branch.state.records[0].tool_runs[0].is_error


def test_a_record_of_another_branch_cannot_be_marked():
    tree, _ = played_run("add_then_answer")
    foreign = tree.branches[MAIN].state.records[0]
    tree.fork(1)
    with pytest.raises(BranchError) as refused:
        tree.branch.mark(foreign, "edited", "x")
    assert str(refused.value) == "turn 1's record is not one of branch 1's"


def test_a_fork_keeps_the_runs_system_prompt_tools_and_max_tokens_and_takes_a_free_name():
    script = load_script("add_then_answer")
    state = RunState(script.task, system="Be brief.", tool_names=["add", "upper"], max_tokens=300)
    run_to_end(state, FakeModel(script))
    tree = RunTree.start(state)
    fork = tree.fork(1).state
    assert (fork.system, fork.tool_names, fork.max_tokens) == ("Be brief.", ["add", "upper"], 300)
    data = tree.to_dict()
    data["branches"][1]["name"] = "branch 2"  # a tree whose only branch is called "branch 2"
    renamed = RunTree.from_dict(data)
    renamed.switch(MAIN)
    assert renamed.fork(1).name == "branch 2'"


def test_where_a_script_goes_on_is_read_from_the_records_facts_not_from_the_replys_id():
    tree, _ = played_run("overloaded_529")
    for record in tree.branch.state.records:  # ids are the model's to choose: the number is on the record
        if record.reply is not None:
            record.reply["id"] = "msg_other"
    assert [(r.script_reply, r.status) for r in tree.branch.state.records] == [(1, None), (None, 529), (3, None)]
    assert [tree.branch.script_replies_used(turn) for turn in (1, 2)] == [1, 3]  # the 529 was an attempt at turn 2


def test_a_tree_written_without_its_optional_fields_reads_back_with_their_defaults():
    tree, _ = played_run("add_then_answer")
    assert tree.to_json().startswith('{\n  "current": "main",\n  "branches": [\n    {')
    bare = {"branches": [{"name": MAIN, "state": tree.branches[MAIN].state.to_dict()}]}
    read = RunTree.from_dict(bare)
    main = read.branches[MAIN]
    assert (read.current, main.parent, main.fork_turn, main.shared, main.marks) == (MAIN, None, 0, 0, {})


def test_a_turn_where_the_script_had_no_reply_left_can_be_given_one():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")))
    run_to_end(state, model)
    assert [r.path for r in state.records] == ["tool_use", "no_reply"]
    tree = RunTree.start(state)
    tree.fork(2)
    tree.edit_reply("end_turn", [{"type": "text", "text": "5"}])
    assert tree.branch.state.result == "5"
    assert tree.branch.marks[1].words == "reply edited: a reply where none came (end_turn)"
