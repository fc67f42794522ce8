"""A class pressing Check at once, in Debian's Chromium: three learners, one check slot, each told their place.

The page is served with one slot (`LOOP_SANDBOX_CHECK_SLOTS=1`), so the second learner's check waits for the
first's and the third's for both; Cancel in the first lets the others move up, and every check completes.
"""

from test_browser import chromium, no_exception_box, shot  # noqa: F401  pytest fixtures and helpers
from test_class_hosting import one_slot  # noqa: F401  a pytest fixture
from test_exercise import CORRECT_LOOP
from test_exercise_browser import HANGS_AFTER_THE_FIRST, open_exercise


def test_each_learner_sees_their_place_and_cancel_lets_the_others_move_up(chromium, one_slot):  # noqa: F811
    from playwright.sync_api import expect

    pages = [open_exercise(chromium, one_slot.url) for _ in range(3)]
    try:
        (first, first_code), (second, second_code), (third, third_code) = pages
        first_code.fill(HANGS_AFTER_THE_FIRST)
        second_code.fill(CORRECT_LOOP)
        third_code.fill(CORRECT_LOOP)
        first.get_by_role("button", name="Check my loop").click()
        expect(first.get_by_text("Checking your loop")).to_be_visible(timeout=30_000)
        second.get_by_role("button", name="Check my loop").click()
        expect(second.get_by_text("your check is next")).to_be_visible(timeout=30_000)
        third.get_by_role("button", name="Check my loop").click()
        expect(third.get_by_text("1 check ahead of yours in the queue")).to_be_visible(timeout=30_000)
        shot(third, "10-check-queued.png")

        first.get_by_role("button", name="Cancel").click()  # the running check ends, the queue moves up
        expect(first.get_by_text("Check cancelled")).to_be_visible(timeout=10_000)
        expect(second.get_by_text("scripts pass: well done.")).to_be_visible(timeout=60_000)
        expect(third.get_by_text("scripts pass: well done.")).to_be_visible(timeout=60_000)
        for page, _ in pages:
            no_exception_box(page)
    finally:
        for page, _ in pages:
            page.context.close()
