"""Change the past on the page (AppTest): fork at a turn, edit it, inject faults, be the model."""

import json

import pytest
from page_support import (
    REFERENCE_CONSOLE,
    click,
    console,
    full_page,
    look_back,
    page_text,
    pick_script,
    run,
    run_graph_dot,
    screen,
    status,
    texts,
    turn_looked_at,
)
from streamlit.testing.v1 import AppTest

from agent.branch_compare import Change, compare
from agent.branches import MAIN, MarkKind
from agent.loop import RunState, step
from agent.models.fake import FakeModel
from agent.page import view
from agent.page.branches_view import console_notes
from agent.real import script_json
from agent.scripts import parse_script_text
from agent.summary import console_lines


@pytest.fixture
def at(monkeypatch) -> AppTest:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(full_page(30))


def open_panel(at: AppTest, tab: str = "Fork and edit") -> AppTest:
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = tab
    return run(at)


def test_closed_the_panel_adds_nothing_but_its_header(at):
    click(at, "Step")
    assert not [b for b in at.button if b.key in ("fork", "fault_step", "hand_send")]
    assert "Change the past" in at.get("expander")[0].proto.label


def test_fork_at_a_turn_and_step_on_sends_only_the_turns_after_it(at):
    pick_script(at, "three_tool_chain")
    click(at, "Run to end")
    main_console = console(at)
    look_back(at, 2)
    open_panel(at)
    click(at, "Fork here, after turn 2")
    tree, fake = at.session_state["sandbox"].tree, at.session_state["sandbox"].script_model()
    assert tree.current == "branch 1" and at.session_state["sandbox"].run is tree.branch.state
    assert at.session_state["sandbox"].run.turn == 2 and fake.calls == 2 and fake.requests == []
    assert "Forked branch 1 from main after turn 2" in page_text(at)
    dot = run_graph_dot(at)
    assert "branch 1 leaves main" in dot and "fork -> ask3" in dot
    click(at, "Run to end")
    assert console(at) == main_console and len(fake.requests) == 2  # turns 3 and 4 only
    exported = parse_script_text(script_json(at.session_state["sandbox"].run), name="branch")  # the branch's download
    assert exported.expected_output == main_console
    replayed = RunState(exported.task, system=exported.system, tool_names=exported.tools)
    model = FakeModel(exported)
    while not replayed.done:
        step(replayed, model)
    assert console_lines(replayed) == main_console
    assert at.selectbox(key="branch_pick").value == "branch 1"
    run(at.selectbox(key="branch_pick").set_value("main"))
    assert at.session_state["sandbox"].run is tree.branches["main"].state and tree.current == "main"


