"""Links into any state in Chromium: the address a screen leaves in the browser opens that screen elsewhere.

Each test acts in one browser context, reads `page.url`, opens it in a NEW browser context (a new Streamlit
session: nothing shared but the address) and compares the two screens: the status line, the view's text
(the graph, the console, the turn's request and reply), the branch picked and the view picked.
"""

from browser_support import PANEL, open_page, status_line
from test_browser import chromium, no_exception_box, sandbox, sandbox_page, step, wait_for_idle
from test_browser_change import choose, click, open_panel

FIXTURES = (chromium, sandbox, sandbox_page)  # pytest finds test_browser.py's by these names


def look_back(page, turn: int) -> None:
    """Move the Look back slider to `turn` with the keyboard."""
    from playwright.sync_api import expect

    player = page.locator(".lsp-look input[type=range]")  # the player's, where it plays the run
    slider = player if player.count() else page.get_by_test_id("stSlider").locator("input[type=range]")
    while (now := int(slider.input_value())) != turn:
        slider.press("ArrowLeft" if now > turn else "ArrowRight")
        if player.count():
            expect(slider).not_to_have_value(str(now))
        else:
            expect(page.get_by_test_id("stSliderThumbValue")).not_to_have_text(str(now))
        wait_for_idle(page)


def pick_view(page, name: str) -> None:
    page.get_by_test_id("stMain").get_by_role("radio", name=name, exact=True).click()
    wait_for_idle(page)


def screen(page) -> dict:
    """What a person sees of the run."""
    picker = page.get_by_role("combobox", name="Branch on screen")
    player = page.locator(".lsp")  # the player, where it plays the run: its status line and views
    return {"status": (player.locator(".lsp-status-text") if player.count() else status_line(page))
            .inner_text(),
            "view": page.get_by_test_id("stMain").get_by_role("radio", checked=True).inner_text(),
            "shown": (player if player.count() else page.locator(".st-key-view_area")).inner_text(),
            "branch": picker.input_value() if picker.count() else None}


def same_screen(page, again) -> dict:
    """Both screens, once the browser has drawn them alike (a graph is laid out after its run ends); then equal."""
    for _ in range(40):
        mine, theirs = screen(page), screen(again)
        if mine == theirs:
            return theirs
        again.wait_for_timeout(500)
    assert theirs == mine
    return theirs


def settled_url(page, holding: str) -> str:
    """The address once the page has written `holding` into it (it arrives just after the run ends)."""
    page.wait_for_function("text => window.location.href.includes(text)", arg=holding, timeout=30_000)
    wait_for_idle(page)
    url = page.url
    for _ in range(20):  # the last click's rerun writes the address after it ends: wait until it stays put
        page.wait_for_timeout(500)
        wait_for_idle(page)
        if page.url == url:
            return url
        url = page.url
    return url


def reopened(chromium, page, holding: str, then: str = ""):
    """The page's address opened in a new browser context, once its screen has settled. `then`: what the new
    page's own address holds, when not `holding` (the player's actions in an address become the server's)."""
    url = settled_url(page, holding)
    again = open_page(chromium, url)
    again.wait_for_function("text => window.location.href.includes(text)", arg=then or holding, timeout=30_000)
    wait_for_idle(again)
    return again


def test_a_script_at_a_turn_reopens_in_a_new_browser(sandbox_page, chromium):
    page = sandbox_page
    choose(page, "Script", "A chain of three tools, then the answer: four turns")
    page.wait_for_function("() => [...(globalThis.loopSandboxFrames || new Map()).values()]"
                           ".some((frames) => frames.title.startsWith('A chain'))")  # the player of this script
    wait_for_idle(page)
    click(page, "Run to end")
    look_back(page, 2)  # in the player: the address holds what was done there
    again = reopened(chromium, page, ".l2", "turn=2")  # the player's last look back, at turn 2
    try:
        same_screen(page, again)
        assert "Turn 2" in screen(again)["shown"] and screen(again)["status"].startswith("turn 4 of 40")
        no_exception_box(again)
    finally:
        again.context.close()


def test_the_toy_with_a_typed_task_reopens_in_a_new_browser(sandbox_page, chromium):
    page = sandbox_page
    page.get_by_test_id("stSidebar").get_by_text("Toy", exact=True).click()
    wait_for_idle(page)
    task = page.get_by_role("textbox", name="Task")
    task.fill("What is 2 + 3 and 10 + 20?")
    task.press("Control+Enter")
    wait_for_idle(page)
    step(page)
    pick_view(page, "Messages")
    again = reopened(chromium, page, "view=messages")
    try:
        same_screen(page, again)
        assert "10 + 20" in screen(again)["shown"]
        assert again.get_by_role("textbox", name="Task").input_value() == "What is 2 + 3 and 10 + 20?"
        no_exception_box(again)
    finally:
        again.context.close()


