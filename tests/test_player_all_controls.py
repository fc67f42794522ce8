"""All controls' player in Debian's Chromium: a script's run steps, looks back and predicts in the browser with
nothing sent to the server, in each view the player draws (Run, The loop, Messages); the page's own switches hand
over what was done first, and a link or a reload opens the same screen. Read as a learner reads the page: visible
text, roles and labels, the graph's texts."""

import pytest
from browser_support import PANEL, wait_for_idle
from test_browser import chromium, no_exception_box, sandbox, shot  # noqa: F401  pytest fixtures
from test_player_page import STATUS, open_player_page, server_click

REFERENCE = "?controls=all&script=add_then_answer&predict=off"


def pick_view(page, view: str) -> None:
    """The view picker is the page's own: a server run, after the player's hand-over."""
    page.locator(".st-key-tab").get_by_text(view, exact=True).click()
    wait_for_idle(page)
    page.locator(STATUS).wait_for(timeout=20_000)


@pytest.mark.parametrize("width", [1440, 900])
def test_all_controls_steps_and_looks_back_in_the_player_in_every_view_it_draws(chromium, sandbox,  # noqa: F811
                                                                                width):
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, sandbox.url + "/" + REFERENCE, width)
    expect(page.get_by_text("No turn has gone through yet. Step sends the first request: the task, alone.")) \
        .to_be_visible()
    before = len(sent)
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 1 tool call")
    expect(page.get_by_text("Turn 1 sent", exact=True)).to_be_visible()
    expect(page.get_by_text("with stop_reason tool_use, and the loop ran the tool calls")).to_be_visible()
    expect(page.locator(".lsp-console")).to_contain_text('turn 1: add {"a": 2, "b": 3} -> 5')
    expect(page.get_by_role("img", name="The run graph: ask, the tool calls, ask again, the outcome")
           .get_by_text("ask 1")).to_be_visible()
    page.keyboard.press("s")
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    expect(page.get_by_text("new in turn 2")).to_be_visible()
    page.get_by_text("The exact request (JSON)").click()
    expect(page.locator(".lsp-json").first).to_contain_text('"model": "fake"')
    page.get_by_role("slider", name="Turn looked at").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible()
    page.wait_for_timeout(300)
    assert len(sent) == before, "a Step or a look back in the player went to the server"
    shot(page, f"all-controls-player-run-{width}.png")

    pick_view(page, "The loop")  # the server hears the Steps and the look back first: turn 1 is lit
    expect(page.get_by_text("with the lines turn 1 went through lit")).to_be_visible()
    expect(page.get_by_role("img", name="The loop's cycle, the way this turn went lit")).to_be_visible()
    page.keyboard.press("End")
    expect(page.get_by_text("with the lines turn 2 went through lit")).to_be_visible()
    shot(page, f"all-controls-player-loop-{width}.png")
    pick_view(page, "Messages")
    expect(page.get_by_text("4 messages after turn 2; the ones turn 2 added are marked. This is where the run "
                            "ended.")).to_be_visible()
    page.keyboard.press("r")  # Reset, in the browser
    expect(page.get_by_text("Before the first turn, messages holds one message: the task.", exact=False)) \
        .to_be_visible()
    page.reload()  # the address holds the view and what was done in the browser
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_have_text("turn 0 of 40 · 1 message · 0 tool calls", timeout=20_000)
    expect(page.get_by_text("4 messages after turn", exact=False)).to_have_count(0)
    expect(page.get_by_text("Before the first turn, messages holds one message", exact=False)).to_be_visible()
    page.keyboard.press("z")  # Undo of the Reset: the server's, since the reload
    expect(page.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call", timeout=20_000)
    no_exception_box(page)
    page.context.close()


def test_all_controls_predicts_in_the_player_and_says_where_the_line_is_lit(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, sandbox.url + "/?controls=all&script=add_then_answer&predict=on")
    before = len(sent)
    page.keyboard.press("s")
    expect(page.get_by_text("Turn 1's reply is back. What does the loop do now?")).to_be_visible()
    page.keyboard.press("s")  # the question waits for its answer
    expect(page.get_by_text("Answer the question first (keys 1 to 4): then Step goes on.")).to_be_visible()
    page.keyboard.press("2")
    page.keyboard.press("3")
    expect(page.get_by_text("Predictions: 2 right of 2")).to_be_visible()
    expect(page.get_by_text("(lit in The loop view).").first).to_be_visible()  # the Run view is the one shown
    page.wait_for_timeout(300)
    assert len(sent) == before, "a Step or an answer in the player went to the server"
    no_exception_box(page)
    page.context.close()


def test_what_the_player_does_not_draw_is_the_servers_and_takes_over_where_the_player_was(chromium,  # noqa: F811
                                                                                          sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, sandbox.url + "/" + REFERENCE)
    page.keyboard.press("s")
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 1 tool call")
    page.get_by_text(PANEL).click()  # Change the past open: the page draws the run itself
    expect(page.get_by_role("slider", name="Look back: the state after turn")).to_be_visible(timeout=20_000)
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_have_count(0)
    expect(page.get_by_text("turn 1 of 40 · 3 messages · 1 tool call")).to_be_visible()
    server_click(page, "Step")  # the page's own Step, from where the player was
    expect(page.get_by_text("turn 2 of 40 · 4 messages · 1 tool call")).to_be_visible()
    page.get_by_text(PANEL).click()  # closed: the player again, where the page was
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call", timeout=20_000)
    no_exception_box(page)
    page.context.close()


@pytest.mark.parametrize("first", ["", "s"])
def test_a_key_pressed_as_the_page_takes_the_run_over_is_the_pages_step(chromium, sandbox, first):  # noqa: F811
    """S pressed at once after a click that opens Change the past, while the player is still on screen: the page,
    which draws the run from then on, takes the Step; it is not played later by the player drawn when the panel
    closes.
    With a Step first, the click waits for the server to hear it; without, the click goes at once."""
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, sandbox.url + "/" + REFERENCE)
    if first:
        page.keyboard.press(first)
        expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 1 tool call")
    page.get_by_text(PANEL).click()
    page.keyboard.press("s")  # at once: before the page has drawn the run itself
    after = "turn 2 of 40 · 4 messages · 1 tool call" if first else "turn 1 of 40 · 3 messages · 1 tool call"
    expect(page.get_by_role("slider", name="Look back: the state after turn")).to_be_visible(timeout=20_000)
    expect(page.get_by_text(after)).to_be_visible(timeout=20_000)
    wait_for_idle(page)
    expect(page.locator(STATUS)).to_have_count(0)
    expect(page.get_by_text(after)).to_be_visible()
    page.get_by_text(PANEL).click()
    expect(page.locator(STATUS)).to_have_text(after, timeout=20_000)
    wait_for_idle(page)
    page.wait_for_timeout(500)  # a key held back and played late would show by now
    expect(page.locator(STATUS)).to_have_text(after)
    no_exception_box(page)
    page.context.close()


