"""The page's controls, driven through Streamlit's AppTest (the script runs for real, without a browser)."""

import json
import re

import pytest
from page_support import (
    NO_TURN_YET,
    ONE_ID_TWICE,
    REFERENCE_CONSOLE,
    ROOT,
    choose_real,
    click,
    console,
    everything_shown,
    full_page,
    html_shown,
    lesson_code,
    lit_lines,
    look_back,
    loop_diagram_dot,
    open_sandbox,
    open_tab,
    page_text,
    pick_script,
    player_shows,
    run,
    run_graph_dot,
    screen,
    server_draws,
    status,
    texts,
    turn_looked_at,
    upload,
)
from streamlit.testing.v1 import AppTest

from agent.loop import TurnPath
from agent.page.names import NoticeKind
from agent.scripts import load_script


@pytest.fixture
def at(monkeypatch) -> AppTest:
    return open_sandbox(monkeypatch)



def test_the_page_opens_on_the_reference_script_with_the_fake_model(at):
    assert at.radio(key="model_choice").value == "Script"
    assert at.selectbox(key="script").value == "add_then_answer"
    assert at.text_area(key="task").value == "What is 2 + 3?"
    assert "It does not read the task" in texts(at.caption)
    assert at.multiselect(key="tools").value == ["add", "word_count"]
    assert status(at).startswith("turn 0 of 40")
    assert console(at) == [NO_TURN_YET]
    assert "next Step" in run_graph_dot(at)


def test_stepping_the_reference_script_reaches_its_answer(at):
    click(at, "Step")
    assert console(at) == ['turn 1: add {"a": 2, "b": 3} -> 5', "messages sent each turn: 1"]
    assert status(at).startswith("turn 1 of 40 · 3 messages")
    assert not at.success
    click(at, "Step")
    assert console(at) == REFERENCE_CONSOLE
    assert "2 + 3 is 5." in page_text(at)
    dot = run_graph_dot(at)
    assert "ask2 -> outcome" in dot and 'label="answer\\n2 + 3 is 5."' in dot
    assert at.session_state["sandbox"].run.messages[-1] == {"role": "assistant",
                                                    "content": [{"type": "text", "text": "2 + 3 is 5."}]}


def test_step_after_the_end_says_so_and_does_nothing(at):
    click(at, "Run to end")
    before = at.session_state["sandbox"].run.to_json()
    click(at, "Step")  # the player says so itself (tests/test_player_browser.py): the server hears of no Step
    assert at.session_state["sandbox"].run.to_json() == before
    server_draws(at)  # Change the past open: the page draws the run itself, and its own Step says so too
    click(at, "Step")
    assert "The loop has finished (2 + 3 is 5.)" in texts(at.info)
    assert at.session_state["sandbox"].run.to_json() == before


def test_run_to_end_and_reset(at):
    click(at, "Run to end")
    assert console(at) == REFERENCE_CONSOLE
    click(at, "Reset")
    assert console(at) == [NO_TURN_YET]
    assert status(at).startswith("turn 0 of 40")
    click(at, "Run to end")  # the same settings, the script from its start
    assert console(at) == REFERENCE_CONSOLE


def test_the_turn_details_show_the_exact_request_and_the_reply(at):
    click(at, "Step")
    click(at, "Step")
    shown = screen(at)
    assert (shown.turn, shown.record.path, shown.record.reply["stop_reason"]) == (2, TurnPath.ANSWER, "end_turn")
    assert shown.turn_sent.sent.messages == 3 and shown.record.usage == {"input_tokens": 412, "output_tokens": 9}
    details = page_text(at)
    assert "Turn 2 sent 3 messages" in details and "and the loop returned the answer" in details
    assert shown.cost_line in details and "412 input tokens · 9 output tokens" in shown.cost_line
    player = player_shows(at)  # the player draws the JSON from its frame, the messages named by their place
    request = {**player.frame["request"]}
    request["messages"] = player.frames["messages"][slice(*request["messages"])]
    shown = at.session_state["sandbox"].run
    assert request == {"model": "fake", **shown.request(shown.records[1])}
    assert list(request)[0] == "model" and len(request["messages"]) == 3
    server_draws(at)  # the page's own Run view: its JSON made when opened
    assert not any(c.language == "json" for c in at.code)
    at.session_state["json_request2"] = True
    run(at)
    assert json.loads(next(c.value for c in at.code if c.language == "json")) == request


