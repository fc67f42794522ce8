"""The in-process transport and the stand-in server answer the same bad bodies with the same words.

A test that moves from one to the other (`stand_in_api(..., in_process=True)`) must not see its failure
change: each body goes over real HTTP to the server and through an `httpx2` client to the transport.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from agent.real.server import running_server
from agent.real.testing import FakeModelTransport
from agent.scripts import load_script

TASK = {"role": "user", "content": "What is 2 + 3?"}
BAD_BODIES: dict[str, Any] = {
    "no max_tokens": {"model": "m", "messages": [TASK]},
    "no model": {"max_tokens": 64, "messages": [TASK]},
    "no messages": {"model": "m", "max_tokens": 64},
    "nothing": {},
    "max_tokens a string": {"model": "m", "max_tokens": "64", "messages": [TASK]},
    "max_tokens null": {"model": "m", "max_tokens": None, "messages": [TASK]},
    "max_tokens below 0": {"model": "m", "max_tokens": -1, "messages": [TASK]},
    "a field the API has not": {"model": "m", "max_tokens": 64, "messages": [TASK], "response_format": {}},
    "messages not a list": {"model": "m", "max_tokens": 64, "messages": "hi"},
    "no message": {"model": "m", "max_tokens": 64, "messages": []},
    "system a number": {"model": "m", "max_tokens": 64, "messages": [TASK], "system": 3},
    "tools not a list": {"model": "m", "max_tokens": 64, "messages": [TASK], "tools": {}},
    "the assistant first": {"model": "m", "max_tokens": 64, "messages": [{"role": "assistant", "content": "hi"}]},
    "a list, not an object": [TASK],
}
HEADERS = {"x-api-key": "any", "anthropic-version": "2023-06-01"}


def answered(client: httpx2.Client, body: Any) -> tuple[int, Any]:
    response = client.post("/v1/messages", json=body, headers=HEADERS)
    return response.status_code, response.json()["error"]


@pytest.fixture(scope="module")
def server_url():
    with running_server(load_script("add_then_answer")) as server:
        yield server.base_url


@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_a_bad_body_gets_the_same_words_from_both(case, server_url):
    body = BAD_BODIES[case]
    with httpx2.Client(base_url=server_url) as http:
        over_http = answered(http, body)
    transport = FakeModelTransport(load_script("add_then_answer"))
    with httpx2.Client(transport=transport, base_url="http://stand-in.invalid") as http:
        in_process = answered(http, body)
    assert in_process == over_http
    assert over_http[0] == 400 and over_http[1]["type"] == "invalid_request_error"


def test_a_missing_field_is_said_missing():
    transport = FakeModelTransport(load_script("add_then_answer"))
    with httpx2.Client(transport=transport, base_url="http://stand-in.invalid") as http:
        status, error = answered(http, BAD_BODIES["no max_tokens"])
    assert (status, error["message"]) == (400, "max_tokens: Field required")
