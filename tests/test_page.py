"""The page's controls, driven through Streamlit's AppTest (the script runs for real, without a browser)."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from agent.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_CONSOLE = ['turn 1: add {"a": 2, "b": 3} -> 5', "result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]


@pytest.fixture
def at(monkeypatch) -> AppTest:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30))


def run(target) -> AppTest:
    """Run the page after an interaction (`target` is the AppTest or the widget just used)."""
    at = target.run()
    assert not at.exception, [e.value for e in at.exception]  # never a Streamlit exception box
    return at


def click(at: AppTest, label: str) -> AppTest:
    return run(next(b for b in at.button if b.label == label).click())


def console(at: AppTest) -> list[str]:
    return next(c.value for c in at.code if "messages sent each turn" in c.value).splitlines()


def run_graph_dot(at: AppTest) -> str:
    return next(g.proto.spec for g in at.get("graphviz_chart") if g.proto.spec.startswith("digraph run"))


def status(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def pick_script(at: AppTest, name: str) -> AppTest:
    return run(at.selectbox(key="script").set_value(name))


def open_tab(at: AppTest, label: str) -> AppTest:
    at.session_state["tab"] = label
    return run(at)


def texts(elements) -> str:
    return "\n".join(e.value for e in elements)


def test_the_page_opens_on_the_reference_script_with_the_fake_model(at):
    assert at.radio(key="model_choice").value == "Fake"
    assert at.selectbox(key="script").value == "add_then_answer"
    assert at.text_area(key="task").value == "What is 2 + 3?"
    assert "It does not read the task" in texts(at.caption)
    assert at.multiselect(key="tools").value == ["add", "word_count"]
    assert status(at).startswith("turn 0 of 40")
    assert console(at) == ["messages sent each turn: "]
    assert "next Step" in run_graph_dot(at)


def test_stepping_the_reference_script_reaches_its_answer(at):
    click(at, "Step")
    assert console(at) == ['turn 1: add {"a": 2, "b": 3} -> 5', "messages sent each turn: 1"]
    assert status(at).startswith("turn 1 of 40 · 3 messages")
    assert not at.success
    click(at, "Step")
    assert console(at) == REFERENCE_CONSOLE
    assert "2 \\+ 3 is 5\\." in at.success[0].value
    dot = run_graph_dot(at)
    assert "ask2 -> outcome" in dot and 'label="answer\\n2 + 3 is 5."' in dot
    assert at.session_state["run"].messages[-1] == {"role": "assistant",
                                                    "content": [{"type": "text", "text": "2 + 3 is 5."}]}


def test_step_after_the_end_says_so_and_does_nothing(at):
    click(at, "Run to end")
    before = at.session_state["run"].to_json()
    click(at, "Step")
    assert "The loop has finished (2 + 3 is 5.)" in texts(at.info)
    assert at.session_state["run"].to_json() == before


def test_run_to_end_and_reset(at):
    click(at, "Run to end")
    assert console(at) == REFERENCE_CONSOLE
    click(at, "Reset")
    assert console(at) == ["messages sent each turn: "]
    assert status(at).startswith("turn 0 of 40")
    click(at, "Run to end")  # the same settings, the script from its start
    assert console(at) == REFERENCE_CONSOLE


def test_the_turn_details_show_the_exact_request_and_the_reply(at):
    click(at, "Step")
    click(at, "Step")
    details = texts(at.markdown)
    assert "**Turn 2 sent** 3 messages" in details
    assert "with stop_reason `end_turn`, and the loop returned the answer" in details
    assert "Usage: 412 input tokens · 9 output tokens · a script answers at once" in texts(at.caption)
    assert not any(c.language == "json" for c in at.code)  # built closed: its JSON is made when it is opened
    at.session_state["json_request2"] = True
    run(at)
    request = json.loads(next(c.value for c in at.code if c.language == "json"))
    assert request == {"model": "fake", **at.session_state["run"].request(at.session_state["run"].records[1])}
    assert list(request)[0] == "model" and len(request["messages"]) == 3


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
    before = at.session_state["run"].to_json()
    bad = {"replies": [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "name": "add", "input": {}}]}]}
    run(at.file_uploader(key="upload").upload("broken.json", json.dumps(bad).encode(), "application/json"))
    assert texts(at.error).startswith('broken.json: replies[0].content[0]: tool_use needs an "id"')
    assert "broken.json was not loaded: the run still plays “Add two numbers, then answer”" in texts(at.error)
    assert at.file_uploader(key="upload1").value is None  # the refused file does not stay in the uploader
    assert at.session_state["run"].to_json() == before
    assert at.selectbox(key="script").value == "add_then_answer"
    click(at, "Step")  # the run goes on
    assert console(at) == REFERENCE_CONSOLE


def test_a_file_that_is_not_json_says_so(at):
    run(at.file_uploader(key="upload").upload("notes.json", b"{not json", "application/json"))
    assert texts(at.error).startswith("notes.json: not JSON (")


def test_the_tool_allowlist_reaches_the_loop(at):
    run(at.multiselect(key="tools").unselect("add"))
    click(at, "Step")
    assert console(at)[0] == 'turn 1: add {"a": 2, "b": 3} -> error: add is not available to this agent ' \
                             "(its tools: word_count)"
    assert "✗ add" in run_graph_dot(at)


def test_the_turn_limit_reaches_the_loop(at):
    pick_script(at, "runaway")
    run(at.number_input(key="max_turns").set_value(3))
    click(at, "Run to end")
    assert console(at)[-2:] == ["result: stopped: no answer after 3 turns", "messages sent each turn: 1, 3, 5"]
    assert "stopped: no answer after 3 turns" in at.warning[0].value
    assert status(at).startswith("turn 3 of 3")


def test_max_tokens_and_the_system_prompt_go_into_the_request(at):
    run(at.number_input(key="max_tokens").set_value(77))
    run(at.text_area(key="system").input("Be brief."))
    click(at, "Step")
    request = at.session_state["run"].request(at.session_state["run"].records[0])
    assert request["max_tokens"] == 77 and request["system"] == "Be brief."
    assert at.session_state["fake"].requests[0]["max_tokens"] == 77


def test_a_typed_task_is_the_first_message_and_the_fake_replies_stay(at):
    run(at.text_area(key="task").input("What is 10 + 20?"))
    click(at, "Run to end")
    assert at.session_state["run"].messages[0] == {"role": "user", "content": "What is 10 + 20?"}
    assert console(at)[1] == "result: 2 + 3 is 5."  # the script is what it is


def test_settings_changed_mid_run_wait_for_reset(at):
    click(at, "Step")
    run(at.text_area(key="task").input("Something else"))
    assert "The settings changed since this run started" in texts(at.info)
    assert at.session_state["run"].task == "What is 2 + 3?"
    click(at, "Reset")
    assert at.session_state["run"].task == "Something else"
    assert "The settings changed" not in texts(at.info)


def test_the_slider_looks_back_without_losing_the_run(at):
    pick_script(at, "three_tool_chain")
    for _ in range(3):
        click(at, "Step")
    assert at.slider(key="look_back").value == 3
    run(at.slider(key="look_back").set_value(1))
    assert console(at) == [console(at)[0], "messages sent each turn: 1"]
    assert "ask1" in run_graph_dot(at) and "ask2" not in run_graph_dot(at)
    assert "next Step" not in run_graph_dot(at)  # looking back: there is no next Step from there
    assert "Looking back at turn 1 of 3" in texts(at.caption)
    assert at.session_state["run"].turn == 3
    click(at, "Step")  # carries on from the latest turn, and shows it
    assert at.session_state["run"].turn == 4
    assert at.slider(key="look_back").value == 4
    assert console(at)[-2].startswith("result: ")


def test_a_model_error_is_shown_and_the_next_step_retries(at):
    pick_script(at, "overloaded_529")
    click(at, "Step")
    click(at, "Step")
    assert "**The model failed:** 529 overloaded\\_error: Overloaded" in at.error[0].value
    assert "Step tries turn 2 again" in at.error[0].value
    assert "ask2_failed1" in run_graph_dot(at)
    click(at, "Step")
    assert console(at)[-2:] == ["result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]
    assert at.success  # the answer, and the failed attempt stays on record in the turn's details
    assert [e.value for e in at.error] == ["Attempt at turn 2 failed first: 529 overloaded_error: Overloaded. "
                                           "It was not counted; the next Step tried again."]


def test_a_bad_request_is_shown_as_one(at):
    data = {"replies": [{"stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}}]}] * 2
        + [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}], "tools": ["add"]}
    run(at.file_uploader(key="upload").upload("dup.json", json.dumps(data).encode(), "application/json"))
    click(at, "Run to end")
    assert "bad request: messages" in at.error[0].value.replace("\\", "")
    assert "unique" in at.error[0].value


def lesson_code(at: AppTest) -> str:
    return next(h.proto.body for h in at.get("html") if "ls-code" in h.proto.body)


def lit_lines(code: str) -> list[str]:
    """The text of the lit lines of the lesson's loop, tags stripped."""
    import re
    rows = code.split('<div class="ls-line')[1:]
    return [re.sub(r"<[^>]+>", "", row) for row in rows if row.startswith(" ls-lit")]


