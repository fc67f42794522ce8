"""Record a run as a script, replay it offline with the FakeModel, and get the same console output."""

import json
import socket
import subprocess
import sys

import pytest

from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.real.anthropic_model import AnthropicModel
from agent.real.record import record_script, save_recording, script_json
from agent.real.server import running_server
from agent.scripts import ScriptError, builtin_names, load_script, parse_script, parse_script_text
from agent.summary import console_lines
from helpers import reply, text, tool_use

ANSWER = reply("end_turn", text("2 + 3 is 5."), usage={"input_tokens": 50, "output_tokens": 8})
CALL = reply("tool_use", {"type": "thinking", "thinking": "add", "signature": "c2ln/+=="}, tool_use("toolu_01"))


def played(*replies, **settings):
    return parse_script({"replies": list(replies), "task": "What is 2 + 3?", "tools": ["add", "upper"],
                         "system": "Use the tools.", "max_turns": 7, **settings}, name="played")


def start(script):
    return RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)


def replay(script):
    state = start(script)
    run_to_end(state, FakeModel(script))
    return console_lines(state)


def step_to_the_end(state, model, limit=20):
    """Step as the page's Step button does: a failed attempt is simply stepped again."""
    while not state.done and len(state.records) < limit:
        step(state, model)


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_run_replays_from_its_recording(name):
    original = load_script(name)
    state = start(original)
    run_to_end(state, FakeModel(original))
    recorded = record_script(state, name="again")
    assert recorded.expected_output == console_lines(state) == replay(recorded)


def test_a_real_run_with_a_failed_attempt_replays_from_the_command_line(tmp_path):
    script = played(CALL, {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}, ANSWER)
    with running_server(script) as server:
        state = start(script)
        step_to_the_end(state, AnthropicModel("k", model="claude-sonnet-5", base_url=server.base_url, max_retries=0))
    path = tmp_path / "recorded.json"
    recorded = save_recording(state, path)
    done = subprocess.run([sys.executable, "-m", "agent", "run", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.splitlines() == console_lines(state) == recorded.expected_output
    assert "turn 2: model error: 529 overloaded_error: Overloaded" in done.stdout
    data = json.loads(path.read_text())
    assert (data["task"], data["system"], data["tools"], data["max_turns"]) == (
        "What is 2 + 3?", "Use the tools.", ["add", "upper"], 7)
    assert data["replies"][0]["content"][0] == CALL["content"][0]  # the signature kept, byte for byte
    assert data["replies"][2]["usage"] == {"input_tokens": 50, "output_tokens": 8}
    assert "claude-sonnet-5" in data["about"]


def test_an_error_event_in_the_middle_of_a_stream_is_recorded_and_replayed_as_one():
    broken = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded", "mid_stream": True}}
    script = played(CALL, broken, ANSWER)
    with running_server(script) as server:
        state = start(script)
        step_to_the_end(state, AnthropicModel("k", base_url=server.base_url, max_retries=0))
    recorded = record_script(state)
    assert recorded.replies[1]["error"]["status"] == 200 and recorded.replies[1]["error"]["mid_stream"] is True
    assert console_lines(state)[1].startswith("turn 2: model error: 200 overloaded_error: Overloaded (it arrived")
    assert replay(recorded) == console_lines(state)


def test_a_run_that_ended_in_a_bad_request_replays_to_the_same_end():
    too_long = {"error": {"status": 400, "type": "invalid_request_error",
                          "message": "prompt is too long: 210000 tokens > 200000 maximum"}}
    script = played(CALL, too_long)
    with running_server(script) as server:
        state = start(script)
        run_to_end(state, AnthropicModel("k", base_url=server.base_url, max_retries=0))
    recorded = record_script(state)
    assert state.result == "bad request: prompt is too long: 210000 tokens > 200000 maximum"
    assert replay(recorded) == console_lines(state) == recorded.expected_output


def test_a_run_stopped_by_a_failure_that_is_not_retried_replays_to_the_same_stop():
    script = played(CALL, {"error": {"status": 401, "type": "authentication_error", "message": "invalid x-api-key"}})
    with running_server(script) as server:
        state = start(script)
        run_to_end(state, AnthropicModel("k", base_url=server.base_url, max_retries=0))
    recorded = record_script(state)
    assert console_lines(state)[-2].startswith("result: model error: 401 authentication_error: invalid x-api-key")
    assert replay(recorded) == console_lines(state) == recorded.expected_output


def test_a_failure_without_a_status_is_left_out_and_said_so():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{probe.getsockname()[1]}"
    script = played(CALL, ANSWER)
    state = start(script)
    step(state, FakeModel(script))
    step(state, AnthropicModel("k", base_url=nowhere, max_retries=0))  # no connection: no status to replay
    with running_server(script) as server:
        step_to_the_end(state, AnthropicModel("k", base_url=server.base_url, max_retries=0))
    recorded = record_script(state)
    assert state.result == "2 + 3 is 5." and len(recorded.replies) == 2
    assert "1 failed attempt(s) without a status" in recorded.about and recorded.expected_output is None
    assert replay(recorded)[-2:] == ["result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]


def test_an_unfinished_run_is_recorded_without_a_promise_about_its_output():
    script = played(CALL, ANSWER)
    state = start(script)
    step(state, FakeModel(script))
    recorded = record_script(state)
    assert len(recorded.replies) == 1 and recorded.expected_output is None and "after turn 1" in recorded.about


def test_a_run_with_no_replies_cannot_be_recorded():
    with pytest.raises(ScriptError, match="no replies yet"):
        record_script(start(played(ANSWER)))


def test_the_download_text_is_a_script_file():
    script = played(CALL, ANSWER)
    state = start(script)
    run_to_end(state, FakeModel(script))
    loaded = parse_script_text(script_json(state, name="mine"), name="mine")
    assert loaded.replies == record_script(state).replies and loaded.expected_output == console_lines(state)


def test_run_record_on_the_command_line_prints_the_same_and_writes_a_replayable_script(tmp_path):
    path = tmp_path / "search.json"
    plain = subprocess.run([sys.executable, "-m", "agent", "run", "two_file_search"], capture_output=True,
                           text=True, timeout=60)
    recording = subprocess.run([sys.executable, "-m", "agent", "run", "two_file_search", "--record", str(path)],
                               capture_output=True, text=True, timeout=60)
    replayed = subprocess.run([sys.executable, "-m", "agent", "run", str(path)], capture_output=True, text=True,
                              timeout=60)
    assert plain.stdout == recording.stdout == replayed.stdout and recording.stderr == ""
    assert "\n".join(load_script(path).expected_output) + "\n" == plain.stdout


def test_run_record_to_a_place_that_cannot_be_written_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "agent", "run", "add_then_answer", "--record",
                           str(tmp_path / "missing" / "x.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert "cannot write it" in done.stderr and "Traceback" not in done.stderr
