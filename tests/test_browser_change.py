"""Change the past in Chromium: each fault injected from the page, a fork edited into a refusal, a reply by hand.

The page runs as `streamlit run sandbox_app.py` on 127.0.0.1 and Debian's Chromium drives it (the
fixtures are `tests/test_browser.py`'s). Screenshots go to test-artifacts/.
"""

import re

import pytest
from browser_support import PANEL, status_line, undrawable_characters, wait_for_still
from test_browser import (
    chromium,
    no_exception_box,
    nothing_cut_off,
    sandbox,
    sandbox_page,
    shot,
    step,
    wait_for_idle,
)

FIXTURES = (chromium, sandbox, sandbox_page)  # test_browser.py's fixtures: pytest finds them by these names here
def open_panel(page, tab: str) -> None:
    page.get_by_text(PANEL).click()
    wait_for_idle(page)
    page.get_by_role("tab", name=tab).click()
    wait_for_idle(page)
    wait_for_still(page)


def choose(page, label: str, option: str) -> None:
    """Pick `option` in the Streamlit selectbox labelled `label`."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    wanted = page.get_by_role("option", name=option, exact=True)
    wait_for_idle(page)
    for attempt in range(4):  # a rerun that lands while the list is open closes it again: open it once more
        page.get_by_test_id("stSelectbox").filter(has_text=label).click()
        try:
            wanted.click(timeout=5_000)
            break
        except PlaywrightTimeout:
            if attempt == 3:
                raise
            wait_for_idle(page)
    wait_for_idle(page)


def click(page, name: str) -> None:
    page.get_by_role("button", name=name).click()
    wait_for_idle(page)


def shows(page, text: str) -> None:
    """Wait until the console shows `text`: a first fault may import the SDK, slow on a busy machine."""
    from playwright.sync_api import expect

    expect(console_box(page)).to_contain_text(text, timeout=30_000)


def console_box(page):
    """The console: the page's own, or the player's where it plays the run."""
    return page.locator('[data-testid="stCode"], .lsp-console').filter(has_text="messages sent each turn")


def console_text(page) -> str:
    return console_box(page).inner_text()


def graph_labels(page, waiting_for: str) -> list[str]:
    """The run graph's texts, once the browser has drawn `waiting_for` among them."""
    from playwright.sync_api import expect

    run_graph = page.locator('[data-testid="stGraphVizChart"], .lsp-graph').filter(has_text="task").first
    expect(run_graph.locator("svg text").filter(has_text=waiting_for).first).to_be_attached(timeout=30_000)
    return run_graph.locator("svg text").all_text_contents()


def marks_drawn(page) -> list[str]:
    """The characters of the run graph's labels and the console that this machine's fonts cannot draw (none,
    or a learner sees an empty box where a mark should say what happened)."""
    run_graph = page.locator('[data-testid="stGraphVizChart"], .lsp-graph').filter(has_text="task").first
    console = page.get_by_test_id("stCode").filter(has_text="messages sent each turn")
    return undrawable_characters(run_graph.locator("svg text")) + undrawable_characters(console.locator("code"))


FAULT_CASES = {
    "the tool raises": ('turn 1: add {"a": 2, "b": 3} -> error: add broke down (an injected fault)', None),
    "the reply is cut off by max_tokens": ("result: stopped: max_tokens", "stopped: max_tokens"),
    "the model refuses": ("result: stopped: refusal", "stopped: refusal"),
    "the service answers 529 overloaded, then the retry": ("turn 1: model error: 529 overloaded_error: Overloaded",
                                                          None),
    "the reply takes longer than the timeout": ("turn 1: model error: APITimeoutError: Request timed out",
                                                "The model failed"),
}


@pytest.mark.parametrize("fault", list(FAULT_CASES))
def test_each_fault_is_injected_from_the_page_and_marked(sandbox_page, fault):
    from playwright.sync_api import expect

    page = sandbox_page
    open_panel(page, "Inject a fault")
    choose(page, "What goes wrong", fault)
    click(page, "Step with this fault")
    line, alert = FAULT_CASES[fault]
    shows(page, line)
    assert re.search(r"<- (turn 1: )?injected", console_text(page))  # beside its line, or alone as the page's note
    assert "injected" in graph_labels(page, "injected")  # the graph marks the node the fault hit
    assert marks_drawn(page) == []
    if alert:
        expect(page.get_by_test_id("stAlert").filter(has_text=alert).first).to_be_visible(timeout=30_000)
    if fault.startswith("the service answers 529"):
        labels = graph_labels(page, "retry")
        assert "ask 1 failed" in labels and "retry" in labels and "ask 1" in labels  # the failure, then the retry
    no_exception_box(page)
    shot(page, f"change-fault-{list(FAULT_CASES).index(fault) + 1}.png")


