"""Change the past on the page (AppTest): fork at a turn, edit it, inject faults, be the model."""

import json

import pytest
from streamlit.testing.v1 import AppTest
from test_page import REFERENCE_CONSOLE, ROOT, click, console, pick_script, run, run_graph_dot, texts

from agent.fake import FakeModel
from agent.loop import RunState, console_lines, step
from agent.real import script_json
from agent.scripts import parse_script_text


@pytest.fixture
def at(monkeypatch) -> AppTest:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30))


def open_panel(at: AppTest, tab: str = "Fork and edit") -> AppTest:
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = tab
    return run(at)


def look_back(at: AppTest, turn: int) -> AppTest:
    return run(at.slider(key="look_back").set_value(turn))


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
    tree, fake = at.session_state["tree"], at.session_state["fake"]
    assert tree.current == "branch 1" and at.session_state["run"] is tree.branch.state
    assert at.session_state["run"].turn == 2 and fake.calls == 2 and fake.requests == []
    assert "Forked branch 1 from main after turn 2" in texts(at.info)
    dot = run_graph_dot(at)
    assert "branch 1 leaves main" in dot and "fork -> ask3" in dot
    click(at, "Run to end")
    assert console(at) == main_console and len(fake.requests) == 2  # turns 3 and 4 only
    exported = parse_script_text(script_json(at.session_state["run"]), name="branch")  # the branch's download
    assert exported.expected_output == main_console
    replayed = RunState(exported.task, system=exported.system, tool_names=exported.tools)
    model = FakeModel(exported)
    while not replayed.done:
        step(replayed, model)
    assert console_lines(replayed) == main_console
    assert at.selectbox(key="branch_pick").value == "branch 1"
    run(at.selectbox(key="branch_pick").set_value("main"))
    assert at.session_state["run"] is tree.branches["main"].state and tree.current == "main"


def test_an_edited_reply_that_breaks_a_rule_is_refused_in_the_api_s_words(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    area = next(a for a in at.text_area if a.key and a.key.startswith("edit_blocks_"))
    area.set_value(json.dumps([{"type": "tool_use", "id": "bad id", "name": "add", "input": {"a": 1, "b": 1}}]))
    click(at, "Apply this reply")
    assert console(at)[0].startswith('turn 1: add {"a": 1, "b": 1} -> 2   <- ✎ edited')
    click(at, "Step")
    assert at.session_state["run"].result == ("bad request: messages.1.content.0.tool_use.id: String should match "
                                              "pattern '^[a-zA-Z0-9_-]+$'")
    assert "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'" in texts(at.error)


def test_an_edit_that_is_not_json_says_so_and_changes_nothing(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    before = at.session_state["run"].to_json()
    next(a for a in at.text_area if a.key and a.key.startswith("edit_blocks_")).set_value("[{oops")
    click(at, "Apply this reply")
    assert "the blocks are not JSON" in texts(at.error) and at.session_state["run"].to_json() == before


def test_a_tool_result_edited_at_the_fork_is_what_the_next_request_carries(at):
    click(at, "Step")
    look_back(at, 1)
    open_panel(at)
    click(at, "Fork here, after turn 1")
    next(t for t in at.text_input if t.key and t.key.startswith("edit_result_")).set_value("six")
    click(at, "Change it")
    assert at.session_state["run"].messages[2]["content"][0]["content"] == "six"
    click(at, "Step")
    assert at.session_state["run"].result == "2 + 3 is 5."


@pytest.mark.parametrize(("kind", "said"), [
    ("overloaded", "turn 1: model error: 529 overloaded_error: Overloaded   <- ⚡ injected"),
    ("timeout", "turn 1: model error: APITimeoutError: Request timed out"),
    ("tool_raises", 'turn 1: add {"a": 2, "b": 3} -> error: add broke down (an injected fault)   <- ⚡ injected'),
    ("cut_off", "turn 1:   <- ⚡ injected: the reply is cut off by max_tokens"),
    ("refusal", "turn 1:   <- ⚡ injected: the model refuses"),
])
def test_each_fault_steps_the_run_and_is_marked_as_injected(at, kind, said):
    open_panel(at, "Inject a fault")
    run(at.selectbox(key="fault_kind").set_value(kind))
    click(at, "Step with this fault")
    assert console(at)[0].startswith(said)
    assert 'xlabel="⚡ injected"' in run_graph_dot(at)


def test_be_the_model_then_save_the_session_as_a_script_that_replays(at):
    open_panel(at, "Be the model")
    run(at.selectbox(key="hand_stop").set_value("tool_use"))
    run(at.number_input(key="hand_calls").set_value(1))
    at.text_input(key="hand_input_1").set_value('{"a": 20, "b": 22}')
    click(at, "Send this reply")
    assert console(at)[0] == 'turn 1: add {"a": 20, "b": 22} -> 42   <- ✋ by hand'
    run(at.selectbox(key="hand_stop").set_value("end_turn"))
    run(at.number_input(key="hand_calls").set_value(0))
    at.text_area(key="hand_text").set_value("It is 42.")
    click(at, "Send this reply")
    state = at.session_state["run"]
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
    assert 'add needs "a" to be a number, got "two"' in texts(at.error)
    assert at.session_state["run"].records == []


def test_reset_after_a_fork_starts_a_new_tree(at):
    click(at, "Run to end")
    open_panel(at)
    click(at, "Fork here, after turn 2")
    click(at, "Reset")
    assert at.session_state["tree"].current == "main" and len(at.session_state["tree"].branches) == 1
    click(at, "Run to end")
    assert console(at) == REFERENCE_CONSOLE
