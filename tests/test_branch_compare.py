"""Two branches compared: their messages side by side from where they part, the first difference marked, and
what differs, as data (a few tests hold the words the page shows)."""

import pytest

from agent.branch_compare import Change, Comparison, compare
from agent.branches import MAIN, BranchError, RunTree
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.models.faults import Fault
from agent.scripts import load_script


def forked(name: str, turn: int) -> tuple[RunTree, FakeModel]:
    """The script run to its end on main, then a branch forked after `turn`, with a model that plays on."""
    script = load_script(name)
    state = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    tree = RunTree.start(state)
    branch = tree.fork(turn)
    return tree, FakeModel(script, calls=branch.script_replies_used(turn))


def changes(seen: Comparison) -> list[tuple]:
    """Each difference as (what changed, the message, the left side, the right side)."""
    return [(d.change, d.index, d.left, d.right) for d in seen.differences]


def words(seen: Comparison) -> list[str]:
    return [d.words for d in seen.differences]


def test_a_result_edited_at_the_fork_is_the_first_difference_and_said_in_words():
    tree, model = forked("add_then_answer", 1)
    tree.edit_tool_result(0, "35", is_error=False)
    run_to_end(tree.branch.state, model)
    seen = compare(tree, MAIN, "branch 1")
    assert seen.shared == 2 and seen.first_difference == 2  # the task and the reply alike; the results differ
    assert seen.rows[0][1]["content"][0]["content"] == "5" and seen.rows[0][2]["content"][0]["content"] == "35"
    assert changes(seen) == [(Change.RESULT, 2, "5", "35")] and seen.differences[0].number == 1
    assert words(seen) == ["messages[2]: tool result 1 changed: 5 in main, 35 in branch 1"]  # the words shown


def test_a_result_marked_is_error_is_named_as_such():
    tree, model = forked("add_then_answer", 1)
    tree.edit_tool_result(0, "add broke", is_error=True)
    seen = compare(tree, "branch 1", MAIN)
    assert changes(seen)[0] == (Change.IS_ERROR, 2, True, False)
    assert words(seen)[0] == "messages[2]: tool result 1 is marked is_error in branch 1, not in main"


def test_a_tool_input_changed_in_an_edited_reply():
    tree, model = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [dict(b, input={"a": 2, "b": 30}) if b["type"] == "tool_use" else b for b in reply])
    seen = compare(tree, MAIN, "branch 1")
    assert seen.first_difference == 1
    assert (Change.TOOL_INPUT, 1, {"a": 2, "b": 3}, {"a": 2, "b": 30}) in changes(seen)


def test_a_reply_that_stopped_instead_of_calling_a_tool():
    tree, model = forked("three_tool_chain", 1)
    tree.step(model, Fault("cut_off"))
    seen = compare(tree, MAIN, "branch 1")
    assert seen.first_difference == 3
    assert changes(seen) == [(Change.STOPPED_INSTEAD, 3, "tool_use", "max_tokens"), (Change.ONLY_ONE_HAS, 4, 8, 4),
                             (Change.ENDING, None, "THE SUM IS 3.5 has 4 words.", "stopped: max_tokens")]
    assert words(seen) == [  # the words shown
        "messages[3]: the reply in branch 1 stopped (max_tokens) where the one in main called a tool",
        "messages[4]–[7]: only main has them; branch 1: its run ended before them",
        "main answered “THE SUM IS 3.5 has 4 words.”; branch 1 ended stopped: max_tokens"]
    assert [index for index, *_ in seen.rows] == list(range(3, 8))
    assert all(theirs is None for _, _, theirs in seen.rows[1:])  # the branch ended at the cut-off reply


def test_two_branches_alike_have_no_difference_and_a_branch_is_alike_with_itself():
    tree, model = forked("three_tool_chain", 2)
    run_to_end(tree.branch.state, model)
    tree.switch(MAIN)
    tree.fork(1)
    for left, right in ((MAIN, "branch 1"), ("branch 1", "branch 1")):
        seen = compare(tree, left, right)
        assert seen.rows == [] and seen.differences == [] and seen.first_difference is None
    unfinished = compare(tree, MAIN, "branch 2")
    assert unfinished.first_difference == 3 and changes(unfinished) == [
        (Change.ONLY_ONE_HAS, 3, 8, 3), (Change.ENDING, None, "THE SUM IS 3.5 has 4 words.", None)]
    assert words(unfinished) == [  # the words shown
        "messages[3]–[7]: only main has them; branch 2: it has not got that far (turn 1)",
        "main answered “THE SUM IS 3.5 has 4 words.”; branch 2 is still going on after turn 1"]