def test_an_address_copied_from_all_controls_opens_the_same_screen_elsewhere(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, sandbox.url + "/" + REFERENCE)
    pick_view(page, "Messages")
    page.keyboard.press("s")
    page.keyboard.press("s")
    page.keyboard.press("ArrowLeft")  # all in the browser: the address holds them
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible()
    assert "played=" in page.url and "view=messages" in page.url
    other, _ = open_player_page(chromium, page.url)
    expect(other.get_by_text("Looking back at turn 1 of 2.")).to_be_visible(timeout=20_000)
    expect(other.get_by_text("3 messages after turn 1; the ones turn 1 added are marked.")).to_be_visible()
    expect(other.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call")
    other.keyboard.press("End")
    expect(other.get_by_text("4 messages after turn 2; the ones turn 2 added are marked. This is where the run "
                             "ended.")).to_be_visible()
    no_exception_box(other)
    other.context.close()
    page.context.close()


def test_keys_and_clicks_made_before_the_server_answers_a_page_control_are_not_lost(chromium, sandbox):  # noqa: F811
    """A learner does not wait for the server: a key pressed right after a click on the view picker goes to the
    player it draws, and a second control clicked while the first waits for the server's hand-over is clicked too."""
    from playwright.sync_api import expect

    page, _ = open_player_page(chromium, sandbox.url + "/" + REFERENCE)
    page.keyboard.press("e")
    expect(page.locator(STATUS)).to_have_text("turn 2 of 40 · 4 messages · 1 tool call")
    page.locator(".st-key-tab").get_by_text("Messages", exact=True).click()  # a server run, after the hand-over
    page.keyboard.press("ArrowLeft")  # at once: before the server has answered
    expect(page.get_by_text("3 messages after turn 1; the ones turn 1 added are marked.")).to_be_visible(
        timeout=20_000)
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible()
    wait_for_idle(page)
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible()
    assert "view=messages" in page.url and ("played=l1" in page.url or "turn=1" in page.url)

    loop_view = page.locator(".st-key-tab").get_by_text("The loop", exact=True).bounding_box()
    threads = page.get_by_text("Message threads", exact=True).bounding_box()  # the sidebar's switch
    page.keyboard.press("End")  # in the browser: the next click waits while the server takes it up
    for box in (loop_view, threads):  # one right after the other: the second while the first waits
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    wait_for_idle(page)
    expect(page.get_by_text("with the lines turn 2 went through lit")).to_be_visible(timeout=20_000)
    expect(page.get_by_role("switch", name="Message threads")).to_be_checked()
    no_exception_box(page)
    page.context.close()


def test_a_click_that_starts_no_server_run_hands_nothing_over_and_holds_no_key(chromium, sandbox):  # noqa: F811
    """A click beside the page's controls, on a caption, on the view already picked or on a help mark starts no
    run (a switch's help mark shows its help and flips nothing): the player's Steps stay in the browser, and the
    next key acts at once, not after the wait for a run that never comes."""
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, sandbox.url + "/" + REFERENCE)
    page.keyboard.press("s")  # in the browser: the server has not heard it
    expect(page.locator(STATUS)).to_have_text("turn 1 of 40 · 3 messages · 1 tool call")
    row = page.locator(".st-key-view_row").bounding_box()
    before = len(sent)
    page.mouse.click(row["x"] + row["width"] - 5, row["y"] + row["height"] / 2)  # the row's blank end
    page.locator(".st-key-undo_row").get_by_text("pick an answer").click()  # the keys' caption
    page.locator(".st-key-tab").get_by_text("Run", exact=True).click()  # the view already picked
    page.get_by_role("button", name="Help for Model").click()
    page.get_by_role("button", name="Help for Every turn").click()  # in the switch's label: it shows, flips nothing
    expect(page.get_by_text("Draw the run graph's every turn from the task down")).to_be_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("r")  # Reset, in the browser: a key that waited for a run would act seconds later
    expect(page.get_by_text("No turn has gone through yet. Step sends the first request: the task, alone.")) \
        .to_be_visible(timeout=1_500)
    page.wait_for_timeout(500)
    assert len(sent) == before, "a click that starts no run handed the player's actions to the server"
    expect(page.get_by_role("switch", name="Every turn")).not_to_be_checked()

    page.locator(".st-key-tab").get_by_text("The loop", exact=True).click()  # one that does: handed over first
    page.keyboard.press("s")  # waits for the player that run draws, and Steps there
    expect(page.get_by_text("with the lines turn 1 went through lit")).to_be_visible(timeout=20_000)
    assert len(sent) > before
    no_exception_box(page)
    page.context.close()


