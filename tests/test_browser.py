"""The page in a real browser: `streamlit run sandbox_app.py` on 127.0.0.1, driven in Debian's Chromium.

Without /usr/bin/chromium these tests skip and say how to install it; with
CI=true they fail instead, because CI must run them. Screenshots go to
test-artifacts/; the reference run's picture for the README, docs/screenshot.png,
is written when it is missing or when UPDATE_SCREENSHOT=1.
"""

import json
import os

import pytest
from browser_support import (
    CHROMIUM,
    INSTALL_HINT,
    PANEL,
    ROOT,
    SandboxServer,
    full_page,
    launch_chromium,
    open_page,
    wait_for_idle,
)

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


RUN_GRAPH = "The run graph: ask, the tool calls, ask again, the outcome"  # the player's graph, by its label


def pick_view(page, name: str) -> None:
    page.get_by_test_id("stMain").get_by_role("radio", name=name, exact=True).click()
    wait_for_idle(page)


# Text that does not fit its box: a button, badge, tab or label whose words are cut off or spill out, and
# graph text drawn smaller than a person can read. Each found one is named, so a failure says what broke.
OVERFLOWS = """() => {
  const found = [];
  // The page and the player's shadow root alike (Streamlit's custom components draw in one).
  const roots = [document, ...[...document.querySelectorAll('*')].map((e) => e.shadowRoot).filter(Boolean)];
  const deepAll = (selector) => roots.flatMap((root) => [...root.querySelectorAll(selector)]);
  const CHART = '[data-testid="stGraphVizChart"], .lsp-graph, .lsp-diagram';
  const boxes = deepAll(
    '[data-testid="stMain"] button, [data-testid="stSidebar"] button, .lsp button, .ls-badge, .ls-kind, ' +
    '[data-testid="stWidgetLabel"], [data-testid="stCheckbox"] label, .ls-here');
  for (const box of boxes) {
    if (!box.offsetParent || !box.innerText.trim()) continue;
    const edge = box.getBoundingClientRect().right;
    for (const el of [box, ...box.querySelectorAll('*')]) {
      const style = getComputedStyle(el);
      const clipped = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
      // (A control's 1 px visually hidden part, there for screen readers, is not a cut-off word.)
      if (clipped && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 1) {
        found.push(`cut off: ${box.innerText.trim()}`);
        break;
      }
      if (el.getBoundingClientRect().right > edge + 1) { found.push(`spills out: ${box.innerText.trim()}`); break; }
    }
    if (box.matches('button, .ls-badge, .ls-kind') && box.getBoundingClientRect().height > 60)
      found.push(`wraps: ${box.innerText.trim()}`);
  }
  for (const text of deepAll(CHART.split(', ').map((chart) => `${chart} svg text`).join(', '))) {
    const size = text.getBoundingClientRect().height;
    if (text.textContent.trim() && size < 11) found.push(`graph text ${size.toFixed(1)} px: ${text.textContent}`);
    // The browser draws a diagram's words in its own font: one wider than graphviz measured runs past the edge.
    const inner = text.getBoundingClientRect(), outer = text.ownerSVGElement.getBoundingClientRect();
    if (text.textContent.trim() && (inner.left < outer.left - 1 || inner.right > outer.right + 1))
      found.push(`graph text past its diagram's edge: ${text.textContent}`);
  }
  // Each node's and each cluster's words inside its own outline: graph text drawn larger or wider than graphviz
  // laid it out runs past the box (and, on the diagram's edge, is cut off). A text centred outside its node's
  // outline is the node's outside label (xlabel), placed beside it on purpose.
  for (const group of deepAll(CHART.split(', ').map((chart) => `${chart} svg g.node, ${chart} svg g.cluster`)
      .join(', '))) {
    const outline = group.querySelector(':scope > polygon, :scope > ellipse, :scope > path, :scope > g > polygon, '
                                        + ':scope > g > ellipse, :scope > g > path');
    if (!outline || !group.closest(CHART).offsetParent) continue;
    const edge = outline.getBoundingClientRect();
    for (const text of group.querySelectorAll('text')) {
      const inner = text.getBoundingClientRect(), middle = (inner.left + inner.right) / 2;
      if (!text.textContent.trim() || middle < edge.left || middle > edge.right) continue;
      if (inner.left < edge.left - 1 || inner.right > edge.right + 1)
        found.push(`graph text past its box: ${text.textContent}`);
    }
  }
  // A loop's code box: lines longer than it scroll it sideways with a scrollbar in view, never cut off unseen.
  for (const code of deepAll('.ls-code')) {
    if (!code.offsetParent) continue;
    const style = getComputedStyle(code);
    const bar = code.offsetHeight - code.clientHeight - parseFloat(style.borderTopWidth)
      - parseFloat(style.borderBottomWidth);
    if (code.scrollWidth > code.clientWidth + 1 && !(['auto', 'scroll'].includes(style.overflowX) && bar > 4))
      found.push(`code cut off: ${code.innerText.trim().slice(0, 40)}`);
    const column = code.parentElement.getBoundingClientRect();
    if (code.getBoundingClientRect().right > column.right + 1) found.push('a code box wider than its column');
  }
  // A diagram wider than the box that clips it must say so where a person looks: a scrollbar in view, or a
  // shadow on the edge with more beyond it. A box that clips it with neither is a diagram cut off.
  for (const chart of deepAll(CHART)) {
    const svg = chart.querySelector('svg');
    if (!svg || !chart.offsetParent) continue;
    const name = (svg.querySelector('title') || {}).textContent || 'a diagram';
    let box = chart;
    while (box && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
    if (!box) continue;
    const wider = svg.getBoundingClientRect().right > box.getBoundingClientRect().right + 1;
    if (wider || box.scrollWidth > box.clientWidth + 1) {
      const bar = box.offsetHeight - box.clientHeight > 4 && box.getBoundingClientRect().bottom <= innerHeight;
      const shadow = getComputedStyle(box).backgroundImage.includes('gradient');
      if (!(box.scrollWidth > box.clientWidth + 1 && (bar || shadow))) found.push(`diagram cut off: ${name}`);
    }
  }
  // A box drawn around the run graph is as tall as the graph (up to its most), not a fixed height left blank.
  for (const box of document.querySelectorAll('[class*="st-key-run_graph_box"]')) {
    const chart = box.querySelector('[data-testid="stGraphVizChart"]');
    if (chart && box.clientHeight > box.scrollHeight - 1 && box.clientHeight > chart.offsetHeight + 60)
      found.push(`blank box: ${box.clientHeight} px around a graph of ${chart.offsetHeight} px`);
  }
  // Nothing runs past the page's right edge: the page itself never scrolls sideways.
  for (const area of document.querySelectorAll('[data-testid="stMain"], [data-testid="stMainBlockContainer"]')) {
    if (area.scrollWidth > area.clientWidth + 1) {
      const past = [...area.querySelectorAll('svg, h1, h2, h3, h4, h5, p, div')].filter(
        el => el.offsetParent !== null && el.getBoundingClientRect().right > area.getBoundingClientRect().right + 1
          && (el.innerText || el.textContent || '').trim());
      const last = past.find(el => el.matches('svg')) || past[past.length - 1];
      const said = last ? (last.matches('svg') ? `the diagram "${last.querySelector('title')?.textContent}"`
                                               : (last.innerText || '').trim().slice(0, 60)) : '';
      found.push(`runs past the page: ${said}`);
      break;
    }
  }
  return found;
}"""