def test_an_unknown_branch_is_refused_in_words():
    tree, _ = forked("add_then_answer", 1)
    with pytest.raises(BranchError, match=r"no branch 'branch 9' \(the branches: main, branch 1\)"):
        compare(tree, MAIN, "branch 9")


def test_text_added_beside_the_same_call_is_the_only_change_said_of_that_reply():
    tree, _ = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [{"type": "text", "text": "Adding them."}, *reply])
    assert changes(compare(tree, MAIN, "branch 1"))[0] == (Change.TEXT, 1, "", "Adding them.")  # and no TOOL_*


def test_a_call_added_in_an_edit_is_counted_in_words():
    tree, _ = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [*reply, {"type": "tool_use", "name": "add", "input": {"a": 1, "b": 1}}])
    assert changes(compare(tree, "branch 1", MAIN))[0] == (Change.TOOL_CALLS, 1, 2, 1)
    assert words(compare(tree, MAIN, "branch 1"))[0] == "messages[1]: 1 tool call in main, 2 in branch 1"
    assert tree.branch.marks[0].words == "reply edited: 2 tool calls"


def test_two_error_results_differ_only_in_their_words():
    tree, _ = forked("add_then_answer", 1)
    tree.edit_tool_result(0, "add broke", is_error=True)
    tree.switch(MAIN)
    tree.fork(1)
    tree.edit_tool_result(0, "add failed", is_error=True)
    assert changes(compare(tree, "branch 1", "branch 2")) == [(Change.RESULT, 2, "add broke", "add failed")]


def test_text_in_two_blocks_is_read_as_one_and_long_text_is_shortened():
    tree, _ = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [{"type": "text", "text": "Adding "}, {"type": "text", "text": "them. " * 10}, *reply])
    shortened = "Adding them. them. them. them. them. them. them…"  # 47 characters and the ellipsis: 48 in all
    assert words(compare(tree, MAIN, "branch 1"))[0] == \
        f"messages[1]: the reply's text changed: “” in main, “{shortened}” in branch 1"


def test_a_call_dropped_in_an_edit_is_said_as_one_result_fewer_not_as_bookkeeping():
    tree, model = forked("two_calls_one_reply", 1)
    reply = tree.branch.state.messages[1]["content"]
    first_call = next(i for i, b in enumerate(reply) if b["type"] == "tool_use")
    tree.edit_reply("tool_use", reply[:first_call + 1])
    seen = compare(tree, MAIN, "branch 1")
    assert changes(seen)[:2] == [(Change.TOOL_CALLS, 1, 2, 1), (Change.TOOL_RESULTS, 2, 2, 1)]  # not IDS_ONLY


def test_the_same_differences_read_the_other_way_round_name_each_branch_for_its_own_side():
    tree, model = forked("three_tool_chain", 1)
    tree.step(model, Fault("cut_off"))
    seen = compare(tree, "branch 1", MAIN)
    assert (seen.left, seen.right, seen.first_difference) == ("branch 1", MAIN, 3)
    assert changes(seen) == [(Change.STOPPED_INSTEAD, 3, "max_tokens", "tool_use"), (Change.ONLY_ONE_HAS, 4, 4, 8),
                             (Change.ENDING, None, "stopped: max_tokens", "THE SUM IS 3.5 has 4 words.")]
    assert words(seen)[0] == \
        "messages[3]: the reply in branch 1 stopped (max_tokens) where the one in main called a tool"


def test_one_message_more_is_said_as_one():
    tree, _ = forked("add_then_answer", 1)
    tree.edit_tool_result(0, "5", is_error=True)  # the same words, marked an error: only the mark differs
    seen = compare(tree, MAIN, "branch 1")
    assert changes(seen) == [(Change.IS_ERROR, 2, False, True), (Change.ONLY_ONE_HAS, 3, 4, 3),
                             (Change.ENDING, None, "2 + 3 is 5.", None)]
    assert words(seen)[1] == "messages[3]: only main has it; branch 1: it has not got that far (turn 1)"


