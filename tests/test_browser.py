"""The page in a real browser: `streamlit run sandbox_app.py` on 127.0.0.1, driven in Debian's Chromium.

Without /usr/bin/chromium these tests skip and say how to install it; with
CI=true they fail instead, because CI must run them. Screenshots go to
test-artifacts/; the reference run's picture for the README, docs/screenshot.png,
is written when it is missing or when UPDATE_SCREENSHOT=1.
"""

import json
import os

import pytest
from browser_support import CHROMIUM, INSTALL_HINT, ROOT, SandboxServer, launch_chromium, open_page, wait_for_idle

ARTIFACTS = ROOT / "test-artifacts"
IN_CI = os.environ.get("CI", "").lower() == "true"


def unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: the browser tests must run). {INSTALL_HINT}")
    pytest.skip(f"{reason}. {INSTALL_HINT}")


@pytest.fixture(scope="module")
def chromium():
    if not CHROMIUM.exists():
        unavailable(f"no browser at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        try:
            browser = launch_chromium(playwright)
        except Exception as exc:  # a browser that will not start is the same news as no browser
            unavailable(f"Chromium did not start: {exc}")
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def sandbox():
    with SandboxServer() as server:
        yield server


@pytest.fixture
def sandbox_page(chromium, sandbox):
    """A fresh page of its own browser context (its own session); pytest-playwright's `page` is not used."""
    page = open_page(chromium, sandbox.url)
    yield page
    page.context.close()


def step(page) -> None:
    page.get_by_role("button", name="Step").click()
    wait_for_idle(page)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def no_exception_box(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0


def test_stepping_the_reference_script_in_chromium(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    expect(page.get_by_label("Task")).to_have_value("What is 2 + 3?")
    shot(page, "01-start.png")
    step(page)
    expect(page.get_by_text('turn 1: add {"a": 2, "b": 3} -> 5')).to_be_visible()
    expect(page.get_by_text("turn 1 of 40")).to_be_visible()
    shot(page, "02-turn-1.png")
    step(page)
    expect(page.get_by_text("messages sent each turn: 1, 3")).to_be_visible()
    expect(page.get_by_text("result: 2 + 3 is 5.")).to_be_visible()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("2 + 3 is 5.")
    graph = page.locator('[data-testid="stGraphVizChart"] svg').first
    expect(graph).to_be_visible()
    labels = graph.locator("text").all_text_contents()
    assert {"task", "ask 1", "ask 2", "answer", "2 + 3 is 5."} <= set(labels)
    assert 'add {"a": 2, "b": 3}' in labels and "→ 5" in labels
    no_exception_box(page)
    page.wait_for_timeout(300)  # let the graph settle before the picture for the README
    shot(page, "03-answer.png")
    readme_picture = ROOT / "docs" / "screenshot.png"
    if os.environ.get("UPDATE_SCREENSHOT") or not readme_picture.exists():  # a test run leaves git clean
        readme_picture.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(readme_picture), clip={"x": 0, "y": 0, "width": 1440, "height": 1140})

    page.get_by_role("tab", name="The loop").click()
    wait_for_idle(page)
    expect(page.locator(".ls-anchor")).to_contain_text('record.branch = "answer"')
    expect(page.get_by_text("◀ turn 2")).to_be_visible()
    shot(page, "04-the-loop.png")
    page.get_by_role("tab", name="Messages").click()
    wait_for_idle(page)
    expect(page.locator(".ls-msg")).to_have_count(4)
    shot(page, "05-messages.png")
    no_exception_box(page)


def test_two_browser_tabs_are_two_sandboxes(sandbox_page, sandbox):
    from playwright.sync_api import expect

    first = sandbox_page
    second = first.context.new_page()  # a second tab of the same browser window: same cookies, own session
    second.goto(sandbox.url)
    wait_for_idle(second)
    step(first)
    step(first)
    expect(first.get_by_text("turn 2 of 40")).to_be_visible()
    expect(second.get_by_text("turn 0 of 40")).to_be_visible()
    step(second)
    expect(second.get_by_text("turn 1 of 40")).to_be_visible()
    expect(first.get_by_text("turn 2 of 40")).to_be_visible()
    second.reload()  # reloading a tab starts a new session; the other tab's run stays
    wait_for_idle(second)
    expect(second.get_by_text("turn 0 of 40")).to_be_visible()
    expect(first.get_by_text("turn 2 of 40")).to_be_visible()


def test_a_bad_script_file_is_refused_in_words_and_the_run_stays(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    step(page)
    bad = json.dumps({"replies": [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "name": "add",
                                                                           "input": {}}]}]})
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        files=[{"name": "broken.json", "mimeType": "application/json", "buffer": bad.encode()}])
    wait_for_idle(page)
    expect(page.get_by_text('broken.json: replies[0].content[0]: tool_use needs an "id"')).to_be_visible()
    expect(page.get_by_text("turn 1 of 40")).to_be_visible()
    no_exception_box(page)
    shot(page, "06-bad-file.png")
    step(page)
    expect(page.get_by_text("result: 2 + 3 is 5.")).to_be_visible()