def nothing_cut_off(page) -> None:
    assert page.evaluate(OVERFLOWS) == []


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
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    graph = page.get_by_role("img", name=RUN_GRAPH)
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

    pick_view(page, "The loop")
    expect(page.locator(".ls-lit").filter(has_text="stop_reason = \"end_turn\"")).to_be_visible()
    expect(page.get_by_text('◀ returns "2 + 3 is 5."')).to_be_visible()
    shot(page, "04-the-loop.png")
    pick_view(page, "Messages")
    expect(page.locator(".ls-msg")).to_have_count(4)
    shot(page, "05-messages.png")
    no_exception_box(page)


def test_two_browser_tabs_are_two_sandboxes(sandbox_page, sandbox):
    from playwright.sync_api import expect

    first = sandbox_page
    second = first.context.new_page()  # a second tab of the same browser window: same cookies, own session
    second.goto(full_page(sandbox.url))
    wait_for_idle(second)
    step(first)
    step(first)
    expect(first.get_by_text("turn 2 of 40")).to_be_visible()
    expect(second.get_by_text("turn 0 of 40")).to_be_visible()
    step(second)
    expect(second.get_by_text("turn 1 of 40")).to_be_visible()
    expect(first.get_by_text("turn 2 of 40")).to_be_visible()
    second.reload()  # a new session, which its URL brings back to where the tab was; the other tab's run stays
    wait_for_idle(second)
    expect(second.get_by_text("turn 1 of 40")).to_be_visible(timeout=20_000)
    step(second)
    expect(second.get_by_text("turn 2 of 40")).to_be_visible()
    step(first)
    expect(first.get_by_text("turn 2 of 40")).to_be_visible()  # the run had finished: Step says so, no turn 3


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
    # One uploader, empty, once the page is redrawn: the one that held the refused file is let go of (on a loaded
    # machine it stayed beside the new one for over 5 s while the page finished its run).
    expect(page.get_by_test_id("stFileUploaderDropzone")).to_have_count(1, timeout=20_000)
    expect(page.get_by_test_id("stFileUploaderDropzone")).to_contain_text("16MB per file")  # what is read
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