def test_a_fork_edited_into_a_bad_request_is_refused_on_the_page(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    step(page)
    open_panel(page, "Fork and edit")
    click(page, "Fork here, after turn 1")
    expect(page.get_by_text("Forked branch 1 from main after turn 1")).to_be_visible(timeout=30_000)
    box = page.get_by_label("The reply's blocks (JSON): change the text, add, remove or change tool calls")
    box.fill('[{"type": "tool_use", "id": "not an id", "name": "add", "input": {"a": 1, "b": 1}}]')
    box.press("Control+Enter")
    wait_for_idle(page)
    click(page, "Apply this reply")
    shows(page, 'turn 1: add {"a": 1, "b": 1} -> 2   <- edited')
    assert "edited" in graph_labels(page, "edited")
    assert marks_drawn(page) == []
    step(page)
    refused = page.get_by_test_id("stAlert").filter(has_text="String should match pattern").first
    expect(refused).to_be_visible(timeout=30_000)
    assert "fork: branch 1 leaves main" in graph_labels(page, "leaves main")
    branch_map = page.locator('[data-testid="stGraphVizChart"]').filter(has_text="after turn 1, turn 1 edited").first
    expect(branch_map.locator("svg text").filter(has_text="bad request").first).to_be_attached(timeout=30_000)
    said = branch_map.locator("svg text").all_text_contents()
    assert said[:3] == ["main", "1 turn · going on", "branch 1"] and "bad request" in said[3]
    no_exception_box(page)
    shot(page, "change-fork-refused.png")


def test_be_the_model_in_chromium(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    open_panel(page, "Be the model")
    choose(page, "stop_reason", "tool_use")
    page.get_by_label("Tool calls").fill("1")
    page.get_by_label("Tool calls").press("Enter")
    wait_for_idle(page)
    page.get_by_label("Input 1 (JSON)").fill('{"a": 20, "b": 22}')
    page.get_by_label("Input 1 (JSON)").press("Enter")
    wait_for_idle(page)
    click(page, "Send this reply")
    shows(page, 'turn 1: add {"a": 20, "b": 22} -> 42   <- by hand')
    assert "by hand" in graph_labels(page, "by hand")
    assert marks_drawn(page) == []
    choose(page, "stop_reason", "end_turn")
    page.get_by_label("Text", exact=True).fill("It is 42.")
    page.get_by_label("Text", exact=True).press("Control+Enter")
    wait_for_idle(page)
    click(page, "Send this reply")
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("It is 42.", timeout=30_000)
    no_exception_box(page)
    shot(page, "change-be-the-model.png")


def look_back_to(page, turn: int) -> None:
    """Move the Look back slider to `turn`, with the keyboard as a person can."""
    from playwright.sync_api import expect

    slider = page.get_by_test_id("stSlider").locator("input[type=range]")
    while (now := int(slider.input_value())) != turn:  # one key at a time: each move is a rerun
        slider.press("ArrowLeft" if now > turn else "ArrowRight")
        expect(page.get_by_test_id("stSliderThumbValue")).not_to_have_text(str(now))
        wait_for_idle(page)
    expect(page.get_by_role("button", name=f"Fork here, after turn {turn}")).to_be_visible(timeout=30_000)



def on_screen(page, status: str, branch: str) -> None:
    """Wait until the status line starts with `status` and the Branch on screen picker shows `branch`."""
    from playwright.sync_api import expect

    expect(status_line(page)).to_contain_text(status, timeout=30_000)
    expect(page.get_by_role("combobox", name="Branch on screen")).to_have_value(branch, timeout=30_000)


def no_widget_state_warning(sandbox) -> None:
    assert "had its value set via the Session State API" not in sandbox.log.read_text()


def test_after_a_second_fork_step_steps_the_branch_on_screen(sandbox_page, sandbox):
    """Issue 16, point 1: the page went back to branch 1 after Step, which stepped branch 2 off screen."""
    page = sandbox_page
    choose(page, "Script", "A chain of three tools, then the answer: four turns")
    click(page, "Run to end")
    open_panel(page, "Fork and edit")
    look_back_to(page, 3)
    click(page, "Fork here, after turn 3")
    on_screen(page, "turn 3 of 40", "branch 1: from main after turn 3 · 3 turns, going on")
    look_back_to(page, 1)
    click(page, "Fork here, after turn 1")
    on_screen(page, "turn 1 of 40", "branch 2: from branch 1 after turn 1 · 1 turn, going on")
    step(page)
    shows(page, 'turn 2: upper {"text": "the sum is 3.5"} -> THE SUM IS 3.5\nmessages sent each turn: 1, 3')
    on_screen(page, "turn 2 of 40", "branch 2: from branch 1 after turn 1 · 2 turns, going on")
    no_exception_box(page)
    no_widget_state_warning(sandbox)


def test_a_result_changed_on_a_branch_forked_from_main_picked_again_stays_on_that_branch(sandbox_page, sandbox):
    """Issue 16, point 1: after main was picked and forked, Change it jumped back to main and lost the edit."""
    page = sandbox_page
    choose(page, "Script", "A chain of three tools, then the answer: four turns")
    click(page, "Run to end")
    open_panel(page, "Fork and edit")
    look_back_to(page, 3)
    click(page, "Fork here, after turn 3")
    choose(page, "Branch on screen", "main: the run as it happened · THE SUM IS 3.5 has 4 words.")
    on_screen(page, "turn 4 of 40", "main: the run as it happened · THE SUM IS 3.5 has 4 words.")
    look_back_to(page, 1)
    click(page, "Fork here, after turn 1")
    on_screen(page, "turn 1 of 40", "branch 2: from main after turn 1 · 1 turn, going on")
    result = page.get_by_label("Result of add (call 1)")
    result.fill("35")
    result.press("Control+Enter")  # a text area: Enter is a newline
    wait_for_idle(page)
    click(page, "Change it")
    shows(page, 'turn 1: add {"a": 1.5, "b": 2} -> 35')
    on_screen(page, "turn 1 of 40", "branch 2: from main after turn 1, turn 1 edited · 1 turn, going on")
    step(page)
    shows(page, 'turn 2: upper {"text": "the sum is 3.5"} -> THE SUM IS 3.5')
    on_screen(page, "turn 2 of 40", "branch 2: from main after turn 1, turn 1 edited · 2 turns, going on")
    assert "-> 35" in console_text(page)
    no_exception_box(page)
    no_widget_state_warning(sandbox)


def test_two_branches_compared_in_chromium(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    choose(page, "Script", "A chain of three tools, then the answer: four turns")
    click(page, "Run to end")
    open_panel(page, "Fork and edit")
    look_back_to(page, 1)
    click(page, "Fork here, after turn 1")
    result = page.get_by_label("Result of add (call 1)")
    result.fill("35")
    result.press("Control+Enter")  # a text area: Enter is a newline
    wait_for_idle(page)
    click(page, "Change it")
    step(page)
    page.get_by_text("Compare two branches").click()
    wait_for_idle(page)
    shot(page, "12-compare.png")
    expect(page.get_by_text("messages[2]: tool result 1 changed: 3.5 in main, 35 in branch 1")).to_be_visible()
    marked = page.locator(".ls-msg.ls-new").filter(has_text="first difference")
    expect(marked).to_have_count(2)
    expect(marked.first).to_contain_text("messages[2]")
    shot(page, "12-compare.png")
    nothing_cut_off(page)
    boxes = page.locator('[data-testid="stException"]')
    assert boxes.count() == 0, boxes.all_inner_texts()


def test_an_open_panel_follows_each_step(sandbox_page):
    """The panel is outside the Step's fragment (a Step with it closed never draws it); open, a Step draws it
    again, so it offers the turn just taken, not the one it was opened at."""
    from playwright.sync_api import expect

    page = sandbox_page
    step(page)
    open_panel(page, "Fork and edit")
    expect(page.get_by_role("button", name="Fork here, after turn 1")).to_be_visible(timeout=30_000)
    step(page)
    expect(page.get_by_role("button", name="Fork here, after turn 2")).to_be_visible(timeout=30_000)
    assert page.get_by_role("button", name="Fork here, after turn 1").count() == 0
    no_exception_box(page)
