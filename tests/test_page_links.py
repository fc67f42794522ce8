"""Links into any state on the page (AppTest): the URL a screen writes opens that screen in a new session.

Each test drives one page, takes the query the page wrote, opens a second page on it (a new session: nothing
of the first but the URL), and compares what the two show. Chromium does the same in test_browser_links.py.
"""

import pytest
from page_support import (
    click,
    console,
    full_page,
    look_back,
    open_tab,
    page_text,
    pick_script,
    player_shows,
    run,
    status,
    texts,
    turn_looked_at,
)
from streamlit.testing.v1 import AppTest
from test_page_change import be_the_model, fork_at, open_panel

from agent.page.links import Link, to_query


@pytest.fixture
def at(monkeypatch) -> AppTest:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(full_page(30))


def query_of(at: AppTest) -> dict[str, str]:
    return {key: values[-1] if isinstance(values, list) else values for key, values in at.query_params.items()}


def opened(query: dict[str, str]) -> AppTest:
    """A new session of the page, its first run on a URL with `query`."""
    page = full_page(30)
    for key, value in query.items():
        page.query_params[key] = value
    return run(page)


def screen(at: AppTest) -> dict:
    """What a person sees of the run: the status line, the console, the branch picked, the turn and the view."""
    picker = [s.value for s in at.selectbox if s.key == "branch_pick"]
    slider = [s.value for s in at.slider if s.key == "look_back"]
    return {"status": status(at), "console": console(at) if at.session_state["tab"] == "Run" else None,
            "branch": picker[0] if picker else None,
            "turn": slider[0] if slider else turn_looked_at(at) if player_shows(at) else None,
            "view": at.session_state["tab"], "model": at.session_state["model_choice"],
            "task": at.session_state["task"]}


def reopens_the_same_screen(at: AppTest) -> AppTest:
    again = opened(query_of(at))
    assert screen(again) == screen(at)
    # to the last tool_use id
    assert again.session_state["sandbox"].run.messages == at.session_state["sandbox"].run.messages
    assert not again.warning, texts(again.warning)  # a link the page wrote has nothing it cannot use
    return again


def test_a_fresh_page_writes_its_script_and_model_and_nothing_more(at):
    assert query_of(at) == {"model": "script", "script": "add_then_answer"}


def test_a_script_at_a_turn_looked_back_at_in_another_view(at):
    pick_script(at, "three_tool_chain")
    click(at, "Run to end")
    look_back(at, 2)
    open_tab(at, "Run")
    assert query_of(at)["turn"] == "2"
    again = reopens_the_same_screen(at)
    assert screen(again)["turn"] == 2 and status(again).startswith("turn 4 of 40")
    assert again.session_state["sandbox"].run.turn == 4
    look_back(again, 4)
    assert "turn" not in query_of(again)  # the latest turn is the link's default
    open_tab(at, "Messages")
    assert query_of(at)["view"] == "messages"
    assert opened(query_of(at)).session_state["tab"] == "Messages"