def test_the_loop_view_lights_the_lessons_lines_with_the_values_they_saw(at):
    click(at, "Step")
    open_tab(at, "The loop")
    diagram = next(g.proto.spec for g in at.get("graphviz_chart") if g.proto.spec.startswith("digraph loop"))
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
    run(at.slider(key="look_back").set_value(1))  # looking back moves the lit lines too
    lit = "\n".join(lit_lines(lesson_code(at)))
    assert "run_tool" in lit and "turn = 1" in lit and "stop_reason = &quot;end_turn" not in lit


def test_the_loop_view_shows_a_refused_request_at_the_call_that_raised(at):
    run(at.text_area(key="task").input(""))
    click(at, "Step")
    open_tab(at, "The loop")
    lit = "\n".join(lit_lines(lesson_code(at)))
    assert "model.create(messages)" in lit and "raised: the request was refused" in lit
    assert "messages.append" not in lit


def test_the_messages_tab_marks_the_new_messages(at):
    click(at, "Step")
    open_tab(at, "Messages")
    cards = "".join(h.proto.body for h in at.get("html"))
    assert cards.count("ls-msg ls-") == 3 and cards.count(">new<") == 2
    at.session_state["json_messages"] = True
    run(at)
    sent = json.loads(next(c.value for c in at.code if c.language == "json"))
    assert sent == at.session_state["run"].messages


