"""A request that names a beta is checked against the SDK's beta types; a beta field without a beta is refused."""

import json
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest
from sdk_schema import BETA_SCHEMA_FILE, read_sdk_beta_schema, schema_text

from agent.api.requests import check_body

ROOT = Path(__file__).resolve().parent.parent
CONTEXT_MANAGEMENT = "context-management-2025-06-27"
EDITS = {"edits": [{"type": "clear_tool_uses_20250919"}]}
REPLIES = [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "hi"}]}] * 3
ASK = {"model": "claude-sonnet-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}


def test_the_beta_schema_file_is_what_the_installed_sdk_says():
    assert BETA_SCHEMA_FILE.read_text() == schema_text(read_sdk_beta_schema()), (
        "run `python tests/sdk_schema.py`, read `git diff agent/api/api_beta_schema.json`, and commit it")


def test_beta_blocks_and_fields_pass_only_when_the_request_names_a_beta():
    mcp = {**ASK, "mcp_servers": [{"type": "url", "url": "https://mcp.example", "name": "docs"}], "messages": [
        {"role": "user", "content": "look it up"},
        {"role": "assistant", "content": [
            {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "search", "server_name": "docs", "input": {}},
            {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "content": "found"}]},
        {"role": "user", "content": "thanks"}]}
    assert check_body(mcp, "real-api", betas=("mcp-client-2025-04-04",)) == []
    refused = check_body(mcp, "real-api")
    assert refused[0] == "mcp_servers: Extra inputs are not permitted"
    assert refused[1].startswith("messages.1.content.0: Input tag 'mcp_tool_use' found using 'type' does not match")
    for mode in ("lesson", "real-api"):  # the rules between messages hold under a beta as without one
        assert check_body({**ASK, "messages": []}, mode, betas=(CONTEXT_MANAGEMENT,)) == [
            "messages: at least one message is required"]


def test_check_request_takes_the_betas_a_request_names():
    body = json.dumps({**ASK, "context_management": EDITS})

    def check(*options):
        return subprocess.run([sys.executable, "-m", "agent", "check-request", "-", "--mode", "real-api", *options],
                              input=body, capture_output=True, text=True, cwd=ROOT, timeout=120)

    assert check("--beta", CONTEXT_MANAGEMENT).stdout == "ok\n"
    assert check().stdout == "bad request: context_management: Extra inputs are not permitted\n"
    assert check("--beta-endpoint").stdout == "bad request: context_management: Extra inputs are not permitted\n"
    body = json.dumps({**ASK, "messages": [*ASK["messages"], {"role": "system", "content": "Be brief."}]})
    assert check("--beta-endpoint").stdout == "ok\n"  # `?beta=true` takes a system message with no beta named
    assert check().stdout.startswith('bad request: messages: Unexpected role "system".')


@pytest.mark.parametrize("in_process", [False, True])
def test_the_stand_in_serves_the_sdks_beta_client_and_refuses_a_beta_field_without_its_beta(stand_in_api,
                                                                                            in_process):
    api = stand_in_api(replies=REPLIES, in_process=in_process, mode="real-api", check_at_end=False)
    client = api.client(max_retries=0)
    reply = client.beta.messages.create(**ASK, context_management=EDITS, betas=[CONTEXT_MANAGEMENT])
    assert reply.content[0].text == "hi"
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.beta.messages.create(**ASK, context_management=EDITS)
    assert refused.value.body["error"] == {"type": "invalid_request_error",
                                           "message": "context_management: Extra inputs are not permitted"}
    assert client.messages.create(**ASK).content[0].text == "hi"  # and the plain client as before
    assert [heard.status for heard in api.requests] == [200, 400, 200]


@pytest.mark.parametrize("in_process", [False, True])
def test_the_stand_in_takes_a_system_message_on_the_beta_endpoint_with_no_beta_named(stand_in_api, in_process):
    # pydantic/pydantic-ai's mid-conversation system cassettes: `?beta=true`, no beta named. SDK 2.14 keeps
    # `beta=true` as an inner qualifier and no longer puts it in the URL; older SDKs (those recordings) did, so the
    # test asks for the query itself.
    from agent.api.rules import SYSTEM_ROLE

    api = stand_in_api(replies=REPLIES, in_process=in_process, mode="real-api", check_at_end=False)
    client = api.client(max_retries=0)
    messages = [*ASK["messages"], {"role": "system", "content": [{"type": "text", "text": "Be brief."}]}]
    beta_endpoint = {"extra_query": {"beta": "true"}}
    assert client.beta.messages.create(**{**ASK, "messages": messages}, **beta_endpoint).content[0].text == "hi"
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(**{**ASK, "messages": messages})  # the plain endpoint knows no system message
    assert refused.value.body["error"]["message"] == SYSTEM_ROLE
    with pytest.raises(anthropic.BadRequestError) as refused:  # nor does `?beta=true` alone unlock a beta field
        client.beta.messages.create(**ASK, context_management=EDITS, **beta_endpoint)
    assert refused.value.body["error"]["message"] == "context_management: Extra inputs are not permitted"
    assert [heard.status for heard in api.requests] == [200, 400, 400]
