"""`check-request --mode real-api` agrees with the API on requests other projects recorded (tests/recorded/)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agent.real.server import running_server
from agent.scripts import parse_script

CORPUS = Path(__file__).resolve().parent / "recorded" / "messages_exchanges.yaml"
EXCHANGES = yaml.safe_load(CORPUS.read_text())["exchanges"]
ROOT = Path(__file__).resolve().parent.parent


def check_request(exchange):
    args = [sys.executable, "-m", "agent", "check-request", "-", "--mode", "real-api",
            "--api-version", exchange["version"]]
    if "count_tokens" in exchange["endpoint"]:
        args.append("--count-tokens")
    for beta in exchange.get("betas", []):  # the anthropic-beta header as recorded
        args += ["--beta", beta]
    if "beta=true" in exchange["endpoint"]:  # the SDK's client.beta.messages
        args.append("--beta-endpoint")
    return subprocess.run(args, input=json.dumps(exchange["body"]), capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


def test_each_exchange_names_its_source():
    for exchange in EXCHANGES:
        assert {"repo", "path", "commit"} <= exchange["source"].keys() and exchange["status"] in (200, 400, 404)


@pytest.mark.parametrize("exchange", EXCHANGES, ids=[e["name"] for e in EXCHANGES])
def test_check_request_agrees_with_the_recorded_status(exchange):
    done = check_request(exchange)
    accepted_by_the_api = exchange["status"] == 200 or "differs_on_purpose" in exchange
    assert (done.returncode == 0) == accepted_by_the_api, done.stdout + done.stderr
    assert not done.stderr
    if not accepted_by_the_api and exchange.get("error"):  # refused: in the API's words, where it recorded them
        assert exchange["error"] in done.stdout.splitlines()[0], done.stdout


def test_the_corpus_covers_each_kind_of_exchange_the_issue_names():
    bodies = [json.dumps(exchange["body"]) for exchange in EXCHANGES]
    for needle in ('"signature"', '"mcp_tool_use"', '"context_management"', '"output_format"', '"compaction"',
                   '"role": "system"', '"server_tool_use"', '"budget_tokens"', '"redacted_thinking"'):
        assert sum(needle in body for body in bodies) >= 1, needle
    assert len(EXCHANGES) >= 40 and len({e["source"]["repo"] for e in EXCHANGES}) >= 8


def test_the_strict_stand_in_answers_an_unknown_model_as_the_api_did():
    [exchange] = [e for e in EXCHANGES if e["status"] == 404 and "count_tokens" in e["endpoint"]]
    script = parse_script({"title": "t", "task": "t", "replies": [
        {"stop_reason": "end_turn", "content": [{"type": "text", "text": "hi"}]}]})
    import anthropic

    with running_server(script, mode="real-api", strict_models=True) as server:
        client = anthropic.Anthropic(api_key="sk-test", base_url=server.base_url, max_retries=0)
        with pytest.raises(anthropic.NotFoundError) as refused:
            client.messages.count_tokens(**exchange["body"])
    assert refused.value.body["error"] == {"type": "not_found_error", "message": exchange["error"]}