def test_a_long_run_keeps_old_messages_to_one_line_each(at):
    pick_script(at, "runaway")
    click(at, "Run to end")
    open_tab(at, "Messages")
    cards = "".join(h.proto.body for h in at.get("html"))
    assert cards.count("ls-msg ls-") == 1 + 6  # the task, then the latest three turns in full
    at.session_state["older_messages"] = True
    run(at)
    lines = next(c.value for c in at.code if c.value.startswith("[1] ")).splitlines()
    assert len(lines) == 74 and lines[0] == '[1] assistant: tool_use toolu_01 add {"a": 1, "b": 1}'


def test_the_export_tab_offers_messages_run_and_graph(at):
    click(at, "Step")
    open_tab(at, "Export")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Messages (JSON)", "The whole run: state and turn records (JSON)", "Run graph (DOT)",
                      "This run as a FakeModel script (JSON): replays it offline, without the key"]


def test_the_exported_script_replays_the_run(at, tmp_path):
    from agent.loop import console_lines
    from agent.real.record import script_json
    from agent.scripts import load_script

    click(at, "Run to end")
    path = tmp_path / "recorded.json"
    path.write_text(script_json(at.session_state["run"]))  # what the download button carries
    assert load_script(path).expected_output == console_lines(at.session_state["run"]) == REFERENCE_CONSOLE


def test_before_any_reply_the_export_says_why_there_is_no_script(at):
    open_tab(at, "Export")
    assert len(at.get("download_button")) == 3
    assert "The run as a FakeModel script: this run has no replies yet" in texts(at.caption)


def test_real_without_an_adapter_or_key_explains_and_stays_harmless(at):
    click(at, "Step")
    before = at.session_state["run"].to_json()
    run(at.radio(key="model_choice").set_value("Real"))
    assert at.text_input(key="api_key").proto.type == at.text_input(key="api_key").proto.PASSWORD
    assert at.session_state["run"].turn == 0 and at.session_state["run_model"] == "Real"  # a new run, its own
    assert "The settings changed" not in texts(at.info)
    click(at, "Step")
    warned = texts(at.warning)
    assert "needs an API key" in warned
    assert at.session_state["run"].turn == 0 and at.session_state["run"].records == []
    assert before != at.session_state["run"].to_json()


def test_two_sessions_are_two_sandboxes(monkeypatch):
    first = run(AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30))
    second = run(AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30))
    click(first, "Run to end")
    assert console(second) == ["messages sent each turn: "]


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


