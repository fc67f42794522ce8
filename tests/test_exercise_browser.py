"""The `Write your loop` view in Debian's Chromium: Tab indents, verdicts arrive one by one, Cancel stops the check.

Uses the browser fixtures of `test_browser.py` (the page served by `streamlit
run`, Chromium through Playwright); skipped as they are when there is no browser.
"""

import time

from browser_support import open_page, wait_for_idle
from process_support import descendants_of, running
from test_browser import chromium, no_exception_box, sandbox, shot  # noqa: F401  pytest fixtures and helpers
from test_exercise import CORRECT_LOOP, with_bug

from agent.exercise import exercise_script_names

HANGS_AFTER_THE_FIRST = with_bug(("    messages = [", '    while "2 + 3" not in task:\n        pass\n    messages = [')
)


def open_exercise(chromium, url):  # noqa: F811
    from playwright.sync_api import expect

    page = open_page(chromium, url, height=1600)
    page.get_by_test_id("stSidebar").get_by_text("Write your loop").click()
    editor = page.get_by_role("textbox", name="my_loop.py")
    expect(editor).to_be_visible(timeout=30_000)
    wait_for_idle(page)
    return page, editor


def test_tab_indents_in_the_code_box_and_escape_then_tab_moves_on(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, editor = open_exercise(chromium, sandbox.url)
    try:
        editor.fill("line one\nline two")
        editor.focus()
        page.keyboard.press("Control+Home")
        page.keyboard.press("Tab")
        expect(editor).to_have_value("    line one\nline two")
        page.keyboard.press("Control+a")
        page.keyboard.press("Tab")
        expect(editor).to_have_value("        line one\n    line two")
        page.keyboard.press("Shift+Tab")
        expect(editor).to_have_value("    line one\nline two")
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        assert not editor.evaluate("area => area === document.activeElement")
        no_exception_box(page)
    finally:
        page.context.close()


def test_verdicts_arrive_script_by_script_and_cancel_stops_the_check(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, editor = open_exercise(chromium, sandbox.url)
    try:
        editor.fill(HANGS_AFTER_THE_FIRST)
        page.get_by_role("button", name="Check my loop").click()
        first = page.get_by_test_id("stExpander").filter(has_text="add_then_answer")
        expect(first).to_be_visible(timeout=30_000)  # the first verdict is shown while the check still runs
        expect(page.get_by_text("Checking your loop")).to_be_visible()
        shot(page, "09-check-running.png")
        page.get_by_role("button", name="Cancel").click()  # well before the hanging script's own 5 s limit
        expect(page.get_by_text("Check cancelled after 1 script.")).to_be_visible(timeout=10_000)
        wait_for_idle(page)
        expect(page.get_by_test_id("stExpander")).to_have_count(1)
        deadline = time.monotonic() + 5  # the check's process and the learner's, below the page's process
        while running(descendants_of(sandbox.process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert running(descendants_of(sandbox.process.pid)) == []
        no_exception_box(page)

        editor.fill(CORRECT_LOOP)
        page.get_by_role("button", name="Check my loop").click()
        expect(page.get_by_text("scripts pass: well done.")).to_be_visible(timeout=30_000)
    finally:
        page.context.close()


def test_a_new_check_shows_none_of_the_last_checks_verdicts_while_it_runs(chromium, sandbox):  # noqa: F811
    """Checked once (every script passes), then changed and checked again: while the second check runs, the
    screen holds its own verdicts only, not the first check's "pass", faded, below them."""
    from playwright.sync_api import expect

    page, editor = open_exercise(chromium, sandbox.url)
    try:
        editor.fill(CORRECT_LOOP)
        page.get_by_role("button", name="Check my loop").click()
        expect(page.get_by_text("scripts pass: well done.")).to_be_visible(timeout=60_000)
        wait_for_idle(page)
        expect(page.get_by_test_id("stExpander")).to_have_count(len(exercise_script_names()))

        editor.fill(HANGS_AFTER_THE_FIRST)  # passes the first script, then hangs on the second
        page.get_by_role("button", name="Check my loop").click()
        expect(page.get_by_text("Checking your loop: 1 of")).to_be_visible(timeout=30_000)
        verdicts = page.get_by_test_id("stExpander")
        expect(verdicts).to_have_count(1)  # this check's first verdict, and nothing of the last check
        expect(verdicts.first).to_contain_text("add_then_answer")
        expect(page.get_by_text("scripts pass: well done.")).to_have_count(0)
        for width in (1440, 900):
            page.set_viewport_size({"width": width, "height": 1600})
            shot(page, f"check-rerun-{width}.png")
        page.get_by_role("button", name="Cancel").click()
        expect(page.get_by_text("Check cancelled after 1 script.")).to_be_visible(timeout=10_000)
        no_exception_box(page)
    finally:
        page.context.close()