def test_switching_script_loads_its_settings_and_starts_over(at):
    click(at, "Step")
    pick_script(at, "two_calls_one_reply")
    script = load_script("two_calls_one_reply")
    assert at.text_area(key="task").value == script.task
    assert at.multiselect(key="tools").value == script.tools
    assert at.text_area(key="system").value == script.system
    assert status(at).startswith("turn 0 of")
    assert script.about in texts(at.caption).replace("\\", "")
    click(at, "Run to end")
    assert console(at)[:2] == ['turn 1: add {"a": 3, "b": 4} -> 7', 'turn 1: upper {"text": "hello"} -> HELLO']


def test_a_good_file_loads_as_a_script(at):
    data = {"title": "My own", "task": "Count these words", "tools": ["word_count"],
            "replies": [{"stop_reason": "tool_use", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "word_count", "input": {"text": "a b c"}}]},
                {"stop_reason": "end_turn", "content": [{"type": "text", "text": "Three."}]}]}
    run(at.file_uploader(key="upload").upload("mine.json", json.dumps(data).encode(), "application/json"))
    assert at.selectbox(key="script").value == "mine (your file)"
    assert at.text_area(key="task").value == "Count these words"
    click(at, "Run to end")
    assert console(at) == ['turn 1: word_count {"text": "a b c"} -> 3', "result: Three.",
                           "messages sent each turn: 1, 3"]


def test_a_bad_file_shows_the_engines_error_and_keeps_the_run(at):
    click(at, "Step")
    before = at.session_state["sandbox"].run.to_json()
    bad = {"replies": [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "name": "add", "input": {}}]}]}
    run(at.file_uploader(key="upload").upload("broken.json", json.dumps(bad).encode(), "application/json"))
    assert texts(at.error).startswith('broken.json: replies[0].content[0]: tool_use needs an "id"')
    notice = at.session_state["sandbox"].notice
    assert notice.kind == NoticeKind.ERROR and "broken.json was not loaded" in texts(at.error)
    assert at.file_uploader(key="upload1").value is None  # the refused file does not stay in the uploader
    assert at.session_state["sandbox"].run.to_json() == before
    assert at.selectbox(key="script").value == "add_then_answer"
    click(at, "Step")  # the run goes on
    assert console(at) == REFERENCE_CONSOLE


def test_a_file_that_is_not_json_says_so(at):
    run(at.file_uploader(key="upload").upload("notes.json", b"{not json", "application/json"))
    assert texts(at.error).startswith("notes.json: not JSON (")


def test_the_tool_allowlist_reaches_the_loop(at):
    run(at.multiselect(key="tools").unselect("add"))
    click(at, "Step")
    refused = screen(at).record.tool_runs[0]
    assert refused.is_error and refused.content == "error: add is not available to this agent (its tools: word_count)"
    assert console(at)[0] == f'turn 1: add {{"a": 2, "b": 3}} -> {refused.content}' == screen(at).console[0]
    assert "✗ add" in run_graph_dot(at)


def test_the_turn_limit_reaches_the_loop(at):
    pick_script(at, "runaway")
    run(at.number_input(key="max_turns").set_value(3))
    click(at, "Run to end")
    assert console(at)[-2:] == ["result: stopped: no answer after 3 turns", "messages sent each turn: 1, 3, 5"]
    assert "stopped: no answer after 3 turns" in page_text(at)
    assert status(at).startswith("turn 3 of 3")


def test_max_tokens_and_the_system_prompt_go_into_the_request(at):
    run(at.number_input(key="max_tokens").set_value(77))
    run(at.text_area(key="system").input("Be brief."))
    click(at, "Step")
    request = at.session_state["sandbox"].run.request(at.session_state["sandbox"].run.records[0])
    assert request["max_tokens"] == 77 and request["system"] == "Be brief."
    assert at.session_state["sandbox"].script_model().requests[0]["max_tokens"] == 77


def test_a_typed_task_is_the_first_message_and_the_fake_replies_stay(at):
    run(at.text_area(key="task").input("What is 10 + 20?"))
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.messages[0] == {"role": "user", "content": "What is 10 + 20?"}
    assert console(at)[1] == "result: 2 + 3 is 5."  # the script is what it is


def test_settings_changed_mid_run_wait_for_reset(at):
    click(at, "Step")
    run(at.text_area(key="task").input("Something else"))
    assert "The settings changed since this run started" in texts(at.info)
    assert at.session_state["sandbox"].run.task == "What is 2 + 3?"
    click(at, "Reset")
    assert at.session_state["sandbox"].run.task == "Something else"
    assert "The settings changed" not in texts(at.info)


