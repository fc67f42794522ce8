"""Every message on the page is true in the sequences a learner clicks through (issue 16, points 14-20):
a new task after a finished run, the counters of a run over message threads, a turn limit past the script's
replies, the uploader's limit, an empty task, the console's words. Driven through AppTest."""

import json
import re

import pytest
from page_support import (
    NO_TURN_YET,
    ROOT,
    click,
    console,
    full_page,
    html_shown,
    lesson_code,
    open_sandbox,
    open_tab,
    page_text,
    pick_script,
    run,
    run_graph_dot,
    server_draws,
    status,
)
from streamlit.testing.v1 import AppTest

from agent.models.toy import ToyModel
from agent.page import view
from agent.tools import tool_schemas
from agent.untrusted import MAX_FILE_BYTES


@pytest.fixture
def at(monkeypatch) -> AppTest:
    return open_sandbox(monkeypatch)


def type_task(at: AppTest, task: str) -> AppTest:
    return run(at.text_area(key="task").input(task))


def test_a_new_task_after_a_finished_run_is_run_by_the_next_step(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    type_task(at, "What is 2 + 3?")
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.result == "2 + 3 is 5."
    type_task(at, "What is 10 + 20?")
    said = page_text(at)
    assert "Step (or Run to end) starts a new run" in said and "Step carries on with the old ones" not in said
    click(at, "Step")
    run_state = at.session_state["sandbox"].run
    assert run_state.task == "What is 10 + 20?" and run_state.turn == 1
    assert "The loop has finished" not in page_text(at) and "The settings changed" not in page_text(at)
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.result == "10 + 20 is 30."
    assert "10 + 20 is 30." in page_text(at).splitlines()  # the answer, said as the outcome


def test_a_new_task_after_a_finished_script_run_starts_the_script_again(at):
    click(at, "Run to end")
    type_task(at, "What is 10 + 20?")
    click(at, "Run to end")
    run_state = at.session_state["sandbox"].run
    assert run_state.messages[0] == {"role": "user", "content": "What is 10 + 20?"} and run_state.turn == 2
    assert console(at)[0] == 'turn 1: add {"a": 2, "b": 3} -> 5'  # the script plays from its first reply


def test_step_after_the_end_with_the_same_settings_still_says_the_run_has_finished(at):
    click(at, "Run to end")
    server_draws(at)  # Change the past open: the page's own Step (the player's says so in the browser)
    click(at, "Step")
    said = page_text(at)
    assert "The loop has finished (2 + 3 is 5.)" in said and "Reset starts it again" in said
    assert at.session_state["sandbox"].run.turn == 2


# ---- point 18: over message threads, every counter says the same ----------------------------------------------


def test_over_message_threads_every_counter_says_what_was_sent_and_what_the_whole_array_would_be(at):
    pick_script(at, "three_tool_chain")
    run(at.toggle(key="threads").set_value(True))
    click(at, "Run to end")
    run_state = at.session_state["sandbox"].run
    assert [r.messages_sent for r in run_state.records] == [1, 1, 1, 1]
    assert console(at)[-1] == ("messages sent each turn: 1, 1, 1, 1 over a message thread "
                               "(the whole array each turn: 1, 3, 5, 7)")
    assert "ask 4\\n1 message sent\\nover a thread (the whole array: 7)" in run_graph_dot(at)
    heading = page_text(at)
    said = re.search(r"Turn 4 sent 1 message over a thread \(the whole array: 7\) · ([\d,]+) bytes", heading)
    caption = next(line for line in heading.splitlines() if line.startswith("Over a message thread"))
    sent, whole = re.search(r"this turn sent 1 message, ([\d,]+) bytes; the whole array would have been "
                            r"7 messages, ([\d,]+) bytes", caption).groups()
    assert said and said.group(1) == sent  # the heading and the caption count the same body
    request = {"model": "fake", **run_state.request(run_state.records[3])}
    assert int(sent.replace(",", "")) == len(json.dumps(request, ensure_ascii=False).encode())
    assert int(whole.replace(",", "")) > int(sent.replace(",", ""))
    open_tab(at, "Messages")
    assert "The next request sends this whole array" not in page_text(at)


def test_the_loop_view_says_what_a_threaded_turn_sent(at):
    pick_script(at, "three_tool_chain")
    run(at.toggle(key="threads").set_value(True))
    click(at, "Step")
    click(at, "Step")
    open_tab(at, "The loop")
    assert "sends 1 message over a thread (the whole array: 3)" in lesson_code(at)


# ---- point 19: a turn limit past the script's replies ----------------------------------------------------------


def test_a_turn_limit_past_the_scripts_replies_is_warned_of_where_it_is_set(at):
    pick_script(at, "runaway")
    assert not at.sidebar.warning  # the script's own limit, 40, stops the run before its replies run out
    run(at.number_input(key="max_turns").set_value(500))
    warned = at.sidebar.warning[0].value
    assert "This script has 40 replies" in warned and "before the turn limit of 500 is reached" in warned
    assert "the request for turn 41 gets no reply, and the run stops there after 40 turns" in warned
    click(at, "Run to end")
    last = at.session_state["sandbox"].run.records[-1]
    assert (last.turn, last.path) == (41, "no_reply")  # what the warning said
    assert status(at).startswith("turn 40 of 500 · the request for turn 41 got no reply")
    run(at.number_input(key="max_turns").set_value(41))  # one past the replies: they still run out first
    assert "before the turn limit of 41 is reached" in at.sidebar.warning[0].value
    run(at.number_input(key="max_turns").set_value(40))  # at equality the limit stops the run: no warning
    assert not at.sidebar.warning
    pick_script(at, "add_then_answer")
    run(at.number_input(key="max_turns").set_value(500))
    assert not at.sidebar.warning  # a script that answers ends its run itself


# ---- issue 25, point 8d: an injected cut-off invents no usage ---------------------------------------------------


def inject(at: AppTest, kind: str) -> AppTest:
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = "Inject a fault"
    run(at)
    run(at.selectbox(key="fault_kind").set_value(kind))
    return click(at, "Step with this fault")


def test_an_injected_cut_off_of_a_script_reply_shows_no_usage_nobody_measured(at):
    inject(at, "cut_off")  # the reference script's replies carry no usage
    assert at.session_state["sandbox"].run.records[-1].reply["stop_reason"] == "max_tokens"
    said = page_text(at)
    assert "Usage: the script gives this reply no usage" in said and "output tokens" not in said


def test_an_injected_cut_off_keeps_the_toy_s_own_count_and_says_it_was_before_the_cut(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    inject(at, "cut_off")
    state = at.session_state["sandbox"].run
    whole = ToyModel().create(state.messages[:1], system=state.system, tools=tool_schemas(state.tool_names),
                              max_tokens=state.max_tokens)  # the toy's reply before the fault cut it
    assert state.records[-1].usage == whole["usage"]
    line = next(c for c in page_text(at).splitlines() if c.startswith("Usage:"))
    assert line.startswith(f"Usage: {view.usage_line(whole['usage'])}, counted for the whole reply, before the "
                           "injected fault cut its output at max_tokens")


# ---- point 20: the uploader, the empty task, the console's words ------------------------------------------------


def test_the_uploader_says_the_size_a_script_is_read_to():
    at = full_page(30).run()
    uploader = at.get("file_uploader")[0]
    assert uploader.proto.max_upload_size_mb * 2**20 == MAX_FILE_BYTES


def test_after_another_script_is_picked_the_upload_error_names_no_old_script(at):
    bad = {"replies": [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "name": "add", "input": {}}]}]}
    run(at.file_uploader(key="upload").upload("broken.json", json.dumps(bad).encode(), "application/json"))
    assert "the run still plays “Add two numbers, then answer”" in page_text(at)
    pick_script(at, "runaway")
    assert "the run still plays" not in page_text(at)