def test_an_edited_reply_that_breaks_a_rule_is_refused_in_the_api_s_words(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    area = next(a for a in at.text_area if a.key and a.key.startswith("edit_blocks_"))
    area.set_value(json.dumps([{"type": "tool_use", "id": "bad id", "name": "add", "input": {"a": 1, "b": 1}}]))
    click(at, "Apply this reply")
    assert console(at)[0].startswith('turn 1: add {"a": 1, "b": 1} -> 2   <- edited')
    click(at, "Step")
    result = at.session_state["sandbox"].run.result
    assert result == "bad request: messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    assert result.removeprefix("bad request: ") in page_text(at)


def test_an_edit_that_is_not_json_says_so_and_changes_nothing(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    before = at.session_state["sandbox"].run.to_json()
    next(a for a in at.text_area if a.key and a.key.startswith("edit_blocks_")).set_value("[{oops")
    click(at, "Apply this reply")
    assert "the blocks are not JSON" in page_text(at) and at.session_state["sandbox"].run.to_json() == before
    panel = next(box for box in at.expander if box.label.startswith("Change the past"))
    assert "the blocks are not JSON" in texts(panel.error)  # beside the form, in the panel
    assert next(a for a in at.text_area if a.key.startswith("edit_blocks_")).value == "[{oops"  # the text is kept
    next(a for a in at.text_area if a.key.startswith("edit_blocks_")).set_value("[]").run()
    assert "the blocks are not JSON" not in page_text(at)  # put right: the words no longer stand beside it


def test_a_tool_result_edited_at_the_fork_is_what_the_next_request_carries(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    next(t for t in at.text_area if t.key and t.key.startswith("edit_result_")).set_value("six")
    click(at, "Change it")
    assert at.session_state["sandbox"].run.messages[2]["content"][0]["content"] == "six"
    click(at, "Step")
    assert at.session_state["sandbox"].run.result == "2 + 3 is 5."


@pytest.mark.parametrize(("kind", "said"), [
    ("overloaded", "turn 1: model error: 529 overloaded_error: Overloaded   <- injected"),
    ("timeout", "turn 1: model error: APITimeoutError: Request timed out"),
    ("tool_raises", 'turn 1: add {"a": 2, "b": 3} -> error: add broke down (an injected fault)   <- injected'),
    ("cut_off", "<- turn 1: injected: the reply is cut off by max_tokens"),
    ("refusal", "<- turn 1: injected: the model refuses"),
])
def test_each_fault_steps_the_run_and_is_marked_as_injected(at, kind, said):
    open_panel(at, "Inject a fault")
    run(at.selectbox(key="fault_kind").set_value(kind))
    click(at, "Step with this fault")
    assert console(at)[0].startswith(said)
    assert 'xlabel=injected' in run_graph_dot(at)


def test_be_the_model_then_save_the_session_as_a_script_that_replays(at):
    open_panel(at, "Be the model")
    run(at.selectbox(key="hand_stop").set_value("tool_use"))
    run(at.number_input(key="hand_calls").set_value(1))
    at.text_input(key="hand_input_1").set_value('{"a": 20, "b": 22}')
    click(at, "Send this reply")
    assert console(at)[0] == 'turn 1: add {"a": 20, "b": 22} -> 42   <- by hand'
    run(at.selectbox(key="hand_stop").set_value("end_turn"))
    run(at.number_input(key="hand_calls").set_value(0))
    at.text_area(key="hand_text").set_value("It is 42.")
    click(at, "Send this reply")
    state = at.session_state["sandbox"].run
    assert state.result == "It is 42." and state.records[0].reply["content"][0]["id"] == "toolu_hand_0001"
    script = parse_script_text(script_json(state), name="mine")
    again = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    fake = FakeModel(script)
    while not again.done:
        step(again, fake)
    assert console_lines(again) == script.expected_output == console_lines(state)


def test_a_hand_reply_with_bad_input_is_refused_in_words_and_nothing_is_sent(at):
    open_panel(at, "Be the model")
    run(at.selectbox(key="hand_stop").set_value("tool_use"))
    run(at.number_input(key="hand_calls").set_value(1))
    at.text_input(key="hand_input_1").set_value('{"a": "two", "b": 3}')
    click(at, "Send this reply")
    assert 'add needs "a" to be a number, got "two"' in page_text(at)
    assert at.session_state["sandbox"].run.records == []


def test_reset_after_a_fork_starts_a_new_tree(at):
    click(at, "Run to end")
    open_panel(at)
    click(at, "Fork here, after turn 2")
    click(at, "Reset")
    assert at.session_state["sandbox"].tree.current == "main" and len(at.session_state["sandbox"].tree.branches) == 1
    click(at, "Run to end")
    assert console(at) == REFERENCE_CONSOLE


# ------------------------------------------------------------ the branch on screen is the branch acted on


def fork_at(at: AppTest, turn: int) -> AppTest:
    look_back(at, turn)
    return click(at, f"Fork here, after turn {turn}")


def on_screen(at: AppTest) -> tuple[str, str]:
    """The branch the picker shows and the one whose run is on screen: always one and the same."""
    tree = at.session_state["sandbox"].tree
    assert at.session_state["sandbox"].run is tree.branch.state  # the console, graph and status line draw this run
    picked = at.selectbox(key="branch_pick").value if len(tree.branches) > 1 else "main"
    return picked, tree.current


def agrees_with_the_tree(at: AppTest) -> None:
    """The status line and the console say what the current branch of the tree holds."""
    tree = at.session_state["sandbox"].tree
    picked, current = on_screen(at)
    assert picked == current
    state = tree.branch.state
    taken = sum(r.counted and r.reply is not None for r in state.records)  # a request with no reply took no turn
    assert status(at).startswith(f"turn {taken} of {state.max_turns} · ")
    notes = console_notes(tree.branch) if tree.branch.marks else None
    assert console(at) == console_lines(state, returned=False, notes=notes)
    assert "had its value set via the Session State API" not in page_text(at)


def test_after_a_second_fork_step_steps_the_branch_on_screen(at):
    """Issue 16, point 1 (its Chromium twin in tests/test_browser_change.py sees the picker itself)."""
    pick_script(at, "three_tool_chain")
    click(at, "Run to end")
    open_panel(at)
    fork_at(at, 3)
    fork_at(at, 1)
    assert on_screen(at) == ("branch 2", "branch 2") and status(at).startswith("turn 1 of 40")
    click(at, "Step")
    agrees_with_the_tree(at)
    assert on_screen(at) == ("branch 2", "branch 2") and status(at).startswith("turn 2 of 40")
    assert console(at)[1] == 'turn 2: upper {"text": "the sum is 3.5"} -> THE SUM IS 3.5'
    assert at.session_state["sandbox"].tree.branches["branch 1"].state.turn == 3  # left as it was


def test_main_picked_then_a_fork_and_a_result_changed_stays_on_the_new_branch_with_the_change(at):
    pick_script(at, "three_tool_chain")
    click(at, "Run to end")
    open_panel(at)
    fork_at(at, 3)
    run(at.selectbox(key="branch_pick").set_value("main"))
    assert on_screen(at) == ("main", "main") and status(at).startswith("turn 4 of 40")
    fork_at(at, 1)
    next(t for t in at.text_area if t.key and t.key.startswith("edit_result_")).set_value("35")
    click(at, "Change it")
    agrees_with_the_tree(at)
    assert on_screen(at) == ("branch 2", "branch 2")
    assert console(at)[0].startswith('turn 1: add {"a": 1.5, "b": 2} -> 35')
    click(at, "Step")
    agrees_with_the_tree(at)
    assert on_screen(at) == ("branch 2", "branch 2") and status(at).startswith("turn 2 of 40")
    assert at.session_state["sandbox"].run.messages[2]["content"][0]["content"] == "35"


def test_switch_branch_then_step_steps_the_branch_picked(at):
    pick_script(at, "three_tool_chain")
    click(at, "Step")
    click(at, "Step")
    open_panel(at)
    fork_at(at, 1)
    run(at.selectbox(key="branch_pick").set_value("main"))
    click(at, "Step")
    agrees_with_the_tree(at)
    tree = at.session_state["sandbox"].tree
    assert on_screen(at) == ("main", "main") and tree.branches["main"].state.turn == 3
    assert tree.branches["branch 1"].state.turn == 1
    run(at.selectbox(key="branch_pick").set_value("branch 1"))
    click(at, "Step")
    agrees_with_the_tree(at)
    assert on_screen(at) == ("branch 1", "branch 1") and tree.branches["branch 1"].state.turn == 2
    assert tree.branches["main"].state.turn == 3


def test_fork_after_fork_each_steps_on_from_its_own_turn_and_finishes_like_main(at):
    pick_script(at, "three_tool_chain")
    click(at, "Run to end")
    main_console = console(at)
    open_panel(at)
    fork_at(at, 2)
    fork_at(at, 1)
    click(at, "Run to end")
    agrees_with_the_tree(at)
    assert console(at) == main_console
    run(at.selectbox(key="branch_pick").set_value("branch 1"))
    click(at, "Run to end")
    agrees_with_the_tree(at)
    assert console(at) == main_console and at.session_state["sandbox"].tree.branch.name == "branch 1"


# ------------------------------------------------------------ the script goes on at the right reply


def test_the_issue_s_repro_a_fork_after_an_injected_broken_tool_is_not_refused_for_duplicate_ids(at):
    """Issue 16, point 2: a fork after turn 5, whose tool was broken on purpose, played reply 5 again; the next
    request was refused: messages.11.content.0: `tool_use` ids must be unique."""
    pick_script(at, "runaway")
    for _ in range(4):
        click(at, "Step")
    open_panel(at, "Inject a fault")
    run(at.selectbox(key="fault_kind").set_value("tool_raises"))
    click(at, "Step with this fault")
    click(at, "Step")
    click(at, "Step")
    at.session_state["past_tab"] = "Fork and edit"
    fork_at(run(at), 5)
    click(at, "Step")
    click(at, "Step")
    agrees_with_the_tree(at)
    assert at.session_state["sandbox"].run.result is None and not at.error
    assert console(at)[5:7] == ['turn 6: add {"a": 6, "b": 1} -> 7', 'turn 7: add {"a": 7, "b": 1} -> 8']


@pytest.mark.parametrize("kind", ["cut_off", "refusal"])
def test_a_cut_or_refused_reply_edited_back_into_a_whole_call_is_not_played_again(at, kind):
    pick_script(at, "three_tool_chain")
    open_panel(at, "Inject a fault")
    run(at.selectbox(key="fault_kind").set_value(kind))
    click(at, "Step with this fault")
    at.session_state["past_tab"] = "Fork and edit"
    run(at)
    click(at, "Fork here, after turn 1")
    next(a for a in at.text_area if a.key and a.key.startswith("edit_blocks_")).set_value(json.dumps(
        [{"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 1.5, "b": 2}}]))
    run(at.selectbox(key=next(s.key for s in at.selectbox if s.key and s.key.startswith("edit_stop_")))
        .set_value("tool_use"))
    click(at, "Apply this reply")
    click(at, "Run to end")
    agrees_with_the_tree(at)
    assert at.session_state["sandbox"].run.result == "THE SUM IS 3.5 has 4 words."
    assert console(at)[1] == 'turn 2: upper {"text": "the sum is 3.5"} -> THE SUM IS 3.5'  # reply 2, not reply 1 again


def test_fork_after_a_fault_then_edit_then_step_agrees_with_the_tree(at):
    pick_script(at, "three_tool_chain")
    click(at, "Step")
    open_panel(at, "Inject a fault")
    run(at.selectbox(key="fault_kind").set_value("overloaded"))
    click(at, "Step with this fault")  # turn 2: the 529, then its retry takes reply 2
    at.session_state["past_tab"] = "Fork and edit"
    fork_at(run(at), 2)
    next(t for t in at.text_area if t.key and t.key.startswith("edit_result_")).set_value("LOUD")
    click(at, "Change it")
    agrees_with_the_tree(at)
    click(at, "Step")
    agrees_with_the_tree(at)
    branch = at.session_state["sandbox"].tree.branch
    records = branch.state.records
    assert [(records[i].turn, mark.kind) for i, mark in sorted(branch.marks.items())] == [
        (2, MarkKind.INJECTED), (2, MarkKind.EDITED)]
    assert records[2].tool_runs[0].content == "LOUD" and records[3].tool_runs[0].content == "4"  # reply 3 reads no edit
    lines = console(at)
    assert lines == list(screen(at).console)
    assert lines[1].startswith("turn 2: model error: 529") and "<- injected" in lines[1]
    assert "-> LOUD   <- edited" in lines[2]


# ------------------------------------------------------------ ids made for a person, and what is said of them


def be_the_model(at: AppTest, stop_reason: str, text: str = "", call: str = "") -> AppTest:
    run(at.selectbox(key="hand_stop").set_value(stop_reason))
    run(at.number_input(key="hand_calls").set_value(1 if call else 0))
    if call:
        at.text_input(key="hand_input_1").set_value(call)
    at.text_area(key="hand_text").set_value(text)
    return click(at, "Send this reply")


def test_a_call_added_in_an_edit_after_turns_by_hand_takes_a_new_id_and_the_next_request_is_accepted(at):
    """Issue 16, point 3: the added call took toolu_hand_0001, turn 1's id, and the next request was refused."""
    open_panel(at, "Be the model")
    be_the_model(at, "tool_use", call='{"a": 1, "b": 1}')
    be_the_model(at, "tool_use", call='{"a": 2, "b": 2}')
    at.session_state["past_tab"] = "Fork and edit"
    fork_at(run(at), 2)
    next(a for a in at.text_area if a.key and a.key.startswith("edit_blocks_")).set_value(
        '[{"type": "tool_use", "name": "add", "input": {"a": 3, "b": 3}}]')
    click(at, "Apply this reply")
    click(at, "Step")  # the script's reply 1: the script gave none yet
    agrees_with_the_tree(at)
    state = at.session_state["sandbox"].run
    assert state.result is None and state.turn == 3 and not at.error
    assert [b["id"] for r in state.records for b in r.reply["content"] if b["type"] == "tool_use"] == [
        "toolu_hand_0001", "toolu_hand_0002", "toolu_01"]


def test_the_edit_form_says_a_script_does_not_read_the_edit(at):
    click(at, "Step")
    open_panel(at)
    click(at, "Fork here, after turn 1")
    assert "its next replies were written for the run as it was, so they do not read your edit" in page_text(at)


def test_a_run_written_by_hand_is_said_to_be_in_its_turn_cards_and_its_export(at):
    open_panel(at, "Be the model")
    be_the_model(at, "tool_use", call='{"a": 20, "b": 22}')
    captions = page_text(at)
    assert "Written by hand: a reply you write has no usage" in captions
    assert "the script gives this reply no usage" not in captions
    be_the_model(at, "end_turn", text="It is 42.")
    about = view.recorded_about(at.session_state["sandbox"].run, "the script “Add two numbers, then answer”", 2)
    assert about == "Recorded on the page from a run written by hand (Be the model): 2 entries, and it answered."
    exported = parse_script_text(script_json(at.session_state["sandbox"].run), name="mine")
    assert exported.expected_output == ['turn 1: add {"a": 20, "b": 22} -> 42', "result: It is 42.",
                                        "messages sent each turn: 1, 3"]


def test_two_branches_compared_side_by_side_with_the_first_difference_marked(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    next(t for t in at.text_area if t.key and t.key.startswith("edit_result_")).set_value("35")
    click(at, "Change it")
    click(at, "Step")
    at.session_state["compare_box"] = True
    run(at)
    assert at.selectbox(key="compare_left").value == "main" and at.selectbox(key="compare_right").value == "branch 1"
    seen = compare(at.session_state["sandbox"].tree, MAIN, "branch 1")
    assert [(d.change, d.index, d.left, d.right) for d in seen.differences][0] == (Change.RESULT, 2, "5", "35")
    assert seen.differences[0].words in page_text(at)
    pairs = next(h.proto.body for h in at.get("html") if "ls-pairs" in h.proto.body)
    assert pairs.count("first difference") == 2 and "messages[2]</span><span class=\"ls-badge\">first difference" \
        in pairs
    run(at.selectbox(key="compare_left").set_value("branch 1"))
    assert "hold the same messages and ended the same way" in page_text(at)


def test_a_fork_before_the_first_turn_stays_on_screen_when_a_setting_changed(at):
    """Found by the learner state machine: a fork after turn 0, with a setting changed since the run started, was
    taken for a run nothing had happened to, and replaced by a new one while the page said "Forked branch 1"."""
    click(at, "Step")
    run(at.toggle(key="threads").set_value(True))
    look_back(at, 0)
    open_panel(at)
    click(at, "Fork here, after turn 0")
    tree = at.session_state["sandbox"].tree
    assert tree.current == "branch 1" and at.session_state["sandbox"].run is tree.branch.state
    assert "Forked branch 1 from main after turn 0" in page_text(at)
    assert "Step carries on with the old ones" in page_text(at)


# ------------------------------------------------------------ a fork at a turn that got no reply (issue 25, point 0)


def test_a_fork_after_a_turn_that_got_no_reply_says_so_and_can_give_it_one(at):
    """Runaway on a short leash, limit 6: the script's 5 replies run out, so turn 6 is a request with no reply."""
    pick_script(at, "short_leash")
    run(at.number_input(key="max_turns").set_value(6))
    click(at, "Run to end")
    main = at.session_state["sandbox"].run
    assert main.turn == 6 and main.records[-1].path == "no_reply" and main.records[-1].reply is None
    open_panel(at)
    click(at, "Fork here, after turn 6")  # `run` asserts no exception box
    assert status(at).startswith("turn 5 of 6 · the request for turn 6 got no reply")  # no reply: no turn taken
    assert turn_looked_at(at) == 6
    assert "the script 'short_leash' has 5 replies and this is request 6" in page_text(at)  # the result box
    said = page_text(at)
    assert "Turn 6 got no reply: the model had no reply to give" in said
    assert at.selectbox(key="edit_stop_branch 1_6_0").value == "end_turn"
    assert json.loads(at.text_area(key="edit_blocks_branch 1_6_0").value) == []
    at.text_area(key="edit_blocks_branch 1_6_0").set_value(json.dumps([{"type": "text", "text": "It is 6."}]))
    click(at, "Apply this reply")
    branch = at.session_state["sandbox"].run
    assert branch.result == "It is 6." and branch.records[-1].path == "answer"
    assert status(at).startswith("turn 6 of 6 · 12 messages")  # given a reply, turn 6 is a turn taken
    assert console(at)[5].startswith("<- turn 6:") and "reply edited: a reply where none came" in console(at)[5]
    assert at.session_state["sandbox"].tree.branches["main"].state.records[-1].reply is None  # main as it happened
