"""The `Write your loop` view: the lesson's exercise, checked against every FakeModel script.

A page script of `sandbox_app.py`'s navigation. The learner's code runs through
`agent.exercise` (a process of its own, walled off) and the verdicts are said
by `agent.page.exercise_view`. A check draws each script's verdict as soon as
that script is done; Cancel (or any other click) stops the check at once, since
the wait for the learner's process calls back into Streamlit a few times a
second, and every Streamlit call is a point where a run can be stopped. The
learner's process is ended whichever way the check stops. The editor's text is
kept in the learner's browser as they type and comes back on a reload or in a
new tab (`views/draft_keeper.py`).
"""

from __future__ import annotations

import contextlib
import time

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from agent.exercise import (
    LoopCheck,
    QueueRefused,
    ScriptCheck,
    code_runner_enabled,
    code_runner_notice,
    exercise_script_names,
    place_words,
    protection,
    shared_queue,
    starter_source,
)
from agent.page import exercise_view
from agent.page.exercise_page import CheckShown
from agent.page.safe_text import as_code_block
from views.draft_keeper import forget_draft, keep_draft
from views.session import exercise

ss = st.session_state
NEWLINE = "\n"  # joins inside an f-string


def write_loop_view() -> None:
    st.title("Write your loop")
    st.caption("The lesson's exercise: write `run_agent` yourself. **Check** runs it against every FakeModel "
               "script, in the lesson's order, which refuses a bad request as the API would, and compares it with "
               "the reference loop.")
    wall = protection()
    st.sidebar.caption("The same check in a terminal: `python -m agent check-loop my_loop.py`.")
    st.sidebar.caption(f"{exercise_view.PROTECTION_ICONS.get(wall.kind, '')} **Sandbox: {wall.kind}.** {wall.words}")
    address = st.get_option("server.address")
    runner_on = code_runner_enabled(address)
    if not runner_on:
        st.warning(code_runner_notice(address), icon=":material/lock:")
    starter = starter_source()
    if "loop_code" not in ss:
        ss.loop_code = starter
    st.text_area("my_loop.py", key="loop_code", height=500, help="Tab indents and Shift+Tab takes an indent away "
                 "(on every selected line); press Esc, then Tab, to move on. Your code stays here in this view and "
                 "the other, and this browser keeps it for a reload or a new tab.")
    keep_draft(starter)  # the line under the editor; a draft it brings back is in the editor on the next run
    # A row that wraps, each button as wide as its words: fixed columns cut them to "C." on a narrow page.
    row = st.container(horizontal=True, vertical_alignment="center", key="loop_buttons")
    checked = row.button("Check my loop", type="primary", icon=":material/play_arrow:", disabled=not runner_on)
    row.download_button("Download my_loop.py", ss.loop_code, file_name="my_loop.py", mime="text/x-python",
                        on_click="ignore", icon=":material/download:")
    with row.popover("Start over", icon=":material/restart_alt:"):
        st.caption("This replaces your code with the starter, here and in this browser's storage. Download it "
                   "first to keep it.")
        st.button("Replace my code with the starter", on_click=restore_starter)
    if checked and runner_on:
        run_check(ss.loop_code)
    elif (shown := exercise().check) is not None:
        loop_check_results(shown)


def restore_starter() -> None:
    exercise().check = None
    ss.loop_code = starter_source()
    forget_draft()


def run_check(source: str) -> None:
    """Check the code, drawing each script's verdict as it comes, with a Cancel while it waits or runs.

    The check first waits its turn in the process's queue (`agent.exercise.check_queue`): a class pressing
    Check together shares the cores one check at a time each, and the page says each learner's place."""
    headline, cancel_at, problem_at = st.empty(), st.empty(), st.container()
    try:
        ticket = shared_queue().join(exercise().owner)
    except QueueRefused as exc:
        headline.warning(str(exc), icon=":material/hourglass_top:")
        return
    cancel_at.button("Cancel", icon=":material/stop_circle:", key="cancel_check")  # a click stops this run
    # One place a script: each takes the last check's verdict off the screen at once, so no verdict of other
    # code (a "pass", faded) stands among this check's while it waits and runs.
    rows = [st.empty() for _ in exercise_script_names()]
    with ticket:
        ticket.wait(lambda ahead: headline.info(place_words(ahead), icon=":material/groups:"))
        check_now(source, headline, cancel_at, problem_at, rows)


def check_now(source: str, headline: DeltaGenerator, cancel_at: DeltaGenerator, problem_at: DeltaGenerator,
              rows: list[DeltaGenerator]) -> None:
    """The check itself, once it holds a slot: each script's verdict in its place of `rows`, as it comes."""
    total, started = len(rows), time.monotonic()
    check = LoopCheck(protection=protection().kind)
    page = exercise()
    page.check = CheckShown(source, check, cancelled=True)  # until it finishes, a stopped check shows as cancelled

    def tick() -> None:  # a point where Streamlit can stop this run, and a sign of life
        headline.info(f"{exercise_view.progress_headline(len(check.scripts), total)} "
                      f"({time.monotonic() - started:.1f} s)", icon=":material/hourglass_top:")

    tick()
    with contextlib.closing(exercise_view.stream_check(source, tick)) as verdicts:
        for item in verdicts:
            if isinstance(item, str):
                check.problem = item
                break
            check.scripts.append(item)
            script_row(item, source, first_failure=not item.passed and all(r.passed for r in check.scripts[:-1]),
                       at=rows[len(check.scripts) - 1] if len(check.scripts) <= len(rows) else None)
            tick()
    cancel_at.empty()
    page.check = CheckShown(source, check, cancelled=False)
    with headline.container():
        (st.success if check.passed else st.error)(exercise_view.check_headline(check))
    with problem_at:
        problem_code(check, source)


def problem_code(check: LoopCheck, source: str) -> None:
    line = exercise_view.problem_line(check.problem or "")
    if line:
        st.html(exercise_view.code_at_line_html(source, line, f"line {line}"))


def loop_check_results(shown: CheckShown) -> None:
    source, check, cancelled = shown.source, shown.check, shown.cancelled
    if source != ss.loop_code:
        st.info("You have changed the code since this check: check it again to see where it stands now.",
                icon=":material/edit:")
    if cancelled:
        st.warning(exercise_view.check_headline(check, cancelled=True), icon=":material/stop_circle:")
    else:
        (st.success if check.passed else st.error)(exercise_view.check_headline(check))
    problem_code(check, source)
    first_failure = next((result for result in check.scripts if not result.passed), None)
    for result in check.scripts:
        script_row(result, source, first_failure=result is first_failure)


def script_row(result: ScriptCheck, source: str, first_failure: bool, at: DeltaGenerator | None = None) -> None:
    with (at or st).expander(exercise_view.script_label(result), expanded=first_failure):
        script_result(result, source)


def script_result(result: ScriptCheck, source: str) -> None:
    """One script's verdict: the output that matched, or the failure with its evidence."""
    if result.passed:  # one element, not a caption and a code box: a class's checks draw fourteen of these each
        st.markdown(":gray[Your loop printed exactly what the reference loop prints, and every request was "
                    f"accepted:]\n\n{as_code_block(NEWLINE.join(result.actual))}")
        return
    st.markdown(exercise_view.failure_headline(result))
    if result.mistake:
        st.info(exercise_view.mistake_words(result), icon=":material/lightbulb:")
    if result.bad_request:
        st.html(exercise_view.request_pair_html(result.bad_request))
    elif result.actual:
        st.html(exercise_view.output_html(result))
    if result.line:
        st.html(exercise_view.code_at_line_html(source, result.line, result.line_note))


write_loop_view()
