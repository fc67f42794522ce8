"""The exercise's draft kept in the browser, on the server's side: what the page gives the browser's script,
and what it makes of a draft the script sends back. Each test is one browser tab's conversation with a real
`streamlit run` over its websocket (`streamlit_session.py`), the draft sent as the keeper's script sends it:
the component's trigger, the editor's text sent beside it as a browser sends every widget's value.

The browser's side (localStorage, a reload, a new tab) is in `test_draft_browser.py`.
"""

import asyncio
import json

import pytest
from browser_support import SandboxServer
from streamlit_session import StreamlitSession
from test_exercise import CORRECT_LOOP

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


EDITOR = "my_loop.py"
KEEPER = "loop_sandbox_draft"
CHECK = "Check my loop"
START_OVER = "Replace my code with the starter"


@pytest.fixture(scope="module")
def server():
    with SandboxServer() as running:
        yield running


class Tab:
    """One tab on Write your loop: each call is one run, with what the browser sends for it."""

    def __init__(self, session: StreamlitSession) -> None:
        self.session = session

    @classmethod
    async def open(cls, url: str) -> "Tab":
        return cls(await StreamlitSession.open(url, page="write-your-loop", query_string=""))

    def keeper(self) -> dict:
        """The draft keeper's data on this run of the page."""
        return json.loads(self.session.components[KEEPER][1])

    def editor(self) -> str:
        return self.session.values[EDITOR]

    async def again(self) -> None:
        await self.session.rerun(self.session.held(EDITOR))

    async def type(self, text: str) -> None:
        await self.session.rerun(self.session.type(EDITOR, text))

    async def press(self, label: str) -> None:
        states, fragment = self.session.press(label)
        await self.session.rerun(self.session.held(EDITOR) + states, fragment)

    async def browser_sends(self, draft: object) -> None:
        """The keeper's script sends the draft it stored, beside the editor's text as the browser holds it."""
        await self.session.rerun(self.session.held(EDITOR) + self.session.trigger(KEEPER, "draft", draft))


def in_a_tab(server, steps) -> None:
    async def visit() -> None:
        tab = await Tab.open(server.url)
        try:
            await steps(tab)
        finally:
            await tab.session.close()
    asyncio.run(visit())


def test_a_fresh_session_asks_the_browser_for_its_draft_of_this_page(server):
    async def steps(tab: Tab) -> None:
        data = tab.keeper()
        assert data["storage_key"] == STORAGE_KEY == "loop-sandbox:my_loop.py"
        assert data["offer"] is True and data["forget"] is None and data["starter"] == starter_source()
        assert data["max_chars"] == MAX_DRAFT_CHARS and data["editor"] == ".st-key-loop_code textarea"
        assert tab.editor() == starter_source()
        await tab.type(MINE)
        assert tab.keeper()["offer"] is False  # the editor holds the learner's code: no draft replaces it
        assert tab.keeper()["session"] == data["session"]
    in_a_tab(server, steps)


def test_a_draft_sent_back_is_in_the_editor_said_once_and_is_what_check_checks(server):
    async def steps(tab: Tab) -> None:
        await tab.browser_sends(CORRECT_LOOP)
        assert tab.editor() == CORRECT_LOOP
        assert tab.session.toasts == [RESTORED_WORDS]
        await tab.again()
        assert tab.session.toasts == []  # said once
        await tab.press(CHECK)
        assert any(kind == "SUCCESS" and "scripts pass: well done" in words  # the starter fails every script
                   for kind, words in tab.session.alerts), tab.session.alerts
    in_a_tab(server, steps)


def test_a_draft_that_arrives_after_the_learner_typed_leaves_their_code(server):
    async def steps(tab: Tab) -> None:
        await tab.type(MINE)
        await tab.browser_sends(CORRECT_LOOP)
        assert tab.editor() == MINE and tab.session.toasts == []
    in_a_tab(server, steps)


@pytest.mark.parametrize(("sent", "words"), [
    (["not", "text"], "it is not text"),
    ("x" * (MAX_DRAFT_CHARS + 1), f"{MAX_DRAFT_CHARS + 1:,} characters, over {MAX_DRAFT_CHARS:,}"),
    ("print('\ud800')\n", "it holds broken characters"),
])
def test_a_draft_the_server_cannot_take_is_refused_in_words_and_the_starter_stays(server, sent, words):
    async def steps(tab: Tab) -> None:
        await tab.browser_sends(sent)
        assert tab.editor() == starter_source()
        [said] = tab.session.toasts
        assert words in said and "could not be restored" in said
    in_a_tab(server, steps)


def test_start_over_tells_the_browser_to_forget_the_draft_with_a_new_token_each_time(server):
    async def steps(tab: Tab) -> None:
        await tab.browser_sends(MINE)
        await tab.press(START_OVER)
        first = tab.keeper()["forget"]
        assert tab.editor() == starter_source() and first
        await tab.again()
        assert tab.keeper()["forget"] == first  # the same Start over, however often the page is drawn
        await tab.type(MINE)
        await tab.press(START_OVER)
        assert tab.keeper()["forget"] not in (None, first)
    in_a_tab(server, steps)


def test_a_restored_draft_drops_a_check_of_the_starter(server):
    async def steps(tab: Tab) -> None:
        await tab.press(CHECK)  # the starter, checked: it fails, and says why
        assert any(kind == "ERROR" for kind, _ in tab.session.alerts) and tab.session.expanders
        await tab.browser_sends(CORRECT_LOOP)
        assert tab.editor() == CORRECT_LOOP
        assert not any(kind == "ERROR" for kind, _ in tab.session.alerts) and not tab.session.expanders
    in_a_tab(server, steps)


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