@pytest.mark.parametrize("width", [1440, 900])
def test_two_calls_in_one_reply_read_at_their_size_at_any_width(chromium, sandbox, width):
    """The run graph keeps its text readable and its box scrolls; no button, badge or label loses its words."""
    from playwright.sync_api import expect

    page = open_page(chromium, sandbox.url, width=width, height=1100)
    try:
        page.get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name="Two tool calls in one reply").click()
        wait_for_idle(page)
        step(page)
        expect(page.get_by_text("new in turn 1").first).to_be_visible()
        page.wait_for_timeout(300)  # the graph's layout is drawn after the script has run
        for name in ("Step", "Run to end", "Reset"):  # every button keeps its whole label
            button = page.get_by_role("button", name=name, exact=True)
            assert button.inner_text().strip().endswith(name)
        nothing_cut_off(page)
        shot(page, f"10-two-calls-{width}.png")
        pick_view(page, "The loop")
        expect(page.get_by_text("◀ ran 2 calls: add, upper")).to_be_visible()
        nothing_cut_off(page)
        shot(page, f"11-the-loop-{width}.png")
        pick_view(page, "Messages")
        page.get_by_text("Beside it: Chat Completions").click()
        wait_for_idle(page)
        expect(page.locator(".ls-oa").filter(has_text="tool_call_id")).to_have_count(2)
        nothing_cut_off(page)
        shot(page, f"12-chat-completions-{width}.png")
        no_exception_box(page)
    finally:
        page.context.close()


def test_the_every_turn_toggle_shows_the_turns_it_brings_back(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="A runaway model that never stops").click()
    wait_for_idle(page)
    for _ in range(12):
        step(page)
    graph = page.get_by_role("img", name="The run graph: ask, the tool calls, ask again, the outcome")
    expect(graph.get_by_text("turns 1–7", exact=True)).to_be_visible()  # the latest turns, the earlier folded
    page.get_by_text("Every turn", exact=True).click()  # the player draws every turn: a Step stays in the browser
    wait_for_idle(page)
    first_ask = graph.get_by_text("ask 1", exact=True)
    expect(first_ask).to_be_visible(timeout=20_000)
    expect(graph.get_by_text("turns 1–7", exact=True)).to_have_count(0)
    box = page.locator(".lsp-graph")
    assert box.evaluate("el => el.scrollTop") == 0  # at the top, where the turns brought back are
    assert first_ask.bounding_box()["y"] < box.bounding_box()["y"] + box.bounding_box()["height"]
    step(page)
    expect(page.locator(".lsp-status-text")).to_contain_text("turn 13 of 40")
    expect(graph.get_by_text("ask 14", exact=True)).to_have_count(1)  # the next Step's node, at the bottom
    assert box.evaluate("el => el.scrollTop") == 0  # a Step leaves the box where the learner had it


# What a Step the server takes sends the browser: counted so the number cannot creep back up (each element is a
# render pass). 29 at turn 1 of the reference run; 31 while the panel, the Every turn toggle and the turn's two
# lines were drawn by each Step; 51 before the page was first thinned out. A Step in the player sends nothing.
MOST_MESSAGES_A_STEP = 29


