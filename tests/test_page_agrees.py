"""The page agrees with itself, and teaches: each test here is a place where it once said two things at once,
or a part of the lesson it did not show (the toy model, the other wire format). Driven through AppTest."""

import pytest
from page_support import (
    ONE_ID_TWICE,
    choose_real,
    click,
    console,
    html_shown,
    look_back,
    open_sandbox,
    open_tab,
    page_nodes,
    page_text,
    pick_script,
    player_shows,
    run,
    run_graph_dot,
    screen,
    server_draws,
    upload,
)
from streamlit.testing.v1 import AppTest


@pytest.fixture
def at(monkeypatch) -> AppTest:
    return open_sandbox(monkeypatch)

def test_an_address_in_an_error_shows_as_written_not_escaped(at):
    from browser_support import free_port
    choose_real(at, f"http://127.0.0.1:{free_port()}")
    click(at, "Step")
    error = at.error[0].value
    assert "`http://127.0.0.1:" in error and "127\\.0" not in error


def test_switching_back_to_the_script_after_a_failure_leaves_no_stale_notice(at):
    from browser_support import free_port
    choose_real(at, f"http://127.0.0.1:{free_port()}")
    click(at, "Step")
    assert at.error
    run(at.radio(key="model_choice").set_value("Script"))
    assert not at.error and "The settings changed" not in page_text(at)
    assert at.session_state["sandbox"].run_model == "Script" and at.session_state["sandbox"].run.records == []


def test_a_failed_attempt_prints_no_result_while_the_run_goes_on(at):
    pick_script(at, "overloaded_529")
    click(at, "Step")
    click(at, "Step")
    assert "Step tries turn 2 again" in page_text(at)
    assert not any(line.startswith("result: ") for line in console(at))
    assert console(at)[-2] == "turn 2: model error: 529 overloaded_error: Overloaded"


def test_a_script_that_runs_out_ends_the_run_in_words(at):
    pick_script(at, "runaway")
    run(at.number_input(key="max_turns").set_value(200))
    click(at, "Run to end")
    run_state = at.session_state["sandbox"].run
    assert run_state.done and run_state.records[-1].path == "no_reply" and run_state.turn == 41
    warned = page_text(at)
    assert "no reply to give" in warned and "the run ends here" in warned and "tries turn" not in warned
    assert console(at)[-2].startswith("result: stopped: the script 'runaway' has 40 replies")
    click(at, "Step")  # the player's, which says so itself (tests/test_player_browser.py): the server hears nothing
    assert at.session_state["sandbox"].run is run_state and run_state.turn == 41
    server_draws(at)  # Change the past open: the page's own Step says so too
    click(at, "Step")
    assert "There is nothing left to step" in page_text(at)


def test_looking_back_to_turn_0_of_a_finished_run_says_what_it_was(at):
    click(at, "Run to end")
    look_back(at, 0)
    shown = page_text(at)
    assert "No turn has gone through yet" not in shown and "The state before turn 1" in shown
    assert "next Step" not in run_graph_dot(at)
    assert "2 + 3 is 5." in shown.splitlines()  # the run's answer stays said above


def test_the_whole_graph_toggle_stops_following_the_newest_turn(at):
    pick_script(at, "runaway")
    for _ in range(10):
        click(at, "Step")
    assert player_shows(at) and "earlier" in run_graph_dot(at)  # the player's graph, its newest turn in view
    run(at.toggle(key="whole_graph").set_value(True))
    assert player_shows(at).data["whole"]  # the player draws every turn (tests/test_browser.py: at the top)
    assert "earlier" not in run_graph_dot(at) and "ask1 " in run_graph_dot(at)
    server_draws(at)  # and so does the page where it draws the run itself
    assert player_shows(at) is None
    assert "earlier" not in run_graph_dot(at) and "ask1 " in run_graph_dot(at)
    assert not graph_box(at).autoscroll  # the box stays at the top, where the turns brought back are


def graph_box(at: AppTest):
    return next(node.proto for node in page_nodes(at)
                if "-run_graph_box" in str(getattr(getattr(node, "proto", None), "id", "")))


def test_max_tokens_is_said_not_to_shorten_a_script_and_the_toy_keeps_to_it(at):
    run(at.number_input(key="max_tokens").set_value(1))
    assert "cannot shorten them" in page_text(at)
    run(at.radio(key="model_choice").set_value("Toy"))
    click(at, "Run to end")
    assert "stopped: max_tokens" in page_text(at)


def test_usage_is_said_for_the_replies_that_carry_it(at):
    click(at, "Step")
    shown = screen(at)
    assert not shown.record.usage and shown.usage_total is None  # turn 1's scripted reply carries none
    assert shown.cost_line in page_text(at) and "no usage" in shown.cost_line
    click(at, "Step")
    shown, captions = screen(at), page_text(at)
    assert shown.record.usage == {"input_tokens": 412, "output_tokens": 9}
    assert shown.usage_total in captions and "1 of 2 replies that reported usage: 412 input tokens" in shown.usage_total
    assert "the model took 0 ms" not in captions


def test_the_script_list_starts_with_the_lessons_run_and_reads_as_titles(at):
    picker = at.selectbox(key="script")
    assert picker.options[0] == "Add two numbers, then answer"
    assert "pause_turn" not in picker.options
    assert "**Add two numbers, then answer**" in page_text(at)  # the whole title, however long


def test_a_refused_request_is_said_once(at):
    upload(at, "twice.json", ONE_ID_TWICE)
    click(at, "Run to end")
    refusal = at.session_state["sandbox"].run.records[-1].error
    shows = player_shows(at)  # what the player says but the console
    said = [text for text in shows.texts() if text != "\n".join(shows.frame["console"])]
    assert not at.error and sum(refusal in text for text in said) == 1
    assert "No reply came back: the request was refused" in page_text(at)


# ---- the toy model and the other wire format


def test_the_toy_answers_a_typed_task_offline(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    assert "not a language model" in page_text(at)
    run(at.text_area(key="task").input("What is 2 + 3 and 10 + 20?"))
    click(at, "Run to end")
    assert console(at) == ['turn 1: add {"a": 2, "b": 3} -> 5', 'turn 1: add {"a": 10, "b": 20} -> 30',
                           "result: 2 + 3 is 5; 10 + 20 is 30.", "messages sent each turn: 1, 3"]
    assert "toy's estimate" in page_text(at)
    open_tab(at, "Export")
    assert len(at.get("download_button")) == 5  # the run as a web page and as a script, like any other run


def test_the_messages_view_sets_chat_completions_beside_it(at):
    click(at, "Step")
    open_tab(at, "Messages")
    run(at.toggle(key="openai_side").set_value(True))
    pairs = next(h for h in html_shown(at) if "ls-chat-pairs" in h)  # the player draws them, from its frames
    assert "tool_call_id" in pairs and "&quot;arguments&quot;: &quot;{\\&quot;a\\&quot;: 2" in pairs
    assert "finish_reason &quot;tool_calls&quot;" in pairs
    table = page_text(at)
    assert "finish_reason" in table and "one role: \"tool\" message per result" in table  # as a reader sees it


def test_an_example_task_for_the_toy_goes_into_the_task_box_and_runs(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    pills = next(e for e in at.sidebar if getattr(e, "key", None) == "toy_example")
    run(pills.set_value("Shout good morning"))
    assert at.text_area(key="task").value == "Shout good morning"
    click(at, "Run to end")
    assert console(at)[:2] == ['turn 1: upper {"text": "good morning"} -> GOOD MORNING', "result: GOOD MORNING"]
