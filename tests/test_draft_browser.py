"""The exercise's draft in Debian's Chromium: typed, it survives a reload and a new tab; Start over clears it.

The draft lives in the browser's localStorage (`agent/page/draft.py`); each reload here is a new Streamlit
session, so what the editor holds afterwards came back from the browser. Uses the browser fixtures of
`test_browser.py`; skipped as they are when there is no browser.
"""

import pytest
from browser_support import wait_for_idle
from test_browser import chromium, no_exception_box, sandbox, shot  # noqa: F401  pytest fixtures and helpers
from test_exercise import CORRECT_LOOP

from agent.exercise import starter_source
from agent.page.draft import KEPT_WORDS, MAX_DRAFT_CHARS, RESTORED_WORDS, STORAGE_KEY, TOO_LARGE_WORDS, UNKEPT_WORDS

TYPED = "# typed just before the reload\n"
STORED = f"() => window.localStorage.getItem({STORAGE_KEY!r})"


def exercise_page(page, url: str):
    """The exercise opened at its own address in `page`, its editor once the page has drawn it."""
    from playwright.sync_api import expect

    page.goto(f"{url}/write-your-loop")
    editor = page.get_by_role("textbox", name="my_loop.py")
    expect(editor).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    return editor


def stored_is(page, text: str) -> None:
    """Until the browser's storage holds `text` as the draft (written a moment after the last keystroke)."""
    page.wait_for_function(f"(text) => window.localStorage.getItem({STORAGE_KEY!r}) === text", arg=text,
                           timeout=10_000)