def test_a_branch_with_an_edit_and_a_fault_reopens_in_a_new_browser(sandbox_page, chromium):
    page = sandbox_page
    step(page)
    open_panel(page, "Fork and edit")
    click(page, "Fork here, after turn 1")
    page.get_by_role("textbox", name="Result of add (call 1)").fill("six")
    page.get_by_role("textbox", name="Result of add (call 1)").press("Control+Enter")
    wait_for_idle(page)
    click(page, "Change it")
    page.get_by_role("tab", name="Inject a fault").click()
    wait_for_idle(page)
    choose(page, "What goes wrong", "the service answers 529 overloaded, then the retry")
    click(page, "Step with this fault")
    page.get_by_text("turn 2 of 40").wait_for(timeout=30_000)  # the 529, then the retry's answer
    url = settled_url(page, "actions=")
    again = open_page(chromium, url)
    try:
        same_screen(page, again)
        assert screen(again)["branch"].startswith("branch 1")
        assert "six" in screen(again)["shown"] and "injected" in screen(again)["shown"]
        no_exception_box(again)
    finally:
        again.context.close()


def test_copy_link_shows_the_address_the_page_is_at(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    step(page)  # the player's: Copy link hands it to the server first, which writes the address of the run
    page.get_by_test_id("stSidebar").get_by_role("button", name="Copy link").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_test_id("stCode")).to_be_visible(timeout=30_000)
    url = settled_url(page, "actions=")
    assert dialog.get_by_test_id("stCode").inner_text().strip() == url
    expect(dialog).to_contain_text("&embed=true")
    no_exception_box(page)


def test_the_page_loads_embedded(chromium, sandbox):
    from playwright.sync_api import expect

    page = open_page(chromium, f"{sandbox.url}/?model=script&script=three_tool_chain&embed=true")
    try:
        expect(status_line(page)).to_contain_text("turn 0 of 40")
        step(page)  # the player writes the address: it keeps the page embedded too
        url = settled_url(page, "played=")
        assert "embed=true" in url and "script=three_tool_chain" in url
        page.get_by_text("The loop", exact=True).click()  # a server run: its own writes keep it embedded
        url = settled_url(page, "actions=")
        assert "embed=true" in url and "script=three_tool_chain" in url
        expect(page.get_by_test_id("stToolbar")).to_have_count(0)  # embedded: no Deploy button or main menu
        no_exception_box(page)
    finally:
        page.context.close()


def test_back_and_forward_show_the_screens_their_addresses_name(sandbox_page):
    from playwright.sync_api import expect

    page = sandbox_page
    page.get_by_text(PANEL).click()  # Change the past open: the page steps the run itself, each Step an address
    wait_for_idle(page)
    step(page)
    settled_url(page, "actions=")
    step(page)
    expect(status_line(page)).to_contain_text("turn 2 of")
    settled_url(page, "actions=")
    page.go_back()
    expect(status_line(page)).to_contain_text("turn 1 of", timeout=20_000)
    back = settled_url(page, "actions=")
    page.go_forward()
    expect(status_line(page)).to_contain_text("turn 2 of", timeout=20_000)
    settled_url(page, "actions=")
    page.reload()  # a reload shows the screen the address names, which is the one on screen
    expect(status_line(page)).to_contain_text("turn 2 of", timeout=30_000)
    assert back != page.url
    no_exception_box(page)


def test_a_reload_on_write_your_loop_keeps_the_sandboxs_run_in_the_tab(sandbox_page):
    """Issue 33, point 3: step, fork, step; Write your loop; reload (a new session); Sandbox: the run is back."""
    from playwright.sync_api import expect

    page = sandbox_page
    step(page)
    expect(status_line(page)).to_contain_text("turn 1 of", timeout=30_000)
    open_panel(page, "Fork and edit")
    click(page, "Fork here, after turn 1")
    step(page)
    expect(status_line(page)).to_contain_text("turn 2 of")
    settled_url(page, "actions=")
    before = screen(page)
    assert before["branch"].startswith("branch 1")
    page.get_by_test_id("stSidebarNav").get_by_text("Write your loop").click()
    wait_for_idle(page)
    page.wait_for_url("**/write-your-loop")
    page.reload()
    wait_for_idle(page)
    page.get_by_test_id("stSidebarNav").get_by_text("Sandbox").click()
    expect(status_line(page)).to_contain_text("turn 2 of", timeout=30_000)
    settled_url(page, "actions=")
    assert "restored" not in page.url  # the page's own address again: a link, not a note about this visit
    assert screen(page) == before
    expect(page.get_by_text("the run is back as its link holds it")).to_be_visible()
    expect(page.get_by_text("Undo starts from here")).to_be_visible()
    click(page, "Undo")
    expect(page.get_by_text("Nothing to undo.")).to_be_visible()  # as after any link: the replay is the start
    no_exception_box(page)


def test_a_bare_visit_in_a_new_tab_is_a_fresh_start(sandbox_page):
    """The run is kept for its own tab only: another tab of the same browser opens the page afresh."""
    from playwright.sync_api import expect

    page = sandbox_page
    step(page)
    settled_url(page, "played=")
    other = page.context.new_page()
    other.goto(page.url.split("?")[0])
    wait_for_idle(other)
    expect(status_line(other)).to_contain_text("turn 0 of", timeout=30_000)
    assert "actions=" not in other.url
    no_exception_box(other)
