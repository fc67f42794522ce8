"""Start here in Debian's Chromium, as a newcomer uses it: a fresh browser context, a bare first visit, and only
what the screen shows, by its visible words. At 1440 and 900 px."""

import pytest
from browser_support import wait_for_idle
from test_browser import chromium, no_exception_box, sandbox, shot  # noqa: F401  pytest fixtures

RIGHT_FIRST = "2. Run the call, append one message of results, and ask the model again"


def first_visit(browser, url: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 1300})
    page = context.new_page()
    page.goto(url)  # no link: the beginner's page
    wait_for_idle(page)
    page.get_by_role("button", name="Step", exact=True).wait_for(timeout=30_000)
    return page


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    wait_for_idle(page)


@pytest.mark.parametrize("width", [1440, 900])
def test_a_newcomer_predicts_through_the_reference_run_to_its_answer(chromium, sandbox, width):  # noqa: F811
    from playwright.sync_api import expect

    page = first_visit(chromium, sandbox.url, width)
    expect(page.get_by_text("Scenario 1 of 9: Add two numbers, then answer.")).to_be_visible()
    expect(page.get_by_text("Message threads", exact=True)).to_have_count(0)  # the rest is one switch away
    expect(page.get_by_text("Change the past")).to_have_count(0)
    click(page, "Step")
    expect(page.get_by_text("Turn 1's reply is back. What does the loop do now?")).to_be_visible()
    expect(page.get_by_text("stop_reason is the reply saying why")).to_be_visible()
    shot(page, f"start-here-question-{width}.png")
    click(page, "1. Return the text as the answer")  # wrong: the reply asked for a tool
    expect(page.get_by_text("Not this time. You said: Return the text as the answer.")).to_be_visible()
    expect(page.get_by_text("How many messages will the next request's")).to_be_visible()
    click(page, "3. 3")
    expect(page.get_by_text("Right. You said: 3.")).to_be_visible()
    expect(page.get_by_text("Predictions: 1 right of 2")).to_be_visible()
    click(page, "Step")
    click(page, "1. Return the text as the answer")
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    expect(page.get_by_text("Predictions: 2 right of 3")).to_be_visible()
    expect(page.get_by_role("button", name="Next scenario: Two tool calls in one reply")).to_be_visible()
    shot(page, f"start-here-answer-{width}.png")
    no_exception_box(page)

    page.get_by_text("All controls", exact=True).click()  # every control, the same run
    wait_for_idle(page)
    expect(page.get_by_text("Message threads", exact=True)).to_be_visible()
    expect(page.get_by_text("turn 2 of 40")).to_be_visible()
    page.get_by_text("All controls", exact=True).click()
    wait_for_idle(page)
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    click(page, "Next scenario: Two tool calls in one reply")
    expect(page.get_by_text("Scenario 2 of 9: Two tool calls in one reply.")).to_be_visible()
    page.keyboard.press("s")  # the keys: S steps, 2 answers
    wait_for_idle(page)
    expect(page.get_by_text("Turn 1's reply is back.")).to_be_visible()
    page.keyboard.press("2")
    wait_for_idle(page)
    expect(page.get_by_text("Right. You said: Run the 2 calls")).to_be_visible()
    no_exception_box(page)
    page.context.close()


def test_a_link_made_mid_prediction_opens_on_the_question(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page = first_visit(chromium, sandbox.url, 1440)
    click(page, "Step")
    click(page, RIGHT_FIRST)
    expect(page.get_by_text("How many messages will the next request's")).to_be_visible()
    url = page.url
    assert "controls=start" in url
    page.context.close()
    other = chromium.new_context(viewport={"width": 1440, "height": 1300}).new_page()
    other.goto(url)
    wait_for_idle(other)
    expect(other.get_by_text("How many messages will the next request's")).to_be_visible(timeout=20_000)
    expect(other.get_by_text("Right. You said: Run the call")).to_be_visible()
    no_exception_box(other)
    other.context.close()


def test_the_browser_remembers_all_controls_for_the_next_bare_visit(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page = first_visit(chromium, sandbox.url, 1440)
    page.get_by_text("All controls", exact=True).click()
    wait_for_idle(page)
    expect(page.get_by_text("Message threads", exact=True)).to_be_visible()
    again = page.context.new_page()  # the same browser: its localStorage
    again.goto(sandbox.url)
    expect(again.get_by_text("Message threads", exact=True)).to_be_visible(timeout=30_000)
    assert "controls" not in again.url or "controls=start" not in again.url
    fresh = chromium.new_context(viewport={"width": 1440, "height": 1300}).new_page()  # another browser
    fresh.goto(sandbox.url)
    wait_for_idle(fresh)
    expect(fresh.get_by_text("Scenario 1 of 9")).to_be_visible(timeout=30_000)
    fresh.context.close()
    page.context.close()


def test_the_turn_limit_and_a_stop_are_predicted_by_their_words(chromium, sandbox):  # noqa: F811
    from playwright.sync_api import expect

    page = first_visit(chromium, f"{sandbox.url}/?controls=start&script=short_leash", 900)
    expect(page.get_by_text("Scenario 7 of 9: A runaway on a short leash")).to_be_visible()
    for turn in (1, 2):
        click(page, "Step")
        click(page, RIGHT_FIRST)
        click(page, f"3. {2 * turn + 1}")
        expect(page.get_by_text(f"Right. You said: {2 * turn + 1}.")).to_be_visible()
    click(page, "Step")
    click(page, "2. Run the call, append one message of results, and ask the model again")  # wrong: the last turn
    expect(page.get_by_text("Not this time.")).to_be_visible()
    expect(page.get_by_text("The loop did: Run the call, then stop: the turn limit is reached.")).to_be_visible()
    expect(page.get_by_text("Predictions: 4 right of 5")).to_be_visible()
    shot(page, "start-here-limit-900.png")
    page.goto(f"{sandbox.url}/?controls=start&script=refusal")
    wait_for_idle(page)
    click(page, "Step")
    click(page, "3. Stop and say why, running nothing")
    expect(page.get_by_text("Right. You said: Stop and say why, running nothing.")).to_be_visible()
    no_exception_box(page)
    page.context.close()
