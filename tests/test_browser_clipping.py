"""Nothing clipped at 1440 and 900 px in Chromium (issue 33, point 10): the run graph with a fork, the branch map,
Change the past's result row, and The loop's code and cycle. `test_browser.OVERFLOWS` measures each: a graph's
words inside their node's outline and the diagram, a code box that scrolls with its scrollbar in view, a label or
a button whose words are all there."""

import pytest
from browser_support import open_page, status_line
from test_browser import chromium, no_exception_box, nothing_cut_off, pick_view, sandbox, shot, wait_for_idle  # noqa: F401
from test_browser_change import click, open_panel


@pytest.mark.parametrize("width", [1440, 900])
def test_a_fork_its_branch_map_its_result_row_and_the_loop_fit_their_boxes(chromium, sandbox, width):  # noqa: F811
    from playwright.sync_api import expect

    page = open_page(chromium, sandbox.url, width=width, height=1300)
    try:
        click(page, "Step")
        expect(status_line(page)).to_contain_text("turn 1 of", timeout=30_000)
        open_panel(page, "Fork and edit")
        click(page, "Fork here, after turn 1")
        expect(page.get_by_role("button", name="Change it")).to_be_visible(timeout=30_000)
        page.get_by_role("button", name="Change it").scroll_into_view_if_needed()
        shot(page, f"clip-result-row-{width}.png")
        nothing_cut_off(page)  # the branch map, the result row, the run graph with its fork node
        click(page, "Step")
        expect(status_line(page)).to_contain_text("turn 2 of", timeout=30_000)
        page.locator('[data-testid="stGraphVizChart"]').filter(has_text="fork").first.scroll_into_view_if_needed()
        shot(page, f"clip-run-graph-{width}.png")
        nothing_cut_off(page)
        pick_view(page, "The loop")
        page.locator(".ls-code").first.wait_for()
        page.locator(".ls-code").first.scroll_into_view_if_needed()
        shot(page, f"clip-the-loop-{width}.png")
        nothing_cut_off(page)
        no_exception_box(page)
    finally:
        page.context.close()