def test_the_toy_with_a_typed_task_and_settings_changed(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    at.text_area(key="task").set_value("What is 2 + 3 and 10 + 20?")
    at.multiselect(key="tools").set_value(["add", "upper"])
    at.number_input(key="max_tokens").set_value(512)
    run(at)
    click(at, "Step")
    query = query_of(at)
    assert query["model"] == "toy" and query["task"] == "What is 2 + 3 and 10 + 20?" and "script" not in query
    assert query["tools"] == "add,upper" and query["max_tokens"] == "512"
    again = reopens_the_same_screen(at)
    assert console(again)[0] == 'turn 1: add {"a": 2, "b": 3} -> 5'
    assert again.session_state["sandbox"].run.tool_names == ["add", "upper"]
    assert again.session_state["max_tokens"] == 512


def test_a_branch_with_an_edit_and_a_fault(at):
    pick_script(at, "three_tool_chain")
    click(at, "Run to end")
    open_panel(at)
    fork_at(at, 2)
    next(t for t in at.text_area if t.key and t.key.startswith("edit_result_")).set_value("LOUD")
    next(c for c in at.checkbox if c.key and c.key.startswith("edit_is_error_")).check()
    click(at, "Change it")
    open_panel(at, "Inject a fault")
    run(at.selectbox(key="fault_kind").set_value("overloaded"))
    click(at, "Step with this fault")
    assert at.session_state["sandbox"].tree.current == "branch 1"
    again = reopens_the_same_screen(at)
    assert screen(again)["branch"] == "branch 1"
    lines = console(again)
    assert "LOUD" in lines[1] and "<- edited" in lines[1] and "<- injected" in lines[2]
    run(again.selectbox(key="branch_pick").set_value("main"))  # the link holds the switch back too
    assert reopens_the_same_screen(again).session_state["sandbox"].tree.current == "main"


def test_a_reply_written_by_hand_and_an_edited_reply(at):
    open_panel(at, "Be the model")
    be_the_model(at, "tool_use", call='{"a": 1, "b": 1}')
    click(at, "Reset")  # a reply by hand in an earlier run does not change this run's ids
    be_the_model(at, "tool_use", call='{"a": 4, "b": 4}')
    be_the_model(at, "end_turn", text="Eight.")
    reopens_the_same_screen(at)
    at.session_state["past_tab"] = "Fork and edit"
    fork_at(run(at), 1)
    blocks = next(t for t in at.text_area if t.key and t.key.startswith("edit_blocks_"))
    blocks.set_value(blocks.value.replace('"b": 4', '"b": 5'))
    click(at, "Apply this reply")
    again = reopens_the_same_screen(at)
    assert console(again)[0].startswith('turn 1: add {"a": 4, "b": 5} -> 9')


def test_bad_links_are_said_in_words_and_the_page_opens_anyway():
    page = opened({"model": "gpt", "script": "nope", "turn": "x", "view": "graph", "actions": "!!", "color": "red"})
    said = texts(page.warning)
    for words in ("the model “gpt” is not one of", "there is no built-in script “nope”", "the turn “x” is not a "
                  "number", "the view “graph” is not one of", "the link's actions could not be read",
                  "the link's color is not read by this page"):
        assert words in said
    assert len(page.warning) == 1 and status(page).startswith("turn 0 of")  # one notice, the reference script


def test_a_replay_that_cannot_go_on_stops_there_and_says_so():
    query = to_query(Link(script="add_then_answer", actions=[["run"], ["step"], ["fork", 0]], turn=7))
    page = opened(query)
    said = texts(page.warning)
    assert "replayed up to action 1 of 3: action 2 (step) could not be taken (The loop has finished" in said
    assert "the run has no turn 7 (it stops at turn 2)" in said
    assert status(page).startswith("turn 2 of")
    assert list(page.session_state["sandbox"].tree.branches) == ["main"]  # the fork after it was not taken
    edit = opened(to_query(Link(script="add_then_answer", actions=[["step"], ["edit_result", 0, "x", False]])))
    assert "action 2 (edit result) could not be taken (main is the run as it happened" in texts(edit.warning)


@pytest.mark.parametrize(("actions", "said"), [
    ([["step"], ["fork", 1], ["edit_reply", "end_turn", [{"type": "tool_use", "name": 5, "input": 3}]]],
     "action 3 (edit reply) could not be taken"),
    ([["fork", 0], ["edit_reply", "end_turn", []]], "a fork before the first turn has no reply to edit"),
    ([["hand", "tool_use", [{"type": "tool_use", "name": "add", "input": [1]}]]], "action 1 (hand) could not be"),
    ([["hand", "end_turn", [{"type": "image"}]]], "action 1 (hand) could not be taken"),
    ([["hand", "end_turn", [1]]], "the link's action 1 is not one this page knows"),
    ([["fault", "nope", ""]], "no fault 'nope'"),
    ([["fault", "tool_raises", "rm"]], "no tool 'rm' to break"),
    ([["switch", "x"]], "There is no branch “x”"),
    ([["fork", -1]], "The run on screen has no turn -1 to fork after"),
    ([["step"], ["fork", 1], ["edit_result", 7, "x", True]], "turn 1 has no tool call 8"),
])
def test_a_stranger_s_actions_stop_the_replay_in_words(actions, said):
    page = opened(to_query(Link(script="add_then_answer", actions=actions)))
    assert len(page.warning) == 1 and said in texts(page.warning)


def test_a_real_link_brings_back_its_settings_and_sends_nothing():
    page = opened(to_query(Link(model="Real", task="Say hi.", settings={"max_turns": 3}, actions=[["step"]])))
    assert page.session_state["model_choice"] == "Real" and page.session_state["task"] == "Say hi."
    assert page.session_state["max_turns"] == 3 and page.session_state["sandbox"].run.turn == 0
    said = texts(page.warning)
    assert "A link never calls one: the run's settings are back" in said and "the run starts afresh" in said
    assert "not an API key or a Base URL" in said  # a Base URL is never carried, and the words say so


def test_copy_link_shows_the_whole_link_and_how_to_embed(at):
    click(at, "Step")
    click(at, "Copy link")
    link = next(c.value for c in at.code if "?model=script" in c.value)
    assert link.endswith("?model=script&script=add_then_answer&actions=" + query_of(at)["actions"])
    assert "&embed=true" in page_text(at)


def test_back_and_forward_show_the_screen_their_address_names():
    page = run(full_page(30))
    click(page, "Step")
    after_one = dict(page.query_params)
    assert after_one.get("actions"), after_one
    click(page, "Step")
    assert page.session_state["sandbox"].run.turn == 2
    for key in list(page.query_params):
        del page.query_params[key]
    for key, value in after_one.items():  # the browser's Back: the address of the screen before
        page.query_params[key] = value[-1] if isinstance(value, list) else value
    run(page)
    box = page.session_state["sandbox"]
    assert box.run.turn == 1 and status(page).startswith("turn 1 of ")
    assert not page.warning, texts(page.warning)
    click(page, "Undo")  # the screen before Back is one Undo away
    assert page.session_state["sandbox"].run.turn == 2


def test_a_click_that_carries_the_address_before_the_last_run_is_a_click_not_back():
    """A learner clicks what a run drew before that run has ended (and written its address): the click's rerun
    carries the address before. It is the click, on the screen as it stands, not the browser's Back."""
    page = run(full_page(30))
    click(page, "Step")
    before = dict(page.query_params)
    click(page, "Step")
    for key in list(page.query_params):
        del page.query_params[key]
    for key, value in before.items():  # the address the browser still showed when the click was made
        page.query_params[key] = value[-1] if isinstance(value, list) else value
    click(page, "Undo")  # a click: the run it was made on goes back one turn, by Undo, not to the address
    box = page.session_state["sandbox"]
    assert box.run.turn == 1 and len(box.history.redo) == 1, (box.run.turn, box.history.redo)
    click(page, "Redo")
    assert page.session_state["sandbox"].run.turn == 2 and status(page).startswith("turn 2 of ")
    assert not page.warning, texts(page.warning)


def with_the_address_before(page: AppTest, before: dict) -> None:
    """The address the browser still shows when a click is made before the last run wrote its own."""
    for key in list(page.query_params):
        del page.query_params[key]
    for key, value in before.items():
        page.query_params[key] = value[-1] if isinstance(value, list) else value


@pytest.mark.parametrize("widget", ["a switch turned off", "a view picked"])
def test_a_widget_with_no_action_of_its_own_changed_on_an_old_address_is_no_back(widget):
    """Every widget's callback says a widget began the run, a switch turned off too (a fingerprint of the
    widgets' values could not see that): the page stays on the run as it stands."""
    page = run(full_page(30))
    run(page.toggle(key="whole_graph").set_value(True))
    click(page, "Step")
    before = dict(page.query_params)
    click(page, "Step")
    with_the_address_before(page, before)
    if widget == "a switch turned off":
        run(page.toggle(key="whole_graph").set_value(False))
    else:
        run(page.button_group(key="tab").set_value("Messages"))
    box = page.session_state["sandbox"]
    assert box.run.turn == 2 and status(page).startswith("turn 2 of "), widget
    assert not page.warning, texts(page.warning)


def test_a_visit_to_the_exercise_and_back_keeps_the_run():
    page = run(full_page(30))
    click(page, "Step")
    run(page.switch_page("views/write_your_loop.py"))
    for key in list(page.query_params):  # the other page's address holds none of the sandbox's
        del page.query_params[key]
    run(page.switch_page("views/sandbox.py"))
    assert page.session_state["sandbox"].run.turn == 1 and status(page).startswith("turn 1 of ")