def test_a_step_sends_few_websocket_messages(chromium, sandbox):
    sent: list[int] = []
    received: list[int] = []

    def listen(page) -> None:
        page.on("websocket", lambda ws: (ws.on("framereceived", lambda _frame: received.append(1)),
                                         ws.on("framesent", lambda _frame: sent.append(1))))

    def quiet() -> None:
        """Until no message has come for 300 ms: what the last run sent is all in (a busy machine is slow)."""
        seen = -1
        while seen != len(received):
            seen = len(received)
            page.wait_for_timeout(300)

    page = open_page(chromium, f"{sandbox.url}/?controls=all&script=runaway", on_page=listen)
    try:
        quiet()
        before = len(sent), len(received)
        for _ in range(2):  # the player's Steps, and its Reset: in the browser, with no message either way
            step(page)
        page.get_by_role("button", name="Reset").click()
        step(page)
        quiet()
        assert (len(sent), len(received)) == before
        # A run with a fork: the page steps it itself (the panel closed again, so a Step redraws only the run)
        page.get_by_text(PANEL).click()
        wait_for_idle(page)
        page.get_by_role("button", name="Fork here, after turn 1").click()
        wait_for_idle(page)
        page.get_by_text(PANEL).click()
        wait_for_idle(page)
        quiet()
        counts = []
        for _ in range(3):
            before_step = len(received)
            step(page)
            quiet()  # any late message of this Step arrives, and is counted
            counts.append(len(received) - before_step)
        assert max(counts) <= MOST_MESSAGES_A_STEP, counts
        assert min(counts) > 3  # it did count: a Step sends at least its new state
    finally:
        page.context.close()


def test_the_toy_answers_a_typed_task_in_chromium(chromium, sandbox):
    from playwright.sync_api import expect

    page = open_page(chromium, sandbox.url, width=900, height=1100)
    try:
        page.get_by_test_id("stSidebar").get_by_text("Toy", exact=True).click()
        wait_for_idle(page)
        expect(page.get_by_text("not a language model").first).to_be_visible()
        task = page.get_by_role("textbox", name="Task")
        task.fill("What is 2 + 3 and 10 + 20?")
        task.press("Control+Enter")
        wait_for_idle(page)
        page.get_by_role("button", name="Run to end").click()
        wait_for_idle(page)
        expect(page.get_by_text("Answer: 2 + 3 is 5; 10 + 20 is 30.")).to_be_visible()
        expect(page.get_by_text('turn 1: add {"a": 10, "b": 20} -> 30')).to_be_visible()
        nothing_cut_off(page)
        shot(page, "13-toy-900.png")
        no_exception_box(page)
    finally:
        page.context.close()


@pytest.mark.parametrize("width", [1440, 900])
def test_every_diagram_fits_or_scrolls_visibly_with_three_branches(chromium, sandbox, width):
    """The run graph (short, long, with a fork marked), the branch map of three branches and the loop diagram."""
    from playwright.sync_api import expect

    page = open_page(chromium, sandbox.url, width=width, height=1100)
    try:
        page.wait_for_timeout(300)
        nothing_cut_off(page)  # two nodes: a box as tall as they are
        page.get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name="A chain of three tools, then the answer: four turns").click()
        wait_for_idle(page)
        page.get_by_role("button", name="Run to end").click()
        wait_for_idle(page)
        page.get_by_text("Change the past: fork at a turn").click()
        wait_for_idle(page)
        for _ in range(2):  # main, branch 1 from main, branch 2 from branch 1
            page.get_by_role("button", name="Fork here, after turn 4").click()
            wait_for_idle(page)
        page.get_by_role("button", name="Step", exact=True).click()
        wait_for_idle(page)
        expect(page.locator('[data-testid="stGraphVizChart"] svg title', has_text="branches")).to_have_count(1)
        page.wait_for_timeout(300)
        nothing_cut_off(page)
        shot(page, f"14-three-branches-{width}.png")
        pick_view(page, "The loop")
        page.wait_for_timeout(300)
        nothing_cut_off(page)
        shot(page, f"15-the-loop-diagram-{width}.png")
        no_exception_box(page)
    finally:
        page.context.close()