@pytest.mark.parametrize("task", ["", "   \n "])
def test_an_empty_task_asks_for_a_task_instead_of_sending_a_bad_request(at, task):
    type_task(at, task)
    for button in ("Step", "Run to end"):
        click(at, button)
        assert "The task is empty" in page_text(at) and not at.error
        assert at.session_state["sandbox"].run.records == []
    type_task(at, "What is 2 + 3?")
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.result == "2 + 3 is 5."


def test_an_error_that_ends_in_a_full_stop_gets_no_second_one(at):
    script = {"title": "Busy", "task": "Hi", "replies": [
        {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded. See the docs for more details."}},
        {"stop_reason": "end_turn", "content": [{"type": "text", "text": "Hello."}]}]}
    run(at.file_uploader(key="upload").upload("busy.json", json.dumps(script).encode(), "application/json"))
    click(at, "Step")
    click(at, "Step")
    said = page_text(at)
    assert "for more details. It was not counted" in said and ".." not in said


def test_before_the_first_step_the_console_says_no_turn_has_gone_through(at):
    assert console(at) == [NO_TURN_YET]


def test_the_console_shows_non_ascii_as_itself(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    type_task(at, "Shout café")
    click(at, "Run to end")
    assert console(at)[0] == 'turn 1: upper {"text": "café"} -> CAFÉ'
    assert "\\u00e9" not in "\n".join(console(at))


def test_the_chat_completions_view_names_what_it_leaves_out_and_its_cards_show_the_role(at):
    pick_script(at, "thinking_then_answer")
    click(at, "Run to end")
    open_tab(at, "Messages")
    run(at.toggle(key="openai_side").set_value(True))
    pairs = next(h for h in html_shown(at) if "ls-chat-pairs" in h)  # the player draws them, from its frames
    assert "left out: thinking (Chat Completions has no thinking blocks to send back)" in pairs
    cards = re.findall(r'<div class="ls-oa[^"]*"><span class="ls-oa-role">(\w+)</span><pre>(.*?)</pre>', pairs, re.S)
    assert cards and all(f"&quot;role&quot;: &quot;{role}&quot;" in body for role, body in cards)


# ---- point 17: the SDK's import does not stop the page --------------------------------------------------------

IMPORTED_AHEAD = """
import sys, time
from streamlit.testing.v1 import AppTest
assert "anthropic" not in sys.modules, "imported before the page ran"
at = AppTest.from_file(sys.argv[1], default_timeout=30)
at.query_params["controls"] = "all"
at = at.run()
deadline = time.monotonic() + 60
while time.monotonic() < deadline and not hasattr(sys.modules.get("anthropic"), "OverloadedError"):
    time.sleep(0.05)  # no Step, no click: the page itself imports it, in the background
print("imported" if hasattr(sys.modules.get("anthropic"), "OverloadedError") else "not imported")
at.selectbox(key="script").set_value("overloaded_529").run()
assert at.session_state["sandbox"].take_played("s.s") is None  # two Steps, as the player hands them over
at.run()
print(at.session_state["sandbox"].run.records[-1].error)
"""


def test_the_page_imports_the_sdk_in_the_background_before_a_step_needs_it(tmp_path):
    """A fresh process, as a server starts: the first page run leaves the import going on in the background."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ANTHROPIC_API_KEY", None)
    done = subprocess.run([sys.executable, "-c", IMPORTED_AHEAD, str(ROOT / "sandbox_app.py")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["imported", "529 overloaded_error: Overloaded"]


@pytest.mark.parametrize("how", ["fault", "hand"])
def test_an_empty_task_asks_for_a_task_on_every_path_that_would_send_it(monkeypatch, how):
    """Found by the learner state machine: a fault injected (or a reply by hand) on an empty task sent the request
    the Step button already held back, and the run ended in a red bad request."""
    at = open_sandbox(monkeypatch)
    run(at.text_area(key="task").input("   "))
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = "Inject a fault" if how == "fault" else "Be the model"
    run(at)
    if how == "fault":
        run(at.selectbox(key="fault_kind").set_value("overloaded"))
        click(at, "Step with this fault")
    else:
        run(at.text_area(key="hand_text").input("Done."))
        click(at, "Send this reply")
    assert at.session_state["sandbox"].run.records == [] and not at.error
    assert "The task is empty: type what the agent should do in the Task box" in page_text(at)


def test_a_step_that_starts_a_new_run_after_the_end_says_so(monkeypatch):
    at = open_sandbox(monkeypatch)
    click(at, "Run to end")
    run(at.text_area(key="task").input("What is 4 + 4?"))
    click(at, "Step")
    assert at.session_state["sandbox"].run.task == "What is 4 + 4?" and at.session_state["sandbox"].run.turn == 1
    assert "The run had finished, so this Step started a new run with the settings as they are now (a run of " \
        in page_text(at)
