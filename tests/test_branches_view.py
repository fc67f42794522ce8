"""The page's helpers for Change the past, without streamlit: the branch map, the marks, the forms."""

import pytest

from agent.branches import RunTree
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.models.faults import Fault
from agent.page.branches_view import (
    blocks_from_text,
    blocks_text,
    branch_caption,
    branch_map,
    form_blocks,
    input_example,
    mark_run_graph,
    no_reply_note,
    stop_reason_choices,
)
from agent.page.graph import run_graph
from agent.scripts import load_script
from agent.tools import TOOLS


def runaway_tree() -> RunTree:
    script = load_script("runaway")
    state = RunState(script.task, tool_names=script.tools, max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return RunTree.start(state)


def test_the_branch_map_draws_each_branch_and_where_it_left():
    tree = runaway_tree()
    tree.fork(12)
    dot = branch_map(tree).source
    assert "main\\n40 turns · stopped: no answer after 40 turns" in dot
    assert 'b0 -> b1 [label="after turn 12"]' in dot and "branch 1\\n12 turns · going on" in dot
    assert branch_caption(tree, "branch 1") == "branch 1: from main after turn 12 · 12 turns, going on"


def test_marks_touch_only_nodes_the_folded_graph_has():
    tree = runaway_tree()
    tree.fork(30)
    tree.step(FakeModel(load_script("runaway"), calls=30), Fault("tool_raises", "add"))
    shown = tree.branch.state
    dot = mark_run_graph(run_graph(shown, 8), tree.branch, shown).source
    assert "ask3 " not in dot and "\task3 [" not in dot  # folded into "turns 1–23": no orphan node appears
    assert 'fork -> ask31' in dot and "branch 1 leaves main" in dot
    assert 'call31_1 [color="#e8590c"' in dot and 'xlabel=injected' in dot
    assert 'ask30 [fillcolor="#f1f3f5"' in dot  # shared with main


def test_the_edit_box_round_trips_a_reply_and_says_what_is_wrong_with_bad_json():
    reply = {"content": [{"type": "text", "text": "Hi"}, {"type": "tool_use", "id": "t1", "name": "add",
                                                          "input": {"a": 1, "b": 2}}]}
    assert blocks_from_text(blocks_text(reply)) == reply["content"]
    with pytest.raises(ValueError, match="not JSON"):
        blocks_from_text("[{")
    with pytest.raises(ValueError, match="a JSON list of objects"):
        blocks_from_text('{"type": "text"}')


def test_the_hand_form_becomes_blocks_in_order():
    assert form_blocks("plan", "Adding.", [("add", '{"a": 1, "b": 2}')]) == [
        {"type": "thinking", "thinking": "plan"}, {"type": "text", "text": "Adding."},
        {"type": "tool_use", "name": "add", "input": {"a": 1, "b": 2}}]
    assert form_blocks(" ", "", [("list_files", "")]) == [{"type": "tool_use", "name": "list_files", "input": {}}]
    with pytest.raises(ValueError, match="tool call 1: its input is a JSON object"):
        form_blocks("", "", [("add", "[1, 2]")])
    assert input_example(TOOLS["add"].input_schema) == '{"a": 1, "b": 1}'


@pytest.mark.parametrize("edit", ["result", "reply"])
def test_the_picker_the_map_and_the_run_graph_say_where_an_edited_branch_leaves_in_the_same_words(edit):
    script = load_script("three_tool_chain")
    state = RunState(script.task, tool_names=script.tools)
    run_to_end(state, FakeModel(script))
    tree = RunTree.start(state)
    tree.fork(2)
    assert branch_caption(tree, "branch 1") == "branch 1: from main after turn 2 · 2 turns, going on"
    if edit == "result":
        tree.edit_tool_result(0, "THE SUM IS 35", False)
    else:
        tree.edit_reply("tool_use", [{"type": "tool_use", "id": "toolu_02", "name": "upper", "input": {"text": "hi"}}])
    said = "after turn 2, turn 2 edited"  # forked after turn 2; turn 2 is the branch's own
    assert branch_caption(tree, "branch 1") == f"branch 1: from main {said} · 2 turns, going on"
    assert f'b0 -> b1 [label="{said}"]' in branch_map(tree).source
    shown = tree.branch.state
    assert f"fork: branch 1 leaves main\\n{said}" in mark_run_graph(run_graph(shown), tree.branch, shown).source


def test_the_edit_form_of_a_turn_that_got_no_reply_says_so_and_starts_at_end_turn():
    script = load_script("short_leash")
    state = RunState(script.task, tool_names=script.tools, max_turns=6)
    run_to_end(state, FakeModel(script))
    answered, unanswered = state.records[-2], state.records[-1]
    assert unanswered.path == "no_reply" and unanswered.reply is None
    assert no_reply_note(answered) is None
    assert no_reply_note(unanswered).startswith("Turn 6 got no reply: the model had no reply to give.")
    known = ("end_turn", "tool_use")
    assert stop_reason_choices(unanswered.reply, known) == (["end_turn", "tool_use"], "end_turn")
    assert stop_reason_choices(answered.reply, known) == (["end_turn", "tool_use"], "tool_use")
    assert stop_reason_choices({"stop_reason": "odd"}, known) == (["end_turn", "tool_use", "odd"], "odd")
    assert stop_reason_choices({"content": []}, known) == (["end_turn", "tool_use"], "end_turn")  # names none
    assert blocks_from_text(blocks_text(unanswered.reply)) == []