@pytest.mark.parametrize("width", [1440, 900])
def test_chat_completions_beside_the_messages_steps_and_looks_back_in_the_player(chromium, sandbox,  # noqa: F811
                                                                                width):
    """The Messages view's switch sets Chat Completions beside the array; the player draws it, so a Step and a look
    back there send nothing to the server, and each shows the rows of the messages of its turn."""
    from playwright.sync_api import expect

    page, sent = open_player_page(chromium, sandbox.url + "/" + REFERENCE + "&view=messages", width)
    page.get_by_text("Beside it: Chat Completions").click()  # the page's own switch: a server run
    wait_for_idle(page)
    expect(page.get_by_role("cell", name="one role: \"tool\" message per result, with its tool_call_id")) \
        .to_be_visible(timeout=20_000)
    rows = page.locator(".ls-chat-pairs > .ls-pair:not(.ls-pair-head)")
    expect(rows).to_have_count(2)  # the system prompt's row and the task's
    before = len(sent)
    page.keyboard.press("s")
    expect(rows).to_have_count(5)  # and the reply's, the results', and stop_reason beside finish_reason
    expect(page.get_by_text('finish_reason "tool_calls"')).to_be_visible()
    tool = page.locator(".ls-oa").filter(has_text="tool_call_id")
    expect(tool).to_have_count(1)
    assert "ls-new" in tool.get_attribute("class")  # what turn 1 added, marked as the page marks it
    page.keyboard.press("s")
    expect(page.get_by_text('finish_reason "stop"')).to_be_visible()
    expect(rows).to_have_count(6)
    assert "ls-new" not in tool.get_attribute("class")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible()
    expect(rows).to_have_count(5)
    expect(page.get_by_text("3 messages after turn 1; the ones turn 1 added are marked.")).to_be_visible()
    page.wait_for_timeout(300)
    assert len(sent) == before, "a Step or a look back beside Chat Completions went to the server"
    shot(page, f"all-controls-player-chat-{width}.png")
    page.get_by_text("Beside it: Chat Completions").click()  # off: the array again, where the player was
    wait_for_idle(page)
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible(timeout=20_000)
    expect(rows).to_have_count(0)
    no_exception_box(page)
    page.context.close()