def test_a_refused_request_beside_the_reference_fits_a_900_px_page(chromium, sandbox):
    """Write your loop at 900 px: the two columns of messages and the buttons stay within the page."""
    from playwright.sync_api import expect
    from test_exercise import APPEND_REPLY, with_bug

    page = open_page(chromium, sandbox.url, width=900, height=2000)
    try:
        page.get_by_test_id("stSidebar").get_by_text("Write your loop").click()
        editor = page.get_by_role("textbox", name="my_loop.py")
        editor.wait_for(timeout=30_000)
        wait_for_idle(page)
        editor.fill(with_bug((APPEND_REPLY, "")))
        page.get_by_role("button", name="Check my loop").click()
        first = page.get_by_test_id("stExpander").filter(has_text="add_then_answer")
        expect(first.locator(".lx-bad")).to_contain_text("refused here", timeout=60_000)
        wait_for_idle(page)
        expect(first.get_by_text("The reference loop sent")).to_be_visible()
        nothing_cut_off(page)
        shot(page, "16-refused-900.png")
        no_exception_box(page)
    finally:
        page.context.close()



# Where the loop view's code, its value notes and its cycle stand on screen.
LOOP_LAYOUT = """() => {
  const roots = [document, ...[...document.querySelectorAll('*')].map((e) => e.shadowRoot).filter(Boolean)];
  const deep = (selector) => roots.map((root) => root.querySelector(selector)).find(Boolean);
  const code = deep('.ls-code'), box = code.getBoundingClientRect();
  const lines = Array.from(code.querySelectorAll('.ls-line')).map((line) => {
    const src = line.querySelector('.ls-src'), at = src.getBoundingClientRect();
    return {text: src.textContent, rows: src.getClientRects().length, height: at.height,
            notes: Array.from(line.querySelectorAll('.ls-here')).map((note) => {
              const words = document.createRange();
              words.selectNodeContents(note);
              const n = words.getBoundingClientRect();  // the words as drawn, not the box they may wrap in
              return {text: note.textContent, beside: n.top < at.bottom - 1 && n.left >= at.right - 1,
                      below: n.top >= at.bottom - 1, inView: n.left >= box.left - 1 && n.right <= box.right + 1};
            })};
  });
  const chart = deep('.st-key-loop_cycle [data-testid="stGraphVizChart"]') || deep('.lsp-diagram');
  const start = Array.from(chart.querySelectorAll('g.node'))
    .find((node) => node.querySelector('title').textContent === 'start').getBoundingClientRect();
  const view = chart.getBoundingClientRect();
  return {lines, scrolls: code.scrollWidth > code.clientWidth + 1,
          lineHeight: parseFloat(getComputedStyle(code).lineHeight),
          cycleScrolls: chart.scrollWidth > chart.clientWidth + 1,
          startInView: start.left >= view.left - 1 && start.right <= view.left + chart.clientWidth + 1};
}"""


@pytest.mark.parametrize("width", [1440, 900])
def test_the_loop_view_keeps_each_statement_on_one_line_and_its_notes_in_view(chromium, sandbox, width):
    """No line of the loop wraps (the box scrolls sideways when it is too narrow); each value note stands beside
    its line, or under it, inside the part of the box in view; the cycle opens with its first node in view."""
    from playwright.sync_api import expect

    page = open_page(chromium, sandbox.url, width=width, height=1300)
    try:
        step(page)
        expect(page.get_by_text('turn 1: add {"a": 2, "b": 3} -> 5')).to_be_visible()
        step(page)
        expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
        pick_view(page, "The loop")
        expect(page.get_by_text('◀ returns "2 + 3 is 5."')).to_be_visible()
        page.wait_for_timeout(300)  # the cycle's layout is drawn after the script has run
        layout = page.evaluate(LOOP_LAYOUT)
        for line in layout["lines"]:
            assert line["rows"] == 1 and line["height"] < 1.5 * layout["lineHeight"], f"wrapped: {line['text']}"
        notes = [note for line in layout["lines"] for note in line["notes"]]
        assert len(notes) == 5  # turn, messages sent, len(messages), stop_reason, what it returns
        for note in notes:
            assert note["inView"], f"out of view: {note['text']}"
            assert note["beside"] or note["below"], f"in the code: {note['text']}"
        if width == 900:  # too narrow for the longest line: the box scrolls, and the notes go under their lines
            assert layout["scrolls"] and all(note["below"] for note in notes)
            assert layout["cycleScrolls"]
        else:
            assert not layout["scrolls"] and all(note["beside"] for note in notes)
        assert layout["startInView"]
        nothing_cut_off(page)
        shot(page, f"13-the-loop-{width}.png")
        page.get_by_role("img", name="The loop's cycle, the way this turn went lit").scroll_into_view_if_needed()
        shot(page, f"14-the-cycle-{width}.png")
        no_exception_box(page)
    finally:
        page.context.close()