def walk(node):
    """Every element and block of the page."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def choose_real(at: AppTest, base_url: str, key: str = "") -> AppTest:
    run(at.radio(key="model_choice").set_value("Real"))
    run(at.text_input(key="base_url").input(base_url))
    if key:
        run(at.text_input(key="api_key").input(key))
    return at


def test_the_real_model_steps_through_the_sdk_against_a_local_server(at, stand_in):
    choose_real(at, stand_in.base_url)
    assert at.session_state["run_model"] == "Real"  # nothing had happened yet, so the choice applied at once
    click(at, "Step")
    click(at, "Step")
    assert console(at) == REFERENCE_CONSOLE
    assert "2 \\+ 3 is 5\\." in at.success[0].value
    assert stand_in.requests_answered == 2
    usage = next(c.value for c in at.caption if c.value.startswith("Usage: "))
    assert "input tokens" in usage and "output tokens" in usage and "about $" in usage  # usage and cost


def test_the_api_key_never_reaches_the_page_or_the_run(at, stand_in):
    secret = "sk-ant-api03-NEVER-SHOW-THIS-0123456789"
    choose_real(at, stand_in.base_url, secret)
    click(at, "Run to end")
    assert console(at) == REFERENCE_CONSOLE
    field = at.text_input(key="api_key")
    assert field.proto.type == field.proto.PASSWORD  # the person's own field, masked, is the one place it is
    shown = [str(node.proto) for node in walk(at._tree)
             if hasattr(node, "proto") and getattr(node, "key", None) != "api_key"]
    assert len(shown) > 30 and any("2 + 3 is 5." in text for text in shown)
    assert "Key in use: from the field above." in texts(at.caption)
    assert not any(secret in text for text in shown)
    assert secret not in at.session_state["run"].to_json()


def test_a_real_model_that_cannot_be_reached_is_a_failed_attempt_not_a_crash(at):
    from browser_support import free_port
    choose_real(at, f"http://127.0.0.1:{free_port()}")
    click(at, "Step")
    error = at.error[0].value
    assert error.startswith("**The model failed:**") and "Step tries turn 1 again" in error
    assert at.session_state["run"].turn == 0 and at.session_state["run"].error
    assert "Step tries turn 1 again" in error


def test_a_request_the_check_refuses_can_be_sent_anyway(at):
    """The stand-in server plays a script whose second reply reuses a tool_use id: the third request breaks a rule."""
    import threading

    from agent.real.server import StandInServer
    from agent.scripts import parse_script
    call = {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 1}}
    script = parse_script({"tools": ["add"], "replies": [{"stop_reason": "tool_use", "content": [call]}] * 2
                           + [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}]})
    server = StandInServer(script, host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        choose_real(at, server.base_url)
        click(at, "Run to end")
        refused = at.error[0].value
        assert "bad request" in refused and "unique" in refused
        assert server.requests_answered == 2  # the third request never left
        assert "refused before any model read it" in refused
        click(at, "Send it to the model anyway")
        assert server.requests_answered == 3
        assert at.session_state["run"].records[-1].error.startswith("400 invalid_request_error: ")
        assert len([r for r in at.session_state["run"].records if r.branch == "bad_request"]) == 1
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
        assert at.session_state["run"].turn == 1
        assert "529 overloaded\\_error" in at.error[0].value and "Step tries turn 2 again" in at.error[0].value
        click(at, "Step")
        assert at.session_state["run"].result == "2 + 3 is 5."
        client = at.session_state["real_client"][1]
        assert client.max_retries == 0 and server.requests_answered == 3
    finally:
        server.shutdown()
        server.server_close()


# ---- the page agrees with itself: each of these once said two things at once


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
    run(at.radio(key="model_choice").set_value("Fake"))
    assert not at.error and "The settings changed" not in texts(at.info)
    assert at.session_state["run_model"] == "Fake" and at.session_state["run"].records == []


def test_a_failed_attempt_prints_no_result_while_the_run_goes_on(at):
    pick_script(at, "overloaded_529")
    click(at, "Step")
    click(at, "Step")
    assert "Step tries turn 2 again" in at.error[0].value
    assert not any(line.startswith("result: ") for line in console(at))
    assert console(at)[-2] == "turn 2: model error: 529 overloaded_error: Overloaded"


def test_a_script_that_runs_out_ends_the_run_in_words(at):
    pick_script(at, "runaway")
    run(at.number_input(key="max_turns").set_value(200))
    click(at, "Run to end")
    run_state = at.session_state["run"]
    assert run_state.done and run_state.records[-1].branch == "no_reply" and run_state.turn == 41
    warned = texts(at.warning)
    assert "no reply to give" in warned and "the run ends here" in warned and "tries turn" not in warned
    assert console(at)[-2].startswith("result: stopped: the script 'runaway' has 40 replies")
    click(at, "Step")
    assert "There is nothing left to step" in texts(at.info)


def test_looking_back_to_turn_0_of_a_finished_run_says_what_it_was(at):
    click(at, "Run to end")
    run(at.slider(key="look_back").set_value(0))
    shown = texts(at.markdown)
    assert "No turn has gone through yet" not in shown and "The state before turn 1" in shown
    assert "next Step" not in run_graph_dot(at)
    assert at.success  # the run's answer stays said above


def test_the_whole_graph_toggle_stops_following_the_newest_turn(at):
    pick_script(at, "runaway")
    for _ in range(10):
        click(at, "Step")
    assert graph_box(at).autoscroll and "earlier" in run_graph_dot(at)  # the newest turn in view
    run(at.toggle(key="whole_graph").set_value(True))
    assert "earlier" not in run_graph_dot(at) and "ask1 " in run_graph_dot(at)
    assert not graph_box(at).autoscroll  # the box stays at the top, where the turns brought back are


def graph_box(at: AppTest):
    return next(node.proto for node in walk(at._tree)
                if "-run_graph_box" in str(getattr(getattr(node, "proto", None), "id", "")))


def test_max_tokens_is_said_not_to_shorten_a_script_and_the_toy_keeps_to_it(at):
    run(at.number_input(key="max_tokens").set_value(1))
    assert "cannot shorten them" in texts(at.caption)
    run(at.radio(key="model_choice").set_value("Toy"))
    click(at, "Run to end")
    assert "stopped: max\\_tokens" in at.warning[0].value


def test_usage_is_said_for_the_replies_that_carry_it(at):
    click(at, "Step")
    assert "the script gives this reply no usage · a script answers at once" in texts(at.caption)
    click(at, "Step")
    captions = texts(at.caption)
    assert "In total, over the 1 of 2 replies that reported usage: 412 input tokens" in captions
    assert "the model took 0 ms" not in captions


def test_the_script_list_starts_with_the_lessons_run_and_reads_as_titles(at):
    picker = at.selectbox(key="script")
    assert picker.options[0] == "Add two numbers, then answer"
    assert "pause_turn" not in picker.options
    assert "**Add two numbers, then answer**" in texts(at.caption)  # the whole title, however long


def test_an_empty_task_says_its_refusal_once(at):
    run(at.text_area(key="task").input(""))
    click(at, "Step")
    refusal = at.session_state["run"].records[-1].error
    said = [e.value.replace("\\", "") for e in at.error] + [m.value.replace("\\", "") for m in at.markdown]
    assert len(at.error) == 1 and sum(refusal in text for text in said) == 1
    assert "**No reply came back**: the request was refused" in texts(at.markdown)


# ---- the toy model and the other wire format


def test_the_toy_answers_a_typed_task_offline(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    assert "not a language model" in texts(at.caption)
    run(at.text_area(key="task").input("What is 2 + 3 and 10 + 20?"))
    click(at, "Run to end")
    assert console(at) == ['turn 1: add {"a": 2, "b": 3} -> 5', 'turn 1: add {"a": 10, "b": 20} -> 30',
                           "result: 2 + 3 is 5; 10 + 20 is 30.", "messages sent each turn: 1, 3"]
    assert "toy's estimate" in texts(at.caption)
    open_tab(at, "Export")
    assert len(at.get("download_button")) == 4  # the run as a script, like any other run


def test_the_messages_view_sets_chat_completions_beside_it(at):
    click(at, "Step")
    open_tab(at, "Messages")
    run(at.toggle(key="openai_side").set_value(True))
    pairs = next(h.proto.body for h in at.get("html") if "ls-pairs" in h.proto.body)
    assert "tool_call_id" in pairs and "&quot;arguments&quot;: &quot;{\\&quot;a\\&quot;: 2" in pairs
    assert "finish_reason &quot;tool_calls&quot;" in pairs
    table = texts(at.markdown)
    assert "finish_reason" in table and "one `role: \"tool\"` message per result" in table


def test_an_example_task_for_the_toy_goes_into_the_task_box_and_runs(at):
    run(at.radio(key="model_choice").set_value("Toy"))
    pills = next(e for e in at.sidebar if getattr(e, "key", None) == "toy_example")
    run(pills.set_value("Shout good morning"))
    assert at.text_area(key="task").value == "Shout good morning"
    click(at, "Run to end")
    assert console(at)[:2] == ['turn 1: upper {"text": "good morning"} -> GOOD MORNING', "result: GOOD MORNING"]
