"""What the page's AppTest modules share: the page fixture and the ways to drive and read it."""

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from agent.page.screen import Screen, screen_of

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_CONSOLE = ['turn 1: add {"a": 2, "b": 3} -> 5', "result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]
NO_TURN_YET = "messages sent each turn: none yet (no turn has gone through)"  # the console before the first Step


def open_sandbox(monkeypatch) -> AppTest:
    """The page, run once, with no API key in sight: what each test module's `at` fixture gives."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(full_page())


def full_page(timeout: float = 30) -> AppTest:
    """The sandbox page with every control, not yet run: opened on a link that says so (a bare first visit is
    the beginner's page, Start here)."""
    at = AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=timeout)
    at.query_params["controls"] = "all"
    return at


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


def screen(at: AppTest) -> Screen:
    """What the page works out to show, as data: a test asserts on it, and that the page drew it."""
    return screen_of(at.session_state["sandbox"])


def pick_script(at: AppTest, name: str) -> AppTest:
    return run(at.selectbox(key="script").set_value(name))


def upload(at: AppTest, name: str, script: dict) -> AppTest:
    """Load a script file into the page's uploader, as a learner does."""
    return run(at.file_uploader(key="upload").upload(name, json.dumps(script).encode(), "application/json"))


# A script whose third request holds one tool_use id twice: the checks refuse it (a bad request at turn 3).
_CALL = {"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add",
                                                 "input": {"a": 1, "b": 2}}]}
ONE_ID_TWICE = {"title": "One id twice", "task": "Add 1 and 2, twice", "replies": [_CALL, _CALL]}


def open_tab(at: AppTest, label: str) -> AppTest:
    at.button_group(key="tab").set_value(label)
    return run(at)


def unescaped(markdown: str) -> str:
    """What a reader sees of markdown whose untrusted parts were escaped (`as_text`): the backslashes gone."""
    return re.sub(r"\\([\\`*_{}\[\]()<>#+\-=.!|~$&])", r"\1", markdown)


def texts(elements) -> str:
    """The text of elements as a reader sees it."""
    return "\n".join(unescaped(e.value) for e in elements)


def walk(node):
    """Every element and block under `node`."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def page_nodes(at: AppTest):
    """Every element and block of the page, through AppTest's public parts: the main area, the sidebar and the
    toasts (the only elements this page puts elsewhere are its style sheet and scripts)."""
    yield from walk(at.main)
    yield from walk(at.sidebar)
    yield from at.toast


def everything_shown(at: AppTest) -> list[str]:
    """Every element's content as sent to the browser (its protobuf), but the person's own key field."""
    return [str(node.proto) for node in page_nodes(at)
            if hasattr(node, "proto") and getattr(node, "key", None) != "api_key"]


def choose_real(at: AppTest, base_url: str, key: str = "") -> AppTest:
    run(at.radio(key="model_choice").set_value("Real"))
    run(at.text_input(key="base_url").input(base_url))
    if key:
        run(at.text_input(key="api_key").input(key))
    return at


def lesson_code(at: AppTest) -> str:
    return next(h.proto.body for h in at.get("html") if "ls-code" in h.proto.body)


def lit_lines(code: str) -> list[str]:
    """The text of the lit lines of the lesson's loop, tags stripped."""
    rows = code.split('<div class="ls-line')[1:]
    return [re.sub(r"<[^>]+>", "", row) for row in rows if row.startswith(" ls-lit")]


def hand_over(at: AppTest, played: str) -> AppTest:
    """The player's actions (`s.s.u`: Step, Step, Undo) taken up by the server as its hand-over takes them, and the
    page's next run: AppTest runs no JavaScript (tests/test_player_page.py clicks the player in Chromium)."""
    assert at.session_state["sandbox"].take_played(played) is None
    return run(at)


def played(at: AppTest, steps: int = 1, until_done: bool = False) -> AppTest:
    """What the player hands the server on Start here (tests/test_browser_start_here.py clicks it in Chromium):
    Steps in the browser, each question answered right, taken up through the Sandbox's `take_played`; then the
    page's next run."""
    box = at.session_state["sandbox"]
    for _ in range(100 if until_done else steps):
        if box.run.done:
            break
        assert box.take_played("s") is None
        while (question := box.open_question()) is not None:
            assert box.take_played(f"p{question.right}") is None
    return run(at)
