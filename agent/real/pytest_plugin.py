"""A pytest plugin (entry point `pytest11`): the stand-in Messages API as a fixture for any agent's tests.

    def test_my_agent(stand_in_api):
        api = stand_in_api("add_then_answer")          # or a script file's path, or replies=[...]
        my_agent(base_url=api.base_url).run("What is 2 + 3?")
        assert api.requests[0].body["messages"][0]["role"] == "user"

`stand_in_api(...)` serves a script on a free loopback port (`in_process=True`: through an httpx transport, no
socket) and returns a `ServedScript`: `base_url`, `requests` (each a `HeardRequest`: the body, the status, the
answer) and `client()`. Every request is checked by the API's rules. One that fails a check is answered with the
API's 400, and, swallowed by the agent or not, fails the test with the API's own words; a test that expects
one passes `check_at_end=False`. The servers stop when the test ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest

_SERVED = pytest.StashKey[list[Any]]()


@pytest.fixture
def stand_in_api(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Serve a FakeModel script as the Messages API: `stand_in_api(script_or_name, *, replies=None, mode="lesson",
    in_process=False, check_at_end=True, faults=(), order_only=False, strict_models=False, **script_settings)`
    returns a ServedScript (`base_url`, `requests`); `faults` are `agent.real.ServerFault`s (a 429 with retry-after,
    a 529, a delay, a dropped stream); a recording (`python -m agent record`) fails a request that differs from the
    recorded one unless `order_only=True`; `strict_models=True` answers a model the SDK does not list with the
    API's 404 (`model: NAME`) instead of playing any name."""
    from agent.real.testing import script_of, serve_script  # the engine only for a test that uses the fixture

    served_here = request.node.stash.setdefault(_SERVED, [])
    with ExitStack() as stack:
        def serve(script: Any = None, *, replies: list[dict[str, Any]] | None = None, mode: str = "lesson",
                  in_process: bool = False, check_at_end: bool = True, faults: Any = (), order_only: bool = False,
                  strict_models: bool = False, **settings: Any) -> Any:
            served = stack.enter_context(serve_script(script_of(script, replies=replies, **settings), mode=mode,
                                                      in_process=in_process, faults=faults, order_only=order_only,
                                                      strict_models=strict_models))
            served.check_at_end = check_at_end
            served_here.append(served)
            return served

        yield serve


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """After the test body: a request the stand-in refused fails the test in the API's words, even if the agent
    swallowed the 400; when the test failed anyway, the words are added to its error."""
    try:
        result = yield
    except BaseException as failure:
        for served in item.stash.get(_SERVED, []):
            if served.failed_checks:
                try:
                    served.check()
                except AssertionError as said:
                    failure.add_note(str(said))
        raise
    for served in item.stash.get(_SERVED, []):
        if served.check_at_end:
            served.check()
    return result
