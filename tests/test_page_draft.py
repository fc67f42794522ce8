"""The exercise's draft kept in the browser, on the server's side: what the page gives the browser's script,
and what it makes of a draft the script sends back (through Streamlit's AppTest, as the browser would send it).

The browser's side (localStorage, a reload, a new tab) is in `test_draft_browser.py`.
"""

import json

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from test_exercise import CORRECT_LOOP
from test_page import click, run
from test_page_exercise import at, check, listening_on  # noqa: F401  pytest fixtures

from agent.exercise import starter_source
from agent.page.draft import (
    MAX_DRAFT_CHARS,
    RESTORED_WORDS,
    STORAGE_KEY,
    Restored,
    restored_draft,
)
from views.draft_keeper import DRAFT_JS

MINE = "def run_agent(task, model, max_turns):\n    return 'mine'\n"


def keeper(app) -> dict:
    """The draft keeper's data on this run of the page."""
    [element] = app.get("bidi_component")
    proto = element.proto
    return json.loads(proto.mixed.json if proto.WhichOneof("data") == "mixed" else proto.json)


def browser_sends(app, draft: object):
    """The next run, with the keeper's trigger carrying `draft`, as the browser's script sends its stored draft."""
    [element] = app.get("bidi_component")
    states = WidgetStates()
    states.CopyFrom(app._tree.get_widget_states())
    trigger = states.widgets.add()
    trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{element.proto.id}__events"
    trigger.json_trigger_value = json.dumps([{"event": "draft", "value": draft}])
    app._run(states)  # AppTest has no way in for a component's trigger but the run it starts with
    assert not app.exception, [e.value for e in app.exception]
    return app


def toasts(app) -> list[str]:
    return [toast.proto.body for toast in app.get("toast")]


def test_a_fresh_session_asks_the_browser_for_its_draft_of_this_page(at):  # noqa: F811
    data = keeper(at)
    assert data["storage_key"] == STORAGE_KEY == "loop-sandbox:my_loop.py"
    assert data["offer"] is True and data["forget"] is None and data["starter"] == starter_source()
    assert data["max_chars"] == MAX_DRAFT_CHARS and data["editor"] == ".st-key-loop_code textarea"
    run(at.text_area(key="loop_code").input(MINE))
    assert keeper(at)["offer"] is False  # the editor holds the learner's code: no draft replaces it
    assert keeper(at)["session"] == data["session"]


def test_a_draft_sent_back_is_in_the_editor_said_once_and_is_what_check_checks(at):  # noqa: F811
    browser_sends(at, CORRECT_LOOP)
    assert at.text_area(key="loop_code").value == CORRECT_LOOP
    assert at.session_state["loop_code"] == CORRECT_LOOP
    assert toasts(at) == [RESTORED_WORDS]
    run(at)
    assert toasts(at) == []  # said once
    click(at, "Check my loop")
    assert "scripts pass: well done" in at.success[0].value  # the starter fails every script


def test_a_draft_that_arrives_after_the_learner_typed_leaves_their_code(at):  # noqa: F811
    run(at.text_area(key="loop_code").input(MINE))
    browser_sends(at, CORRECT_LOOP)
    assert at.text_area(key="loop_code").value == MINE and toasts(at) == []


@pytest.mark.parametrize(("sent", "words"), [
    (["not", "text"], "it is not text"),
    ("x" * (MAX_DRAFT_CHARS + 1), f"{MAX_DRAFT_CHARS + 1:,} characters, over {MAX_DRAFT_CHARS:,}"),
    ("print('\ud800')\n", "it holds broken characters"),
])
def test_a_draft_the_server_cannot_take_is_refused_in_words_and_the_starter_stays(at, sent, words):  # noqa: F811
    browser_sends(at, sent)
    assert at.text_area(key="loop_code").value == starter_source()
    [said] = toasts(at)
    assert words in said and "could not be restored" in said


def test_start_over_tells_the_browser_to_forget_the_draft_with_a_new_token_each_time(at):  # noqa: F811
    browser_sends(at, MINE)
    click(at, "Replace my code with the starter")
    first = keeper(at)["forget"]
    assert at.text_area(key="loop_code").value == starter_source() and first
    run(at)
    assert keeper(at)["forget"] == first  # the same Start over, however often the page is drawn
    run(at.text_area(key="loop_code").input(MINE))
    click(at, "Replace my code with the starter")
    assert keeper(at)["forget"] not in (None, first)


def test_a_restored_draft_drops_a_check_of_the_starter(at):  # noqa: F811
    check(at, starter_source())
    assert at.expander
    browser_sends(at, CORRECT_LOOP)
    assert not at.expander and not at.error and "loop_check" not in at.session_state


def test_restored_draft_takes_only_text_in_place_of_the_starter():
    starter = starter_source()
    assert restored_draft(MINE, starter, starter) == Restored(MINE)
    assert restored_draft("", starter, starter) == Restored("")  # an emptied editor comes back empty
    assert restored_draft(starter, starter, starter) == Restored(None)
    assert restored_draft(None, starter, starter) == Restored(None)
    assert restored_draft(MINE, "typed already", starter) == Restored(None)
    assert restored_draft(42, starter, starter).refused.endswith("(it is not text); the editor holds the starter.")


def test_the_draft_script_talks_to_nothing_but_this_page():
    for reaching_out in ("fetch(", "XMLHttpRequest", "WebSocket", "sendBeacon", "://", "import(", "postMessage"):
        assert reaching_out not in DRAFT_JS
