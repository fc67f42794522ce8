"""The `Write your loop` view: the lesson's exercise, checked against every FakeModel script.

A page script of `sandbox_app.py`'s navigation. The learner's code runs through
`agent.exercise` (a process of its own, with limits) and the verdicts are said
by `agent.page.exercise_view`.
"""

from __future__ import annotations

import streamlit as st

from agent.exercise import LoopCheck, ScriptCheck, code_runner_enabled, code_runner_notice, starter_source
from agent.page import exercise_view

ss = st.session_state


def write_loop_view() -> None:
    st.title("Write your loop")
    st.caption("The lesson's exercise: write `run_agent` yourself. **Check** runs it against every FakeModel "
               "script, which refuses a bad request as the API would, and compares it with the reference loop.")
    st.html(exercise_view.EXERCISE_CSS)
    st.sidebar.caption("The same check in a terminal: `python -m agent check-loop my_loop.py`. Your code runs in a "
                       "process of its own, with a time and a memory limit, once for each script.")
    address = st.get_option("server.address")
    runner_on = code_runner_enabled(address)
    if not runner_on:
        st.warning(code_runner_notice(address), icon=":material/lock:")
    if "loop_code" not in ss:
        ss.loop_code = starter_source()
    st.text_area("my_loop.py", key="loop_code", height=500, help="Indent with spaces: Tab moves to the next "
                 "control. Your code stays here while the page is open, in this view and the other.")
    check_at, download_at, reset_at, _ = st.columns([1.2, 1.5, 1.2, 3], vertical_alignment="center")
    checked = check_at.button("Check my loop", type="primary", icon=":material/play_arrow:", disabled=not runner_on,
                              width="stretch")
    download_at.download_button("Download my_loop.py", ss.loop_code, file_name="my_loop.py", mime="text/x-python",
                                on_click="ignore", icon=":material/download:", width="stretch")
    with reset_at.popover("Start over", icon=":material/restart_alt:", width="stretch"):
        st.caption("This replaces your code with the starter. Download it first to keep it.")
        st.button("Replace my code with the starter", on_click=restore_starter)
    if checked and runner_on:
        with st.spinner("Running your loop against every script…"):
            ss.loop_check = ss.loop_code, exercise_view.check_source(ss.loop_code)
    if "loop_check" in ss:
        loop_check_results(*ss.loop_check)


def restore_starter() -> None:
    ss.loop_code = starter_source()
    ss.pop("loop_check", None)


def loop_check_results(source: str, check: LoopCheck) -> None:
    if source != ss.loop_code:
        st.info("You have changed the code since this check: check it again to see where it stands now.",
                icon=":material/edit:")
    (st.success if check.passed else st.error)(exercise_view.check_headline(check))
    line = exercise_view.problem_line(check.problem or "")
    if line:
        st.html(exercise_view.code_at_line_html(source, line, f"line {line}"))
    first_failure = next((result for result in check.scripts if not result.passed), None)
    for result in check.scripts:
        with st.expander(exercise_view.script_label(result), expanded=result is first_failure):
            script_result(result, source)


def script_result(result: ScriptCheck, source: str) -> None:
    """One script's verdict: the output that matched, or the failure with its evidence."""
    if result.passed:
        st.caption("Your loop printed exactly what the reference loop prints, and every request was accepted:")
        st.code("\n".join(result.actual), language=None, wrap_lines=True)
        return
    st.markdown(exercise_view.failure_headline(result))
    if result.mistake:
        st.info(exercise_view.mistake_words(result), icon=":material/lightbulb:")
    if result.bad_request:
        st.html(exercise_view.request_pair_html(result.bad_request))
    elif result.actual:
        st.html(exercise_view.output_html(result))
    if result.error and result.error.line and not result.bad_request:
        st.html(exercise_view.code_at_line_html(source, result.error.line, f"{result.error.type} raised here"))




write_loop_view()