def test_writing_a_loop_in_the_editor_and_checking_it(chromium, sandbox):
    """Type a correct loop and see every script pass; type one that drops the reply and see the refusal."""
    from playwright.sync_api import expect
    from test_exercise import APPEND_REPLY, CORRECT_LOOP, with_bug

    from agent.exercise import exercise_script_names, starter_source

    page = open_page(chromium, sandbox.url, height=2000)  # tall enough for the editor and the open failure
    try:
        page.get_by_test_id("stSidebar").get_by_text("Write your loop").click()
        editor = page.get_by_role("textbox", name="my_loop.py")
        expect(editor).to_have_value(starter_source(), timeout=30_000)
        wait_for_idle(page)
        count = len(exercise_script_names())

        editor.fill(CORRECT_LOOP)  # the text area commits as it loses focus to the button
        page.get_by_role("button", name="Check my loop").click()
        expect(page.get_by_text(f"{count} of {count} scripts pass: well done.")).to_be_visible(timeout=30_000)
        wait_for_idle(page)
        expect(page.get_by_test_id("stExpander")).to_have_count(count)
        no_exception_box(page)
        shot(page, "07-loop-passes.png")

        editor.fill(with_bug((APPEND_REPLY, "")))
        page.get_by_role("button", name="Check my loop").click()
        first = page.get_by_test_id("stExpander").filter(has_text="add_then_answer")  # opened: the first failure
        refused = first.locator(".lx-bad")
        expect(refused).to_contain_text("refused here", timeout=30_000)
        wait_for_idle(page)
        expect(refused).to_be_visible()
        expect(refused).to_contain_text("messages[1]")
        expect(refused).to_contain_text("tool_result")
        expect(first.locator(".lx-good")).to_contain_text("tool_use")
        expect(first.get_by_text("Request 2 was refused")).to_be_visible()
        expect(first.get_by_text("This looks like a classic mistake")).to_be_visible()
        expect(page.get_by_text(f"{count} of {count} scripts pass")).to_have_count(0)
        no_exception_box(page)
        shot(page, "08-loop-refused.png")

        with page.expect_download() as download:
            page.get_by_role("button", name="Download my_loop.py").click()
        assert download.value.suggested_filename == "my_loop.py"
        assert open(download.value.path(), encoding="utf-8").read() == with_bug((APPEND_REPLY, ""))
    finally:
        page.context.close()


def test_the_real_switch_runs_a_task_against_the_stand_in_server(sandbox_page, sandbox):
    """The same loop through the real SDK and real HTTP, as it would run against Anthropic; the key shows nowhere."""
    from playwright.sync_api import expect

    from agent.real.server import running_server
    from agent.scripts import load_script

    canary = "sk-ant-api03-CANARY-must-not-show-4242"
    logged: list[str] = []
    page = sandbox_page
    with running_server(load_script("add_then_answer"), log=logged.append) as server:
        page.get_by_text("Real", exact=True).click()
        wait_for_idle(page)
        page.get_by_role("textbox", name="API key").fill(canary)
        page.get_by_role("textbox", name="Base URL").fill(server.base_url)
        page.get_by_role("textbox", name="Base URL").press("Enter")
        wait_for_idle(page)
        page.get_by_role("button", name="Run to end").click()
        wait_for_idle(page)
        expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("2 + 3 is 5.")
        expect(page.get_by_text('turn 1: add {"a": 2, "b": 3} -> 5')).to_be_visible()
        expect(page.get_by_text("messages sent each turn: 1, 3")).to_be_visible()
        expect(page.get_by_text("412 input tokens")).to_be_visible()  # the usage the server reported
        expect(page.get_by_text("Key in use: from the field above.")).to_be_visible()
        shot(page, "09-real-model.png")
        no_exception_box(page)
        assert server.requests_answered == 2
    assert canary not in page.locator("body").inner_text()
    assert canary not in sandbox.log.read_text()
    assert logged and not any(canary in line for line in logged)
