"""Start here's player in Debian's Chromium: Steps, answers and looks back happen in the browser with nothing sent
to the server, and what was done there is what the server acts on next (Undo, Redo, All controls, a reload, a
link). Read as a learner reads the page: visible text, roles and labels."""

import pytest
from browser_support import wait_for_idle
from test_browser import chromium, no_exception_box, sandbox, shot  # noqa: F401  pytest fixtures

STATUS = ".lsp-status-text"


def open_player_page(browser, url: str, width: int = 1440):
    """The page at `url` with the player drawn, and the websocket messages it sends from then on."""
    page = browser.new_context(viewport={"width": width, "height": 1300}).new_page()
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append("frame")))
    page.goto(url)
    wait_for_idle(page)
    page.get_by_role("button", name="Step", exact=True).wait_for(timeout=30_000)
    page.locator(STATUS).wait_for()
    return page, sent


def server_click(page, name: str) -> None:
    """A click on one of the page's own buttons, and the server's run it starts (after the player's hand-over)."""
    page.get_by_role("button", name=name, exact=True).click()
    wait_for_idle(page)


def answer_right(page, *labels: str) -> None:
    for label in labels:
        page.get_by_role("button", name=label, exact=True).click()


RIGHT_CALL = "2. Run the call, append one message of results, and ask the model again"


@pytest.mark.parametrize("width", [1440, 900])
def test_steps_and_answers_in_the_player_send_nothing_and_undo_takes_back_the_last(chromium, sandbox,  # noqa: F811
                                                                                      width):
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, sandbox.url, width)
    before = len(sent)
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.get_by_text("Turn 1's reply is back. What does the loop do now?")).to_be_visible()
    answer_right(page, RIGHT_CALL, "3. 3")
    expect(page.get_by_text("Predictions: 2 right of 2")).to_be_visible()
    page.get_by_role("slider", name="Turn looked at").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text("Looking back at turn 0 of 1.")).to_be_visible()
    page.keyboard.press("End")
    page.wait_for_timeout(300)
    assert len(sent) == before, "a Step, an answer or a look back in the player went to the server"
    shot(page, f"player-page-turn-1-{width}.png")

    page.get_by_role("button", name="Undo", exact=True).click()  # the player's own actions: in the browser too
    expect(page.get_by_text("How many messages will the next request's")).to_be_visible()
    expect(page.get_by_text("Predictions: 1 right of 1")).to_be_visible()
    page.get_by_role("button", name="Redo", exact=True).click()
    expect(page.get_by_text("Predictions: 2 right of 2")).to_be_visible()
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 1 tool call")
    page.wait_for_timeout(300)
    assert len(sent) == before, "an Undo or a Redo of what the player did went to the server"
    for _ in range(3):  # the answers and the Step taken back, in the browser; then the server's Undo: nothing left
        page.get_by_role("button", name="Undo", exact=True).click()
    expect(page.locator(STATUS)).to_have_text("turn 0 of 40 · 1 message · 0 tool calls")
    page.get_by_role("button", name="Undo", exact=True).click()
    wait_for_idle(page)
    expect(page.get_by_text("Nothing to undo.")).to_be_visible()
    assert len(sent) > before  # that one went to the server, with what the player did
    page.get_by_role("button", name="Redo", exact=True).click()  # the server's Redo, of what it was handed
    expect(page.get_by_text("Turn 1's reply is back. What does the loop do now?")).to_be_visible()
    no_exception_box(page)
    page.context.close()