def test_a_branch_ended_by_a_refused_request_says_the_refusal():
    tree, model = forked("three_tool_chain", 1)
    tree.edit_reply("tool_use", [{"type": "tool_use", "id": "bad id!", "name": "add", "input": {"a": 1, "b": 2}}])
    run_to_end(tree.branch.state, model)
    ending = compare(tree, MAIN, "branch 1").differences[-1]
    assert (ending.change, ending.right) == (Change.ENDING, tree.branch.state.result)
    assert tree.branch.state.result.startswith("bad request: messages.1.content.0.tool_use.id")
    assert ending.words == f"main answered “THE SUM IS 3.5 has 4 words.”; branch 1 ended {tree.branch.state.result}"


def test_an_input_is_shown_as_json_with_its_keys_in_order_and_its_letters_as_they_are():
    tree, _ = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [dict(b, input={"b": 30, "a": 2}) if b["type"] == "tool_use" else b for b in reply])
    said = words(compare(tree, MAIN, "branch 1"))[0]
    assert 'changed: {"a": 2, "b": 3} in main, {"a": 2, "b": 30} in branch 1' in said
    tree, _ = forked("three_tool_chain", 2)
    reply = tree.branch.state.messages[3]["content"]
    tree.edit_reply("tool_use", [dict(b, input={"text": "la somme: 3,5 €"}) if b["type"] == "tool_use" else b
                                 for b in reply])
    assert '{"text": "the sum is 3.5"} in main, {"text": "la somme: 3,5 €"} in branch 1' \
        in words(compare(tree, MAIN, "branch 1"))[0]


def test_text_of_exactly_the_limit_is_shown_whole():
    tree, _ = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    whole = "Adding the two numbers given, two and three now."
    assert len(whole) == 48
    tree.edit_reply("tool_use", [{"type": "text", "text": whole}, *reply])
    assert f"“{whole}” in branch 1" in words(compare(tree, MAIN, "branch 1"))[0]


def test_two_stop_reasons_neither_a_tool_call_are_both_named():
    tree, model = forked("add_then_answer", 1)
    tree.step(model, Fault("cut_off"))
    assert changes(compare(tree, MAIN, "branch 1"))[0] == (Change.STOP_REASON, 3, "end_turn", "max_tokens")


def test_a_call_to_another_tool_is_named_by_its_number():
    tree, _ = forked("three_tool_chain", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [dict(b, name="upper", input={"text": "3.5"}) if b["type"] == "tool_use" else b
                                 for b in reply])
    first = compare(tree, MAIN, "branch 1").differences[0]
    assert (first.change, first.index, first.left, first.right, first.number) == \
        (Change.TOOL_NAME, 1, "add", "upper", 1)


def test_an_answer_that_also_calls_a_tool_is_told_apart_from_one_that_does_not():
    tree, _ = forked("add_then_answer", 2)
    tree.edit_reply("end_turn", [{"type": "text", "text": "2 + 3 is 5."},
                                 {"type": "tool_use", "name": "add", "input": {"a": 1, "b": 1}}])
    assert changes(compare(tree, MAIN, "branch 1")) == [(Change.CALLS_NO_TOOL, 3, 0, 1)]
    assert changes(compare(tree, "branch 1", MAIN)) == [(Change.CALLS_NO_TOOL, 3, 1, 0)]
    assert words(compare(tree, "branch 1", MAIN)) == words(compare(tree, MAIN, "branch 1")) == [
        "messages[3]: the reply in main calls no tool where the one in branch 1 does"]


def test_one_result_fewer_read_from_the_branch_with_one():
    tree, _ = forked("two_calls_one_reply", 1)
    reply = tree.branch.state.messages[1]["content"]
    first_call = next(i for i, b in enumerate(reply) if b["type"] == "tool_use")
    tree.edit_reply("tool_use", reply[:first_call + 1])
    assert (Change.TOOL_RESULTS, 2, 1, 2) in changes(compare(tree, "branch 1", MAIN))


def test_replies_alike_but_for_their_ids_or_their_blocks_order_are_said_so():
    tree, model = forked("add_then_answer", 1)
    reply = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [dict(b, id="toolu_other") if b["type"] == "tool_use" else b for b in reply])
    run_to_end(tree.branch.state, model)
    assert changes(compare(tree, MAIN, "branch 1")) == [(Change.IDS_ONLY, 1, None, None),
                                                        (Change.IDS_ONLY, 2, None, None)]
    tree, _ = forked("two_file_search", 1)
    thinking, words, call = tree.branch.state.messages[1]["content"]
    tree.edit_reply("tool_use", [thinking, call, words])
    assert changes(compare(tree, MAIN, "branch 1"))[0] == (Change.UNNAMED, 1, None, None)
