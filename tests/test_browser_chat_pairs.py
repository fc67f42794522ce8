"""The Chat Completions side by side in Chromium: every row is one message beside its translation, at any width.

Issue 25, point 1: a "left out: thinking" note and each extra `role: "tool"` message used to take a grid cell of
their own, so from messages[2] on the Messages API cards stood under the Chat Completions header. Here the DOM
says which message each side holds, and the boxes as drawn say where each side stands. The page runs as
`streamlit run sandbox_app.py` on 127.0.0.1 (the fixtures are `tests/test_browser.py`'s). Screenshots go to
test-artifacts/.
"""

import json

import pytest
from browser_support import open_page
from test_browser import ARTIFACTS, chromium, no_exception_box, nothing_cut_off, sandbox, shot, wait_for_idle
from test_browser_change import choose, click, shows

from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.openai_format import side_by_side, translate_message
from agent.scripts import load_script
from agent.summary import console_lines

FIXTURES = (chromium, sandbox)  # test_browser.py's fixtures: pytest finds them by these names here

# Each row as drawn: its two sides' data, the cards they hold, and their boxes on the page. Found by Playwright's
# locator, which looks inside the player's shadow root as a person's eye does.
ROW = ".ls-chat-pairs > .ls-pair:not(.ls-pair-head)"
ROWS = """(rows) => rows.map(row => {
  const box = el => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,
                                                                     bottom: r.bottom}; };
  const sides = [...row.children].map(side => ({
    side: side.dataset.side, row: side.dataset.row, box: box(side),
    first: side.dataset.chatFirst, count: side.dataset.chatCount,
    label: [...side.querySelectorAll(':scope > .ls-side-label')].filter(l => l.offsetParent).map(l => l.innerText),
    indices: [...side.querySelectorAll('.ls-msg .ls-index')].filter(i => /^messages\\[/.test(i.innerText))
      .map(i => i.innerText),
    chat: [...side.querySelectorAll('.ls-oa pre')].map(pre => pre.innerText),
    notes: [...side.querySelectorAll(':scope > .ls-gap')].map(gap => gap.innerText)}));
  return {row: row.dataset.row, box: box(row), sides};
})"""


def played(name: str) -> RunState:
    script = load_script(name)
    state = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return state


@pytest.mark.parametrize("width", [1440, 900])
@pytest.mark.parametrize(("name", "title"), [("add_then_answer", "Add two numbers, then answer"),
                                             ("two_calls_one_reply", "Two tool calls in one reply"),
                                             ("thinking_then_answer", "Thinking, then the answer")])
def test_every_row_sets_a_message_beside_its_own_translation(chromium, sandbox, name, title, width):
    from playwright.sync_api import expect

    expected = played(name)  # the same script run off the page: what each row must hold
    page = open_page(chromium, sandbox.url, width=width, height=1400)
    try:
        choose(page, "Script", title)
        click(page, "Run to end")
        shows(page, console_lines(expected)[-1])  # the whole run is on the page, not a rerun still on its way
        page.get_by_test_id("stMain").get_by_role("radio", name="Messages", exact=True).click()
        expect(page.get_by_role("region", name="Messages")).to_be_visible(timeout=15_000)  # the view a person sees
        wait_for_idle(page)
        page.get_by_text("Beside it: Chat Completions").click()
        wait_for_idle(page)
        expected_rows = len(expected.messages) + bool(expected.system) + 1
        expect(page.locator(".ls-chat-pairs > .ls-pair")).to_have_count(expected_rows + 1, timeout=15_000)
        rows = page.locator(ROW).evaluate_all(ROWS)
        pairs = side_by_side(expected.messages, expected.system)
        assert [r["row"] for r in rows] == (["system"] if expected.system else []) + [
            str(i) for i in range(len(expected.messages))] + ["finish"]
        stacked = None
        for row, pair in zip(rows, pairs, strict=False):
            left, right = row["sides"]
            assert (left["side"], right["side"]) == ("messages-api", "chat-completions")
            assert left["row"] == right["row"] == row["row"]
            assert [json.loads(text) for text in right["chat"]] == pair.openai
            if pair.index is not None:
                assert left["indices"] == [f"messages[{pair.index}]"]
                assert pair.openai == translate_message(expected.messages[pair.index])
            assert bool(right["notes"]) == bool(pair.left_out)  # a note stays in the row of what it is about
            # As drawn: both sides inside their row; side by side (left first) or stacked (the Messages API on top).
            for side in (left, right):
                assert row["box"]["top"] - 1 <= side["box"]["top"] and side["box"]["bottom"] <= row["box"]["bottom"] + 1
            beside = abs(left["box"]["top"] - right["box"]["top"]) < 1 and left["box"]["right"] <= right["box"]["left"]
            above = left["box"]["bottom"] <= right["box"]["top"] + 1
            assert beside or above, row
            stacked = above and not beside if stacked is None else stacked
            assert stacked == (above and not beside)  # one layout for the whole grid
            if stacked:  # no column header stands above a stacked pair: each side says which API it is
                assert left["label"][0].startswith("Messages API") and right["label"][0].startswith("Chat Completions")
        header = page.locator(".ls-chat-pairs > .ls-pair-head")
        assert header.is_visible() == (not stacked)
        if not stacked:
            heads = page.locator(".ls-pair-head > .ls-side").evaluate_all("""(sides) => sides.map(
                side => ({side: side.dataset.side, text: side.innerText, left: side.getBoundingClientRect().left}))""")
            assert [h["side"] for h in heads] == ["messages-api", "chat-completions"]
            assert heads[0]["text"].startswith("Messages API") and heads[1]["text"].startswith("Chat Completions")
            for row in rows:  # every side stands under its own column's header
                assert [abs(s["box"]["left"] - h["left"]) < 1 for s, h in zip(row["sides"], heads, strict=True)] == [
                    True, True]
        assert stacked == (width == 900), f"at {width} px the pairs are {'stacked' if stacked else 'side by side'}"
        nothing_cut_off(page)
        no_exception_box(page)
        grid = page.locator(".ls-chat-pairs")
        grid.scroll_into_view_if_needed()
        shot(page, f"25-chat-pairs-{name}-{width}.png")
        # The whole grid in one picture: a viewport taller than the grid, or the picture is cut at the window.
        page.set_viewport_size({"width": width, "height": int(grid.bounding_box()["height"]) + 600})
        wait_for_idle(page)
        grid.screenshot(path=str(ARTIFACTS / f"25-chat-pairs-{name}-{width}-grid.png"))
    finally:
        page.context.close()
