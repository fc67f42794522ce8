"""The sandbox's keys in Debian's Chromium: each key does what its button does, and none while typing."""

from browser_support import status_line, wait_for_idle
from test_browser import chromium, no_exception_box, sandbox, sandbox_page, shot  # noqa: F401  pytest fixtures


def press(page, key: str) -> None:
    page.keyboard.press(key)
    wait_for_idle(page)


def status(page) -> str:
    return status_line(page).inner_text()


def test_each_key_presses_its_button_and_is_shown_on_the_page(sandbox_page):  # noqa: F811
    from playwright.sync_api import expect

    page = sandbox_page
    expect(page.get_by_text("Keys: S Step · Space play or pause · E Run to end · R Reset")).to_be_visible()
    page.get_by_role("heading", name="Loop Sandbox").click()  # the focus on the page, in no text box
    press(page, "s")
    expect(page.get_by_text("turn 1 of 40")).to_be_visible()
    press(page, "s")
    expect(page.get_by_text("turn 2 of 40")).to_be_visible()
    expect(page.get_by_text("result: 2 + 3 is 5.")).to_be_visible()
    press(page, "ArrowLeft")
    expect(page.get_by_text("Looking back at turn 1 of 2")).to_be_visible()
    press(page, "Home")
    expect(page.get_by_text("Looking back at turn 0 of 2")).to_be_visible()
    press(page, "ArrowRight")
    expect(page.get_by_text("Looking back at turn 1 of 2")).to_be_visible()
    press(page, "ArrowLeft")
    press(page, "ArrowLeft")
    expect(page.get_by_text("Looking back at turn 0 of 2")).to_be_visible()
    press(page, "ArrowLeft")  # no turn before the first: it stays
    expect(page.get_by_text("Looking back at turn 0 of 2")).to_be_visible()
    press(page, "End")
    expect(page.get_by_text("Looking back at turn")).to_have_count(0)
    press(page, "r")
    expect(page.get_by_text("turn 0 of 40")).to_be_visible()
    press(page, "e")
    expect(page.get_by_text("turn 2 of 40")).to_be_visible()
    expect(page.get_by_text("result: 2 + 3 is 5.")).to_be_visible()
    shot(page, "11-keys.png")
    no_exception_box(page)


def test_typing_in_the_task_box_presses_no_button(sandbox_page):  # noqa: F811
    from playwright.sync_api import expect

    page = sandbox_page
    task = page.get_by_label("Task")
    task.click()
    page.keyboard.type(" seriously")
    page.keyboard.press("End")
    wait_for_idle(page)
    expect(task).to_have_value("What is 2 + 3? seriously")
    expect(page.get_by_text("turn 0 of 40")).to_be_visible()
    no_exception_box(page)


def test_undo_and_redo_keys_take_an_action_back_and_again(sandbox_page):  # noqa: F811
    from playwright.sync_api import expect

    page = sandbox_page
    page.get_by_role("heading", name="Loop Sandbox").click()
    press(page, "e")
    expect(page.get_by_text("turn 2 of 40")).to_be_visible()
    press(page, "r")  # the player's Reset, in the browser
    expect(page.get_by_text("turn 0 of 40")).to_be_visible()
    press(page, "z")
    expect(page.get_by_text("turn 2 of 40")).to_be_visible()
    press(page, "y")
    expect(page.get_by_text("turn 0 of 40")).to_be_visible()
    no_exception_box(page)


def test_keys_still_work_after_the_slider_or_a_view_was_clicked(sandbox_page):  # noqa: F811
    """Point 11: a click leaves the focus on the slider or the view picker; the keys must not die there."""
    from playwright.sync_api import expect

    page = sandbox_page
    page.get_by_role("heading", name="Loop Sandbox").click()
    press(page, "s")
    expect(page.get_by_text("turn 1 of 40")).to_be_visible(timeout=15_000)
    press(page, "s")
    expect(page.get_by_text("turn 2 of 40")).to_be_visible(timeout=15_000)
    page.get_by_role("slider", name="Turn looked at").focus()  # where a click on it leaves the focus
    wait_for_idle(page)
    press(page, "r")  # a letter reaches its button
    expect(page.get_by_text("turn 0 of 40")).to_be_visible(timeout=15_000)
    press(page, "e")
    expect(page.get_by_text("turn 2 of 40")).to_be_visible(timeout=15_000)
    page.get_by_test_id("stMain").get_by_role("radio", name="Messages", exact=True).click()
    wait_for_idle(page)
    press(page, "ArrowLeft")  # a turn back, not the view to the left
    expect(page.get_by_text("Looking back at turn 1 of 2")).to_be_visible()
    expect(page.get_by_test_id("stMain").get_by_role("radio", name="Messages", exact=True)).to_be_checked()
    no_exception_box(page)


FRAME = """() => { const main = document.querySelector('[data-testid="stMain"]');
  const frame = getComputedStyle(main, '::before');
  return {focused: document.activeElement === main, visible: main.matches(':focus-visible'),
          drawn: frame.display !== 'none' && frame.content !== 'none' && frame.boxShadow !== 'none',
          rule: [...document.styleSheets].some((sheet) => { try { return [...sheet.cssRules].some(
            (rule) => rule.cssText.includes('stMain"]:focus-visible::before')); } catch { return false; } }),
          tag: main.tagName, frame: [frame.display, frame.content, frame.boxShadow].join(' | ')}; }"""
RING = """(button) => { const style = getComputedStyle(button);
  return [style.outlineStyle, style.outlineWidth, style.outlineColor, style.boxShadow].join(' '); }"""


def test_keys_after_a_click_on_the_background_draw_no_frame_and_a_tabbed_button_keeps_its_ring(chromium, sandbox):  # noqa: F811
    """A click on the page's background gives the focus to the main area; a key then makes that focus 'visible',
    and Streamlit would frame the whole area in grey. No frame; a button reached by Tab still shows its ring."""
    from browser_support import open_page

    for width in (1440, 900):
        page = open_page(chromium, sandbox.url, width=width)
        try:
            page.mouse.click(width - 40, 1250)  # the background, right of the content, below the sidebar's end
            press(page, "s")
            press(page, "ArrowLeft")
            frame = page.evaluate(FRAME)
            assert frame["focused"] and frame["visible"]  # the case that drew the frame
            assert not frame["drawn"], frame  # `rule`: whether the page's style sheet holds the rule that hides it
            shot(page, f"no-main-frame-{width}.png")

            step = page.get_by_role("button", name="Step")
            at_rest = step.evaluate(RING)
            step.focus()
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Tab")  # back onto Step by the keyboard: the focus is visible
            assert step.evaluate("(button) => button.matches(':focus-visible')")
            assert step.evaluate(RING) != at_rest
            no_exception_box(page)
        finally:
            page.context.close()