def type_at_the_end(page, editor, text: str) -> None:
    editor.focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def test_a_typed_draft_survives_a_reload_and_a_new_tab_and_start_over_clears_it(chromium, sandbox, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    context = chromium.new_context(viewport={"width": 1440, "height": 1400})
    try:
        page = context.new_page()
        editor = exercise_page(page, sandbox.url)
        expect(page.get_by_test_id("loopDraftLine")).to_have_text(KEPT_WORDS)
        assert page.evaluate(STORED) is None  # the starter, unchanged, is no draft
        editor.fill(CORRECT_LOOP)
        type_at_the_end(page, editor, TYPED)  # still in the box, not sent to the server: the browser has it
        draft = CORRECT_LOOP + TYPED
        page.reload()

        editor = page.get_by_role("textbox", name="my_loop.py")
        expect(editor).to_have_value(draft, timeout=30_000)
        expect(page.get_by_text(RESTORED_WORDS)).to_be_visible()
        wait_for_idle(page)
        shot(page, "draft-restored-1440.png")
        page.get_by_role("button", name="Check my loop").click()  # the server's copy is the draft, not the starter
        expect(page.get_by_text("scripts pass: well done.")).to_be_visible(timeout=60_000)
        with page.expect_download() as download:
            page.get_by_role("button", name="Download my_loop.py").click()
        saved = tmp_path / "my_loop.py"
        download.value.save_as(saved)
        assert saved.read_text() == draft
        no_exception_box(page)

        other = context.new_page()  # a new tab: a session of its own, the same browser's storage
        other_editor = exercise_page(other, sandbox.url)
        expect(other_editor).to_have_value(draft, timeout=30_000)
        other.close()

        page.set_viewport_size({"width": 900, "height": 1400})
        wait_for_idle(page)
        shot(page, "draft-line-900.png")
        page.get_by_role("button", name="Start over").click()
        page.get_by_role("button", name="Replace my code with the starter").click()
        expect(editor).to_have_value(starter_source(), timeout=30_000)
        wait_for_idle(page)
        assert page.evaluate(STORED) is None
        page.reload()
        editor = page.get_by_role("textbox", name="my_loop.py")
        expect(editor).to_be_visible(timeout=30_000)
        wait_for_idle(page)
        expect(editor).to_have_value(starter_source())
        expect(page.get_by_text(RESTORED_WORDS)).to_have_count(0)
        no_exception_box(page)
    finally:
        context.close()


def test_a_browser_that_cannot_store_the_draft_says_so_and_the_page_goes_on(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    context = chromium.new_context(viewport={"width": 1440, "height": 1400})
    # A full quota, as the browser reports it: every write of the draft throws.
    context.add_init_script("Storage.prototype.setItem = function () { "
                            "throw new DOMException('full', 'QuotaExceededError'); };")
    try:
        page = context.new_page()
        editor = exercise_page(page, sandbox.url)
        type_at_the_end(page, editor, TYPED)
        expect(page.get_by_test_id("loopDraftLine")).to_have_text(UNKEPT_WORDS)
        shot(page, "draft-unkept-1440.png")
        editor.blur()
        wait_for_idle(page)
        expect(editor).to_have_value(starter_source() + TYPED)  # the editor and the server's copy go on as before
        no_exception_box(page)
    finally:
        context.close()



def test_a_draft_over_the_limit_is_not_kept_and_the_line_says_so(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    context = chromium.new_context(viewport={"width": 1440, "height": 1400})
    try:
        page = context.new_page()
        editor = exercise_page(page, sandbox.url)
        type_at_the_end(page, editor, TYPED)
        stored_is(page, starter_source() + TYPED)
        editor.fill("#" * (MAX_DRAFT_CHARS + 1))
        line = page.get_by_test_id("loopDraftLine")
        expect(line).to_have_text(TOO_LARGE_WORDS)
        assert page.evaluate(STORED) is None  # no older, smaller draft left to come back in its place
        editor.fill(CORRECT_LOOP)  # back under the limit: kept again
        expect(line).to_have_text(KEPT_WORDS)
        stored_is(page, CORRECT_LOOP)
        no_exception_box(page)
    finally:
        context.close()


@pytest.mark.parametrize("width", [1440, 900])
def test_one_click_on_sandbox_after_typing_in_the_editor_opens_the_sandbox(chromium, sandbox, width):  # noqa: F811
    """The editor's text goes to the server as it loses focus, a moment after the click has asked for the
    other page: that click must still open the Sandbox, once, and the text must still be the server's."""
    from playwright.sync_api import expect

    context = chromium.new_context(viewport={"width": width, "height": 1300})
    try:
        page = context.new_page()
        editor = exercise_page(page, sandbox.url)
        type_at_the_end(page, editor, TYPED)
        stored_is(page, starter_source() + TYPED)  # the typing has settled: only the blur is left to send it
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Sandbox").click()
        expect(page.get_by_role("heading", name="Loop Sandbox")).to_be_visible(timeout=10_000)
        expect(page.get_by_role("button", name="Step")).to_be_visible()
        wait_for_idle(page)
        expect(page.get_by_role("heading", name="Loop Sandbox")).to_be_visible()  # and it stays there
        assert "write-your-loop" not in page.url
        no_exception_box(page)
        shot(page, f"draft-then-sandbox-{width}.png")

        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Write your loop").click()
        editor = page.get_by_role("textbox", name="my_loop.py")
        expect(editor).to_have_value(starter_source() + TYPED, timeout=30_000)  # the server had the text
        assert "write-your-loop" in page.url
    finally:
        context.close()


def test_one_click_on_write_your_loop_after_typing_a_task_opens_the_exercise(chromium, sandbox):  # noqa: F811
    """The same on the sandbox's own text boxes: a task typed, then one click away, and the task is kept."""
    from browser_support import open_page
    from playwright.sync_api import expect

    page = open_page(chromium, sandbox.url)
    try:
        task = page.get_by_label("Task")
        task.fill("What is 20 + 22?")  # still in the box: the click that moves away sends it
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Write your loop").click()
        expect(page.get_by_role("textbox", name="my_loop.py")).to_be_visible(timeout=10_000)
        wait_for_idle(page)
        expect(page.get_by_role("heading", name="Write your loop")).to_be_visible()
        assert "write-your-loop" in page.url
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Sandbox").click()
        expect(page.get_by_label("Task")).to_have_value("What is 20 + 22?", timeout=30_000)
        no_exception_box(page)
    finally:
        page.context.close()
