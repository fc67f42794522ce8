"""Clicks and keys while a rerun is in flight, in Chromium: none is dropped (issue 33, points 8 and 16).

Streamlit stops a run in flight at its next element when another click asks for a rerun; a button whose work
is done in the run's body after an element (a spinner, say) loses its click that way. The server here imports
the anthropic SDK slowly (a `sitecustomize` that sleeps before the import), so the first Step's run waits for
it, as the first Step after a class's server starts does: a click elsewhere lands while it waits.
"""

import pytest
from browser_support import SandboxServer, open_page, wait_for_idle
from test_browser import chromium, no_exception_box  # noqa: F401  pytest fixtures
from test_browser_change import PANEL, open_panel

SLOW_IMPORT = '''
import os, sys, time

class SlowImport:
    """The anthropic SDK takes this many seconds longer to import: a slow machine's first request."""

    def find_spec(self, name, path=None, target=None):
        if name == "anthropic":
            sys.meta_path.remove(self)
            time.sleep(float(os.environ.get("SLOW_SDK_SECONDS", "6")))
        return None

sys.meta_path.insert(0, SlowImport())
'''


@pytest.fixture
def slow_sdk_server(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(SLOW_IMPORT)
    with SandboxServer(env={"PYTHONPATH": str(tmp_path), "SLOW_SDK_SECONDS": "6"}) as server:
        yield server


STATUS_LINE = '[data-testid="stProgress"], .lsp-status-text'  # the page's status line, or the player's


def running(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="running"]', timeout=10_000)


def test_a_step_clicked_while_the_sdk_loads_survives_a_click_on_the_panel(chromium, slow_sdk_server):  # noqa: F811
    from playwright.sync_api import expect

    page = open_page(chromium, slow_sdk_server.url)
    try:
        page.get_by_role("button", name="Step").click()  # the player's: the server hears of it with the next click
        page.get_by_text(PANEL).click()  # at once, while the SDK still loads: the panel opens on the Step taken
        expect(page.locator(STATUS_LINE).first).to_contain_text("turn 1 of 40", timeout=30_000)
        wait_for_idle(page)
        expect(page.get_by_role("button", name="Fork here, after turn 1")).to_be_visible()
        no_exception_box(page)
    finally:
        page.context.close()


def test_keys_pressed_faster_than_the_page_draws_are_each_taken(chromium, slow_sdk_server):  # noqa: F811
    """Start here: S, then at once 2 (the answer to the question S's run is drawing) and 3 (the next question's):
    each key waits for the run before it, so the answers are given to the questions they were meant for."""
    from playwright.sync_api import expect

    page = chromium.new_context(viewport={"width": 1440, "height": 1300}).new_page()
    try:
        page.goto(slow_sdk_server.url)  # a bare first visit: Start here, predicting each turn
        wait_for_idle(page)
        page.get_by_role("button", name="Step", exact=True).wait_for(timeout=30_000)
        page.get_by_role("heading", name="Loop Sandbox").click()  # the focus on the page, in no text box
        for key in ("s", "2", "3"):
            page.keyboard.press(key)  # no wait: the first run is still in flight (it waits for the SDK)
        expect(page.get_by_text("Right. You said: Run the call")).to_be_visible(timeout=30_000)
        expect(page.get_by_text("Right. You said: 3.")).to_be_visible(timeout=30_000)
        wait_for_idle(page)
        no_exception_box(page)
    finally:
        page.context.close()


def test_five_quick_clicks_on_step_while_the_first_is_in_flight_are_five_steps(chromium, slow_sdk_server):  # noqa: F811
    """Streamlit folds a click into one still waiting for the server: the page holds each until the run before
    it has ended, so each click is a Step."""
    from playwright.sync_api import expect

    page = open_page(chromium, f"{slow_sdk_server.url}/?script=runaway")
    try:
        step = page.get_by_role("button", name="Step", exact=True)
        for _ in range(5):
            step.click(no_wait_after=True)  # the first Step's run waits for the SDK: the others come during it
        expect(page.locator(STATUS_LINE).first).to_contain_text("turn 5 of 40", timeout=40_000)
        page.wait_for_timeout(1000)  # no sixth
        wait_for_idle(page)
        expect(page.locator(STATUS_LINE).first).to_contain_text("turn 5 of 40")
        no_exception_box(page)
    finally:
        page.context.close()


def test_a_double_click_on_step_with_this_fault_is_two_faulty_turns(chromium, slow_sdk_server):  # noqa: F811
    """Change the past's buttons take their turn too, and act in callbacks: the first click's fault waits for
    the SDK before the run draws anything, where no second click can stop it half done."""
    from playwright.sync_api import expect

    page = open_page(chromium, f"{slow_sdk_server.url}/?script=runaway")
    try:
        open_panel(page, "Inject a fault")  # "the tool raises", the first fault, is picked
        button = page.get_by_role("button", name="Step with this fault")
        button.click(no_wait_after=True)
        running(page)
        button.click(no_wait_after=True)
        expect(page.locator(STATUS_LINE).first).to_contain_text("turn 2 of 40", timeout=40_000)
        wait_for_idle(page)
        expect(page.locator(STATUS_LINE).first).to_contain_text("turn 2 of 40")
        no_exception_box(page)
    finally:
        page.context.close()