def test_the_slider_looks_back_without_losing_the_run(at):
    pick_script(at, "three_tool_chain")
    for _ in range(3):
        click(at, "Step")
    assert turn_looked_at(at) == 3
    look_back(at, 1)
    assert console(at) == [console(at)[0], "messages sent each turn: 1"]
    assert "ask1" in run_graph_dot(at) and "ask2" not in run_graph_dot(at)
    assert "next Step" not in run_graph_dot(at)  # looking back: there is no next Step from there
    assert "Looking back at turn 1 of 3" in page_text(at)
    assert at.session_state["sandbox"].run.turn == 3
    click(at, "Step")  # carries on from the latest turn, and shows it
    assert at.session_state["sandbox"].run.turn == 4
    assert turn_looked_at(at) == 4
    assert console(at)[-2].startswith("result: ")


def test_a_model_error_is_shown_and_the_next_step_retries(at):
    pick_script(at, "overloaded_529")
    click(at, "Step")
    click(at, "Step")
    assert "529 overloaded_error: Overloaded" in page_text(at)
    assert "Step tries turn 2 again" in page_text(at)
    assert "ask2_failed1" in run_graph_dot(at)
    click(at, "Step")
    assert console(at)[-2:] == ["result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]
    assert "2 + 3 is 5." in page_text(at).splitlines()  # the answer, said as the outcome
    attempts = screen(at).attempts  # the failed attempt stays on record in the turn's details
    assert [(a.turn, a.status) for a in attempts] == [(2, 529)] and not attempts[0].counted
    assert f"Attempt at turn 2 failed first: {attempts[0].error}" in page_text(at)


def test_a_bad_request_is_shown_as_one(at):
    data = {"replies": [{"stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}}]}] * 2
        + [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}], "tools": ["add"]}
    run(at.file_uploader(key="upload").upload("dup.json", json.dumps(data).encode(), "application/json"))
    click(at, "Run to end")
    assert "bad request: messages" in page_text(at)
    assert "unique" in page_text(at)


def test_the_loop_view_lights_the_lessons_lines_with_the_values_they_saw(at):
    click(at, "Step")
    open_tab(at, "The loop")
    diagram = loop_diagram_dot(at)
    assert 'tools [label="run every tool call" color="#f08c00"' in diagram
    code = lesson_code(at)
    source = (ROOT / "examples" / "correct_loop.py").read_text()
    assert "def</span> <span class=\"ls-def\">run_agent" in code and code.count('class="ls-line') == len(
        source.splitlines())  # the lesson's own file, every line of it
    lit = "\n".join(lit_lines(code))
    assert "result = run_tool(block)" in lit and "ran 1 call: add" in lit
    assert "stop_reason = &quot;tool_use&quot;" in lit and "len(messages) = 3" in lit
    assert "return &quot;&quot;.join" not in lit  # the answer's return is not on turn 1's path
    click(at, "Step")
    lit = "\n".join(lit_lines(lesson_code(at)))
    assert "stop_reason = &quot;end_turn&quot;" in lit and "returns &quot;2 + 3 is 5.&quot;" in lit
    assert "run_tool" not in lit
    look_back(at, 1)  # looking back moves the lit lines too
    lit = "\n".join(lit_lines(lesson_code(at)))
    assert "run_tool" in lit and "turn = 1" in lit and "stop_reason = &quot;end_turn" not in lit


def test_the_loop_view_shows_a_refused_request_at_the_call_that_raised(at):
    upload(at, "twice.json", ONE_ID_TWICE)
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.records[-1].path == "bad_request"
    open_tab(at, "The loop")
    lit = "\n".join(lit_lines(lesson_code(at)))
    assert "model.create(messages)" in lit and "the request was refused: run_agent would raise here" in lit
    assert "the sandbox catches it and ends the run" in lit and "messages.append" not in lit


def test_the_loop_view_tells_the_sandbox_s_harness_from_run_agent(at):
    open_tab(at, "The loop")
    caption = page_text(at)
    assert "with the lines that run before the first turn lit, and the value they set beside them" in caption
    assert "before the first turn went through" not in caption
    pick_script(at, "overloaded_529")
    click(at, "Step")
    click(at, "Step")  # turn 2's first attempt: 529
    open_tab(at, "The loop")
    lit = "\n".join(lit_lines(lesson_code(at)))
    assert ("the call failed: run_agent would raise here (the exception leaves it); the sandbox keeps the run, "
            "and the next Step tries again") in lit
    assert "the failed attempt at turn 2 went through lit" in page_text(at)
    diagram = loop_diagram_dot(at)
    assert "subgraph cluster_sandbox" in diagram and "the sandbox, not run_agent" in diagram
    assert re.search(r'failed \[label="failed: the next\\nStep tries again" color="#f08c00"[^]]*style="filled,dashed"',
                     diagram)


def test_the_messages_tab_marks_the_new_messages(at):
    click(at, "Step")
    open_tab(at, "Messages")
    cards = "".join(html_shown(at))
    assert cards.count("ls-msg ls-") == 3
    player = player_shows(at)  # the player marks the new ones, and draws the array's JSON from the frames
    assert player.frame["new"] == [1, 3]
    assert player.frames["messages"][:player.frame["messages"]] == at.session_state["sandbox"].run.messages
    run(at.toggle(key="openai_side").set_value(True))
    run(at.toggle(key="openai_side").set_value(False))
    assert player_shows(at) is not None  # the player again, once Chat Completions is off


def test_a_long_run_keeps_old_messages_to_one_line_each(at):
    pick_script(at, "runaway")
    click(at, "Run to end")
    open_tab(at, "Messages")
    cards = "".join(html_shown(at))
    assert cards.count("ls-msg ls-") == 1 + 6  # the task, then the latest three turns in full
    player = player_shows(at)  # the ones before, a line each, in the player's expander
    lines = player.frames["lines"][1:player.frame["first_card"]]
    assert len(lines) == 74 and lines[0] == '[1] assistant: tool_use toolu_01 add {"a": 1, "b": 1}'


def test_the_export_tab_offers_messages_run_and_graph(at):
    click(at, "Step")
    open_tab(at, "Export")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Messages (JSON)", "The whole run: state and turn records (JSON)", "Run graph (DOT)",
                      "This run as a web page (HTML): steps in any browser, no server, no network",
                      "This run as a FakeModel script (JSON): replays it offline, without the key"]


def test_the_exported_script_replays_the_run(at, tmp_path):
    from agent.real.record import script_json
    from agent.scripts import load_script
    from agent.summary import console_lines

    click(at, "Run to end")
    path = tmp_path / "recorded.json"
    path.write_text(script_json(at.session_state["sandbox"].run))  # what the download button carries
    assert load_script(path).expected_output == console_lines(at.session_state["sandbox"].run) == REFERENCE_CONSOLE


def test_before_any_reply_the_export_says_why_there_is_no_script(at):
    open_tab(at, "Export")
    assert len(at.get("download_button")) == 3
    assert "The run as a FakeModel script: this run has no replies yet" in texts(at.caption)
    assert "This run as a web page: Step once first" in texts(at.caption)


def test_real_without_an_adapter_or_key_explains_and_stays_harmless(at):
    click(at, "Step")
    before = at.session_state["sandbox"].run.to_json()
    run(at.radio(key="model_choice").set_value("Real"))
    assert at.text_input(key="api_key").proto.type == at.text_input(key="api_key").proto.PASSWORD
    box = at.session_state["sandbox"]
    assert box.run.turn == 0 and box.run_model == "Real"  # a new run, its own
    assert "The settings changed" not in texts(at.info)
    click(at, "Step")
    warned = texts(at.warning)
    assert "needs an API key" in warned
    assert at.session_state["sandbox"].run.turn == 0 and at.session_state["sandbox"].run.records == []
    assert before != at.session_state["sandbox"].run.to_json()


def test_a_step_refused_for_want_of_a_key_is_not_taken_when_the_key_comes(at, stand_in):
    """The Step was clicked once and said why it could not go: typing the key then is no second click."""
    run(at.radio(key="model_choice").set_value("Real"))
    click(at, "Step")
    assert "needs an API key" in texts(at.warning)
    choose_real(at, stand_in.base_url, "sk-ant-api03-typed-after-the-warning")
    assert at.session_state["sandbox"].run.turn == 0 and stand_in.requests_answered == 0
    click(at, "Step")
    assert at.session_state["sandbox"].run.turn == 1 and stand_in.requests_answered == 1


def test_two_sessions_are_two_sandboxes(monkeypatch):
    first = run(full_page(30))
    second = run(full_page(30))
    click(first, "Run to end")
    assert console(second) == [NO_TURN_YET]


# ---- the real model, through the real anthropic SDK over HTTP, against the local stand-in server


@pytest.fixture
def stand_in():
    """`agent.real.server.StandInServer` playing the reference script on 127.0.0.1 and a free port."""
    import threading

    from agent.real.server import StandInServer
    server = StandInServer(load_script("add_then_answer"), host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_the_real_model_steps_through_the_sdk_against_a_local_server(at, stand_in):
    choose_real(at, stand_in.base_url)
    assert at.session_state["sandbox"].run_model == "Real"  # nothing had happened yet, so the choice applied at once
    click(at, "Step")
    click(at, "Step")
    assert console(at) == REFERENCE_CONSOLE
    assert "2 + 3 is 5." in page_text(at)
    assert stand_in.requests_answered == 2
    usage = next(c.value for c in at.caption if c.value.startswith("Usage: "))
    assert "input tokens" in usage and "output tokens" in usage  # usage, and no cost: the local stand-in is free
    assert "$" not in usage


def test_the_api_key_never_reaches_the_page_or_the_run(at, stand_in):
    secret = "sk-ant-api03-NEVER-SHOW-THIS-0123456789"
    choose_real(at, stand_in.base_url, secret)
    click(at, "Run to end")
    assert console(at) == REFERENCE_CONSOLE
    field = at.text_input(key="api_key")
    assert field.proto.type == field.proto.PASSWORD  # the person's own field, masked, is the one place it is
    shown = everything_shown(at)
    assert len(shown) > 30 and any("2 + 3 is 5." in text for text in shown)
    assert "Key in use: from the field above." in texts(at.caption)
    assert not any(secret in text for text in shown)
    assert secret not in at.session_state["sandbox"].run.to_json()


def test_a_real_model_that_cannot_be_reached_is_a_failed_attempt_not_a_crash(at):
    from browser_support import free_port
    choose_real(at, f"http://127.0.0.1:{free_port()}")
    click(at, "Step")
    error = at.error[0].value
    assert error.startswith("**The model failed:**") and "Step tries turn 1 again" in error
    assert at.session_state["sandbox"].run.turn == 0 and at.session_state["sandbox"].run.error
    assert "Step tries turn 1 again" in error


def test_a_request_the_check_refuses_can_be_sent_anyway(at):
    """The stand-in server plays a script whose first reply names one tool_use id twice: the second request breaks a
    rule (ids are unique within a message; the API lets a later turn reuse one, so real-API mode does too)."""
    import threading

    from agent.real.server import StandInServer
    from agent.scripts import parse_script
    call = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}}
    script = parse_script({"tools": ["add"], "replies": [{"stop_reason": "tool_use", "content": [call, call]}]
                           + [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}]})
    server = StandInServer(script, host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        choose_real(at, server.base_url)
        click(at, "Run to end")
        refused = at.error[0].value
        assert "bad request" in refused and "unique" in refused
        assert server.requests_answered == 1  # the second request never left
        assert "refused before any model read it" in refused
        click(at, "Send it to the model anyway")
        assert server.requests_answered == 2
        assert at.session_state["sandbox"].run.records[-1].error.startswith("400 invalid_request_error: ")
        assert len([r for r in at.session_state["sandbox"].run.records if r.path == "bad_request"]) == 1
        said = at.error[0].value  # the headline now tells what happened: the service itself refused it
        assert "refused before any model read it" not in said and "The service received the request" in said
        assert not [b for b in at.button if b.label == "Send it to the model anyway"]  # it was sent
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_an_overload_from_the_server_is_shown_and_the_next_step_tries_again(at):
    """The page's SDK client does not retry by itself: the 529 is a failed attempt on the page, then Step goes on."""
    import threading

    from agent.real.server import StandInServer
    from agent.scripts import load_script
    server = StandInServer(load_script("overloaded_529"), host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        choose_real(at, server.base_url)
        click(at, "Step")
        click(at, "Step")
        assert at.session_state["sandbox"].run.turn == 1
        assert "529 overloaded\\_error" in at.error[0].value and "Step tries turn 2 again" in at.error[0].value
        click(at, "Step")
        assert at.session_state["sandbox"].run.result == "2 + 3 is 5."
        client = at.session_state["sandbox"].page.real_client[1]
        assert client.max_retries == 0 and server.requests_answered == 3
    finally:
        server.shutdown()
        server.server_close()