def test_the_undo_key_after_browser_steps_acts_on_the_run_as_seen(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=runaway&predict=off")
    for turn in (1, 2, 3):
        page.keyboard.press("s")
        expect(page.locator(STATUS)).to_contain_text(f"turn {turn} of 40")
    page.keyboard.press("z")  # Undo, in the browser: it undoes turn 3, not the start
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    page.keyboard.press("s")
    expect(page.locator(STATUS)).to_contain_text("turn 3 of 40")
    page.keyboard.press("y")  # Redo after a new Step: the server's, with nothing to redo, said in words
    page.keyboard.press("s")  # at once: the player the server draws takes it
    wait_for_idle(page)
    expect(page.get_by_text("Nothing to redo.")).to_be_visible()
    expect(page.locator(STATUS)).to_contain_text("turn 4 of 40")
    page.reload()  # the address holds every action, the Undo among them
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_contain_text("turn 4 of 40", timeout=20_000)
    no_exception_box(page)
    page.context.close()


def test_a_reload_and_the_address_bring_back_what_was_done_in_the_browser(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, sandbox.url)
    page.keyboard.press("s")
    answer_right(page, RIGHT_CALL, "3. 3")
    page.keyboard.press("s")
    expect(page.get_by_text("Turn 2's reply is back. What does the loop do now?")).to_be_visible()
    assert "played=" in page.url  # the address says it: a reload, or the address copied, replays it
    copied = page.url
    page.reload()
    wait_for_idle(page)
    expect(page.get_by_text("Turn 2's reply is back. What does the loop do now?")).to_be_visible(timeout=20_000)
    expect(page.get_by_text("Predictions: 2 right of 2")).to_be_visible()
    other = chromium.new_context(viewport={"width": 1440, "height": 1300}).new_page()
    other.goto(copied)
    wait_for_idle(other)
    expect(other.get_by_text("Turn 2's reply is back. What does the loop do now?")).to_be_visible(timeout=20_000)
    other.get_by_role("button", name="1. Return the text as the answer").click()
    expect(other.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    other.get_by_text("All controls", exact=True).click()  # the full page: the same run, the same turn
    wait_for_idle(other)
    expect(other.get_by_text("Message threads", exact=True)).to_be_visible()
    expect(other.get_by_text("turn 2 of 40")).to_be_visible()
    no_exception_box(other)
    other.context.close()
    page.context.close()


def test_the_toy_plays_a_typed_task_and_a_new_task_starts_with_the_next_step(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, f"{sandbox.url}/?model=toy&controls=start&predict=off&task=What+is+2+%2B+3%3F")
    page.keyboard.press("e")
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    page.get_by_label("Task").fill("Which of notes.txt and todo.txt mentions Omid?")
    page.keyboard.press("Control+Enter")
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_have_count(0)  # a new task waiting for the next Step: the server's page
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()  # the run stays until the next Step
    page.get_by_role("button", name="Step", exact=True).click()  # the server's Step: a new run, in the player
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 2 tool calls")
    page.keyboard.press("e")
    expect(page.get_by_text("Answer: todo.txt mentions Omid")).to_be_visible()
    server_click(page, "Undo")
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 2 tool calls")
    no_exception_box(page)
    page.context.close()


def test_next_scenario_after_browser_steps_and_undo_brings_the_finished_run_back(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=add_then_answer&predict=off")
    page.keyboard.press("e")  # in the browser only
    page.get_by_role("button", name="Next scenario: Two tool calls in one reply").click()
    wait_for_idle(page)
    expect(page.get_by_text("Scenario 2 of 9: Two tool calls in one reply.")).to_be_visible()
    expect(page.locator(STATUS)).to_have_text("turn 0 of 40 · 1 message · 0 tool calls")
    server_click(page, "Undo")  # the server heard the Run to end before the next scenario
    expect(page.get_by_text("Scenario 1 of 9: Add two numbers, then answer.")).to_be_visible()
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    expect(page.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call")
    no_exception_box(page)
    page.context.close()


def test_a_page_that_lost_the_frames_asks_and_gets_them_again(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=runaway&predict=off")
    page.keyboard.press("s")
    page.keyboard.press("s")
    page.keyboard.press("z")  # the player's own Undo
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40")
    page.evaluate("() => globalThis.loopSandboxFrames.clear()")  # a page that lost them
    page.keyboard.press("z")  # the player's own Undo, to turn 0
    page.keyboard.press("z")  # the server's (nothing left to undo): it does not send the frames again
    page.wait_for_function("() => globalThis.loopSandboxFrames.size > 0", timeout=20_000)  # it asked; they came
    expect(page.get_by_text("Nothing to undo.")).to_be_visible(timeout=10_000)  # the player drawn anew, with them
    expect(page.locator(STATUS)).to_contain_text("turn 0 of 40", timeout=10_000)
    page.keyboard.press("s")
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40", timeout=10_000)
    no_exception_box(page)
    page.context.close()


def test_copy_link_in_the_player_shows_the_screens_link_and_it_opens_the_same_screen(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=runaway&predict=off")
    page.keyboard.press("s")
    page.keyboard.press("s")
    before = len(sent)
    page.get_by_role("button", name="Copy link", exact=True).click()
    dialog = page.get_by_role("dialog", name="A link to this screen")
    expect(dialog).to_be_visible()
    url = dialog.locator(".lsp-link").inner_text().strip()
    assert "controls=start" in url and "played=s.s" in url, url
    expect(dialog.get_by_text("add &embed=true to the link", exact=False)).to_be_visible()
    page.keyboard.press("s")  # the dialog has the keys: no Step behind it
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    page.wait_for_timeout(300)
    assert len(sent) == before, "Copy link in the player went to the server"
    other, _ = open_player_page(chromium, url)
    expect(other.locator(STATUS)).to_contain_text("turn 2 of 40", timeout=20_000)
    no_exception_box(other)
    other.context.close()
    page.context.close()


def test_back_and_forward_walk_the_players_steps_as_they_walk_the_servers(chromium, sandbox):  # noqa: F811
    """Each action in the player is an address of its own, as a server action's is: Back and Forward show the
    screen each names, a new action after a Back drops what was ahead, and a reload shows the one in the bar."""
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=runaway&predict=off")
    for turn in (1, 2, 3):
        page.keyboard.press("s")
        expect(page.locator(STATUS)).to_contain_text(f"turn {turn} of 40")
    assert "played=s.s.s" in page.url
    page.get_by_role("slider", name="Turn looked at").focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # looks back in a row: one address, the last look's
    expect(page.get_by_text("Looking back at turn 1 of 3.")).to_be_visible()
    assert "played=s.s.s.l1" in page.url
    page.go_back()
    expect(page.get_by_text("Looking back at", exact=False)).to_have_count(0)
    expect(page.locator(STATUS)).to_contain_text("turn 3 of 40")
    page.go_back()
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    page.go_back()
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40")
    assert "played=s&" in page.url + "&"
    page.go_forward()
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    page.go_back()
    page.go_back()
    expect(page.locator(STATUS)).to_contain_text("turn 0 of 40")
    assert "played=" not in page.url
    page.keyboard.press("s")
    page.keyboard.press("z")  # the player's Undo: a Step, a Back, a Forward and an Undo are the player's own
    expect(page.locator(STATUS)).to_contain_text("turn 0 of 40")
    page.keyboard.press("s")
    page.keyboard.press("s")
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    assert "played=s.u.s.s" in page.url
    assert page.go_forward() is None  # a new action after a Back: what was ahead of it is gone
    page.go_back()
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40")
    wait_for_idle(page)  # Streamlit runs the page for each Back; the server's screen stays where it was
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40")
    page.reload()  # the address in the bar: the screen it names
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40", timeout=20_000)
    no_exception_box(page)
    page.context.close()


def test_back_to_a_players_step_after_a_server_action_shows_that_step(chromium, sandbox):  # noqa: F811
    """The server took the player's actions up (its own Undo, with nothing of the player's left to undo); Back
    and Forward to the addresses the player wrote before still show the screens they name."""
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=runaway&predict=off")
    page.keyboard.press("s")
    page.keyboard.press("s")
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    page.keyboard.press("z")
    page.keyboard.press("z")
    expect(page.locator(STATUS)).to_contain_text("turn 0 of 40")
    server_click(page, "Undo")
    expect(page.get_by_text("Nothing to undo.")).to_be_visible()
    page.keyboard.press("s")
    expect(page.locator(STATUS)).to_contain_text("turn 1 of 40")
    for turn in (0, 1, 2, 1):  # the Step; the two Undos and the two Steps before the server's Undo
        page.go_back()
        expect(page.locator(STATUS)).to_contain_text(f"turn {turn} of 40", timeout=20_000)
    page.go_forward()
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40", timeout=20_000)
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_contain_text("turn 2 of 40")
    no_exception_box(page)
    page.context.close()


def test_back_from_another_scenario_shows_the_step_the_player_was_at(chromium, sandbox):  # noqa: F811
    """Back from the next scenario (a server action) to the addresses the player wrote on the one before: the
    server follows each, with what was done in the browser on that screen."""
    from playwright.sync_api import expect
    from test_browser_links import settled_url

    page, _ = open_player_page(chromium, f"{sandbox.url}/?controls=start&script=add_then_answer&predict=off")
    page.keyboard.press("s")
    page.keyboard.press("e")
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    page.get_by_role("button", name="Next scenario: Two tool calls in one reply").click()
    wait_for_idle(page)
    expect(page.get_by_text("Scenario 2 of 9: Two tool calls in one reply.")).to_be_visible()
    settled_url(page, "script=two_calls_one_reply")  # the server writes its address just after its run
    page.go_back()
    expect(page.get_by_text("Scenario 1 of 9: Add two numbers, then answer.")).to_be_visible(timeout=20_000)
    expect(page.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call", timeout=20_000)
    page.go_back()
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 1 tool call", timeout=20_000)
    page.go_forward()
    expect(page.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call", timeout=20_000)
    page.go_forward()
    expect(page.get_by_text("Scenario 2 of 9: Two tool calls in one reply.")).to_be_visible(timeout=20_000)
    expect(page.locator(STATUS)).to_have_text("turn 0 of 40 · 1 message · 0 tool calls", timeout=20_000)
    no_exception_box(page)
    page.context.close()


def test_the_link_dialogs_copy_button_copies_the_link_or_selects_it_where_there_is_no_clipboard(
        chromium, sandbox):  # noqa: F811
    """Copy in the player's link dialog: the clipboard where the page may write it (a secure address, as
    127.0.0.1 is), and otherwise the link selected with the keys to copy it, as on a class server reached by its
    name over plain http, where the browser offers no clipboard at all."""
    from browser_support import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import expect

    def copy_in_dialog(page):
        page.keyboard.press("s")
        expect(page.locator(STATUS)).to_contain_text("turn 1 of 40")
        page.get_by_role("button", name="Copy link", exact=True).click()
        dialog = page.get_by_role("dialog", name="A link to this screen")
        link = dialog.locator(".lsp-link").inner_text().strip()
        assert "played=s" in link
        dialog.get_by_role("button", name="Copy", exact=True).click()
        return dialog, link

    context = chromium.new_context(viewport={"width": 1440, "height": 1300})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=sandbox.url)
    page = context.new_page()
    page.goto(f"{sandbox.url}/?controls=start&script=runaway&predict=off")
    page.locator(STATUS).wait_for(timeout=30_000)
    dialog, link = copy_in_dialog(page)
    expect(dialog.get_by_role("button", name="Copied", exact=True)).to_be_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    context.close()

    port = sandbox.url.rsplit(":", 1)[1]
    named = chromium.browser_type.launch(  # the class server by name: plain http, not a secure context
        executable_path=str(CHROMIUM), headless=True,
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP classroom.test 127.0.0.1"])
    try:
        page = named.new_page(viewport={"width": 1440, "height": 1300})
        page.goto(f"http://classroom.test:{port}/?controls=start&script=runaway&predict=off")
        page.locator(STATUS).wait_for(timeout=30_000)
        assert page.evaluate("() => window.isSecureContext") is False
        dialog, link = copy_in_dialog(page)
        assert link.startswith(f"http://classroom.test:{port}/")
        expect(dialog.get_by_role("button", name="Selected: copy it with Ctrl+C (⌘C on a Mac)")).to_be_visible()
        assert page.evaluate("() => window.getSelection().toString()").strip() == link
        no_exception_box(page)
    finally:
        named.close()


def test_a_switchs_help_mark_shows_its_help_and_leaves_the_switch_as_it_was(chromium, sandbox):  # noqa: F811
    """Streamlit draws a switch's help mark inside its label: a press on the "?" to read what All controls is must
    not switch the page to All controls, nor Predict off."""
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, sandbox.url)
    before = len(sent)
    for switch, says in (("All controls", "Every control of the sandbox"), ("Predict each turn", "Each Step stops")):
        page.get_by_role("button", name=f"Help for {switch}").click()
        expect(page.get_by_text(says)).to_be_visible()
        page.mouse.move(0, 0)
    page.wait_for_timeout(500)
    expect(page.get_by_role("switch", name="All controls")).not_to_be_checked()
    expect(page.get_by_role("switch", name="Predict each turn")).to_be_checked()
    assert len(sent) == before, "a press on a help mark started a run"
    page.get_by_text("All controls", exact=True).click()  # the switch's own words still switch it
    wait_for_idle(page)
    expect(page.get_by_role("switch", name="All controls")).to_be_checked(timeout=20_000)
    no_exception_box(page)
    page.context.close()
