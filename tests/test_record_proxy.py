"""`python -m agent record`: an agent's exchange with an upstream Messages API recorded through a local proxy, then
replayed by the stand-in, which names the first message where a later run's request differs. The upstream here is
the stand-in itself, over real HTTP; the agent is the real SDK's tool runner."""

import json
import subprocess
import sys
import time

import anthropic
import pytest
from test_stand_in_fixture import add, upper, word_count  # the same tools as the fixture's own tests

from agent.real.recorder import KEY_REMOVED, recording_proxy
from agent.real.server import running_server
from agent.scripts import load_script, parse_script_text

SECRET = "sk-ant-api03-recorded-but-never-written-0123456789"


def agent(client: anthropic.Anthropic, task: str, stream: bool = False) -> str:
    final = None
    for message in client.beta.messages.tool_runner(model="claude-sonnet-5", max_tokens=512, stream=stream,
                                                    tools=[add, upper, word_count],
                                                    messages=[{"role": "user", "content": task}]):
        final = message.get_final_message() if stream else message
    return "".join(block.text for block in final.content if block.type == "text")


TASK = "Add 1.5 and 2, upper-case a sentence with the sum, count its words."


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_recording_holds_the_replies_and_no_key_and_replays(tmp_path, stand_in_api, stream):
    out = tmp_path / "recorded.json"
    upstream_script = load_script("three_tool_chain")
    with running_server(upstream_script) as upstream, recording_proxy(upstream.base_url, out) as proxy:
        client = anthropic.Anthropic(base_url=proxy.base_url, api_key=SECRET, max_retries=0)
        answer = agent(client, TASK, stream)
    assert answer == "THE SUM IS 3.5 has 4 words."
    text = out.read_text()
    assert SECRET not in text and "x-api-key" not in text
    script = parse_script_text(text, name="recorded")
    assert [r["content"] for r in script.replies] == [r["content"] for r in upstream_script.replies]
    assert len(script.recorded_requests) == 4 and script.recorded_requests[0][0]["content"] == TASK

    api = stand_in_api(str(out))  # the same agent again: the replay is the recording
    assert agent(api.client(), TASK) == "THE SUM IS 3.5 has 4 words."
    assert [heard.status for heard in api.requests] == [200] * 4


def test_a_replay_names_the_first_message_that_differs_unless_order_only(tmp_path, stand_in_api):
    out = tmp_path / "recorded.json"
    with running_server(load_script("three_tool_chain")) as upstream, recording_proxy(upstream.base_url, out) as proxy:
        agent(anthropic.Anthropic(base_url=proxy.base_url, api_key=SECRET, max_retries=0), TASK)
    api = stand_in_api(str(out), check_at_end=False)
    with pytest.raises(anthropic.BadRequestError):
        agent(api.client(max_retries=0), "Another task altogether")
    words = api.requests[0].error["message"]
    assert words.startswith("the request for reply 1 differs from the recorded one at messages[0]: recorded")
    assert "Another task altogether" in words and api.failed_checks
    loose = stand_in_api(str(out), order_only=True)
    assert agent(loose.client(), "Another task altogether") == "THE SUM IS 3.5 has 4 words."


def test_a_key_the_agent_echoes_into_its_messages_is_cut_out(tmp_path):
    out = tmp_path / "recorded.json"
    with running_server(load_script("add_then_answer")) as upstream, recording_proxy(upstream.base_url, out) as proxy:
        client = anthropic.Anthropic(base_url=proxy.base_url, api_key=SECRET, max_retries=0)
        client.messages.create(model="m", max_tokens=64, messages=[{"role": "user", "content": f"my key {SECRET}"}])
    text = out.read_text()
    assert SECRET not in text and f"my key {KEY_REMOVED}" in text


def test_the_command_line_records_and_says_where(tmp_path):
    out = tmp_path / "cli.json"
    with running_server(load_script("add_then_answer")) as upstream:
        command = [sys.executable, "-m", "agent", "record", "--upstream", upstream.base_url, "--out", str(out),
                   "--port", "0"]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            base_url = line.split("base URL at ", 1)[1].split(";", 1)[0]
            reply = anthropic.Anthropic(base_url=base_url, api_key=SECRET, max_retries=0).messages.create(
                model="m", max_tokens=64, messages=[{"role": "user", "content": "What is 2 + 3?"}])
            assert reply.stop_reason == "tool_use"
            for _ in range(50):
                if out.exists():
                    break
                time.sleep(0.1)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    assert json.loads(out.read_text())["replies"][0]["stop_reason"] == "tool_use"
    bad = subprocess.run([sys.executable, "-m", "agent", "record", "--upstream", "ftp://x", "--out", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--upstream must be an http:// or https:// URL" in bad.stderr
