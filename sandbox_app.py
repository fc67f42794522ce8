"""Loop Sandbox: step an agent loop in the browser and watch the conversation grow.

Run it with `streamlit run sandbox_app.py`. This file only describes the screen.
Every turn it shows is `agent.loop.step`; what it works out about a run comes
from `agent.view` (words and numbers), `agent.graph` (the pictures) and
`agent.page_html` (message cards, the loop's code). The `Write your loop`
view checks a learner's loop with `agent.exercise` and shows the verdicts
through `agent.exercise_view`. Each browser tab is its own session, so two
tabs are two sandboxes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import streamlit as st

from agent import exercise_view, view
from agent.anthropic_model import DEFAULT_MODEL
from agent.exercise import LoopCheck, ScriptCheck, code_runner_enabled, code_runner_notice, starter_source
from agent.fake import FakeModel
from agent.graph import loop_diagram, run_graph
from agent.loop import MAX_TOKENS, Model, RunState, console_lines, reopen, run_to_end, step
from agent.page_html import PAGE_CSS, message_html, messages_html, source_html
from agent.record import script_json
from agent.scripts import Script, ScriptError, parse_script_text
from agent.tools import TOOLS

# The run graph draws this many latest turns and folds earlier ones into one node: the browser lays the
# graph out again on every Step, at a cost that grows with its size (bench/page_step.py measures it).
GRAPH_TURNS = 8
CARD_TURNS = 3  # the Messages tab draws the latest turns as cards, older ones as one line a message
# Controls whose values outlive the control: Streamlit forgets a widget's value when it is not drawn
# (the script picker while the real model is chosen, every control while another view is open).
KEPT_CONTROLS = ("script", "task", "system", "tools", "max_turns", "max_tokens", "model_choice", "api_key",
                 "real_model", "base_url", "loop_code")
ss = st.session_state
builtin_scripts = st.cache_resource(view.builtin_scripts)  # read once, shared by every session


# ---------------------------------------------------------------- scripts and runs


def scripts() -> dict[str, Script]:
    return {**builtin_scripts(), **ss.uploaded}


def put_script_in_controls(script: Script) -> None:
    ss.task, ss.system, ss.tools, ss.max_turns = script.task, script.system, list(script.tools), script.max_turns


def settings_in_controls() -> dict[str, Any]:
    return {"task": ss.task, "system": ss.system, "tool_names": list(ss.tools), "max_turns": int(ss.max_turns),
            "max_tokens": int(ss.max_tokens)}


def start_run() -> None:
    """A new run from what the controls say now: Reset, a new script, or settings changed before any Step."""
    settings = settings_in_controls()
    ss.run = RunState(settings.pop("task"), **settings)
    ss.fake = FakeModel(scripts()[ss.script])  # holds the run's place in the script
    ss.run_model = ss.model_choice
    ss.look_back = 0


def settings_changed() -> bool:
    return view.settings_of(ss.run) != settings_in_controls() or ss.run_model != ss.model_choice


def on_script_picked() -> None:
    put_script_in_controls(scripts()[ss.script])
    start_run()


def on_file_loaded() -> None:
    file = ss.upload
    if file is None:
        return
    try:
        script = parse_script_text(file.getvalue(), name=Path(file.name).stem, source=file.name)
    except ScriptError as exc:  # the run on screen stays as it is
        ss.load_error = str(exc)
        return
    ss.load_error = None
    name = f"{script.name} (your file)"
    ss.uploaded[name] = script
    ss.script = name
    on_script_picked()


def start_session() -> None:
    for key in KEPT_CONTROLS:
        if key in ss:
            ss[key] = ss[key]  # makes it the session's value, not only the widget's
    if "run" in ss:
        return
    ss.uploaded, ss.load_error, ss.flash = {}, None, None
    ss.script, ss.model_choice, ss.max_tokens = view.REFERENCE_SCRIPT, "Fake", MAX_TOKENS
    put_script_in_controls(scripts()[ss.script])
    start_run()


# ---------------------------------------------------------------- the model


def api_key() -> tuple[str, str]:
    """The key and where it came from; the key itself is never shown."""
    return view.find_api_key(ss.get("api_key", ""), os.environ, st.secrets)


def model_for_this_run(live: Any, send_anyway: bool = False) -> Model | None:
    """The FakeModel of this run, or a real model streaming into `live`; None (with a message) if it cannot be."""
    if ss.run_model == "Fake":
        return ss.fake
    preview = view.LiveReply()

    def show(event: dict[str, Any]) -> None:
        preview.add(event)
        live.code(preview.text(), language=None, wrap_lines=True)

    settings = (api_key()[0], ss.get("real_model", ""), ss.get("base_url", ""))
    if ss.get("real_client", (None, None))[0] != settings:  # one SDK client while the settings stay the same
        model, problem = view.real_model(*settings, None)
        if problem:
            ss.flash = ("warning", problem)
            return None
        ss.real_client = (settings, model)
    model = ss.real_client[1]
    model.on_event, model.send_anyway = show, send_anyway
    return model


def take_step(live: Any, to_the_end: bool = False, send_anyway: bool = False) -> None:
    if ss.run.done:
        ss.flash = ("info", f"The loop has finished ({ss.run.result}). There is nothing left to step: "
                            "Reset starts it again.")
        return
    model = model_for_this_run(live, send_anyway)
    if model is None:
        return
    with st.spinner("Running to the end…" if to_the_end else "Asking the model…"):
        if to_the_end:
            run_to_end(ss.run, model)
        else:
            step(ss.run, model)
    ss.look_back = ss.run.turn


# ---------------------------------------------------------------- the sidebar: model, script, agent settings


def sidebar() -> None:
    with st.sidebar:
        st.radio("Model", ["Fake", "Real"], key="model_choice", horizontal=True,
                 help="Fake plays a script offline. Real asks a model through the anthropic SDK.")
        if ss.model_choice == "Fake":
            script_settings()
        else:
            real_settings()
        st.subheader("The agent")
        st.multiselect("Tools", list(TOOLS), key="tools", help="The tools this agent is given. A call to any "
                       "other tool comes back to the model as an error result.")
        st.number_input("Turn limit", min_value=1, max_value=500, step=1, key="max_turns")
        st.number_input("max_tokens", min_value=1, max_value=128_000, step=256, key="max_tokens",
                        help="The most tokens one reply may have.")
        st.text_area("System prompt", key="system", height=90)


def script_settings() -> None:
    available = scripts()
    st.selectbox("Script", list(available), key="script", on_change=on_script_picked,
                 format_func=lambda name: available[name].title)
    st.caption(available[ss.script].about or "")
    st.file_uploader("Load a script", type=["json"], key="upload", on_change=on_file_loaded,
                     help="A FakeModel script file (JSON): see scripts/ for examples.")
    if ss.load_error:
        st.error(ss.load_error, icon=":material/error:")


def real_settings() -> None:
    st.text_input("API key", type="password", key="api_key", placeholder="sk-ant-…",
                  help="Also read from ANTHROPIC_API_KEY or st.secrets. It is never shown or saved.")
    _, source = api_key()
    st.caption(f"Key in use: from {source}." if source else "No key yet. A local server needs none.")
    if not ss.get("real_model"):
        ss.real_model = DEFAULT_MODEL
    st.text_input("Model name", key="real_model")
    st.text_input("Base URL", key="base_url", placeholder="empty: Anthropic",
                  help="e.g. http://127.0.0.1:8765 for `python -m agent serve SCRIPT`, or Ollama at "
                       "http://localhost:11434")
    st.caption("Each request is checked before it is sent; one the API would refuse ends the run, with a "
               "button to send it anyway and see the service's own answer.")


# ---------------------------------------------------------------- the main area


@st.fragment
def sandbox_main() -> None:
    """Everything that changes when the loop steps; a Step reruns only this."""
    if settings_changed() and not ss.run.records:
        start_run()  # nothing has happened yet, so the new settings simply apply
    st.text_area("Task", key="task", height=68)
    if ss.model_choice == "Fake":
        st.caption(f"The FakeModel plays the script “{scripts()[ss.script].title}” reply by reply. It does not "
                   "read the task: change the task and the replies stay the same.")
    else:
        st.caption("The real model reads the task and answers it: each Step is one request, paid in tokens.")
    step_at, run_at, reset_at, status_at = st.columns([1.1, 1.3, 1, 5], vertical_alignment="center")
    stepped = step_at.button("Step", type="primary", icon=":material/skip_next:", width="stretch")
    ran = run_at.button("Run to end", icon=":material/fast_forward:", width="stretch")
    reset_at.button("Reset", icon=":material/restart_alt:", on_click=start_run, width="stretch")
    live = st.empty()  # a real model's reply streams here while it is written
    if stepped or ran:
        take_step(live, to_the_end=ran)
        live.empty()
    run = ss.run
    status_at.progress(min(run.turn / run.max_turns, 1.0), text=view.run_summary(run))
    # Notices and the slider come and go; in fixed slots they never shift what is drawn below them, so the
    # browser updates the graph in place instead of building it anew.
    with st.container():
        show_flash()
        outcome = show_outcome(run)
        if ss.run_model == "Real" and outcome and outcome.kind == "bad_request":
            if st.button("Send it to the model anyway", icon=":material/send:",
                         help="The check refused this request before it left. Send it as it is, to see what "
                              "the service itself answers."):
                reopen(run)  # the engine takes back the ending, and the same turn goes out again
                take_step(live, send_anyway=True)
                st.rerun()  # draw the run as it now stands
        if settings_changed():
            st.info("The settings changed since this run started. Reset starts a run with them; Step carries "
                    "on with the old ones.", icon=":material/tune:")
    with st.container():
        turn = look_back(run)
    shown = view.snapshot(run, turn)
    run_tab, loop_tab, messages_tab, export_tab = st.tabs(["Run", "The loop", "Messages", "Export"], key="tab",
                                                          on_change="rerun")
    if run_tab.open:  # only the open tab is built: a late Step costs what an early one does
        with run_tab:
            run_view(run, shown, turn)
    if loop_tab.open:
        with loop_tab:
            loop_view(shown)
    if messages_tab.open:
        with messages_tab:
            messages_view(shown, turn)
    if export_tab.open:
        with export_tab:
            export_view(run)


def show_flash() -> None:
    if ss.flash:
        kind, text = ss.flash
        {"info": st.info, "warning": st.warning, "error": st.error}[kind](text)
        ss.flash = None


def show_outcome(run: RunState) -> view.Outcome | None:
    outcome = view.outcome(run)
    if outcome is None:
        return None
    key, _ = api_key() if ss.run_model == "Real" else ("", "")
    headline = view.md_escape(view.scrub(outcome.headline, key))
    if outcome.kind == "answer":
        st.success(f"**Answer:** {headline}  \n{outcome.note}", icon=":material/check_circle:")
    elif outcome.kind in ("stopped", "limit"):
        st.warning(f"**{headline}**  \n{outcome.note}", icon=":material/pan_tool:")
    elif outcome.kind == "bad_request":
        st.error(f"**{headline}**  \n{outcome.note}", icon=":material/block:")
    else:
        st.error(f"**The model failed:** {headline}  \n{outcome.note}", icon=":material/cloud_off:")
    return outcome


def look_back(run: RunState) -> int:
    """The turn whose state the page shows: the latest, unless the slider looks back."""
    if run.turn == 0:
        return 0
    ss.look_back = min(ss.get("look_back", run.turn), run.turn)
    slider_at, note_at = st.columns([3, 2], vertical_alignment="bottom")
    turn = slider_at.slider("Look back: the state after turn", 0, run.turn, key="look_back")
    if turn < run.turn:
        note_at.caption(f"Looking back at turn {turn} of {run.turn}. Step and Run to end carry on from turn "
                        f"{run.turn}.")
    return turn


def run_view(run: RunState, shown: RunState, turn: int) -> None:
    left, right = st.columns([5, 6], gap="large")
    with left:
        title_at, switch_at = st.columns([3, 2], vertical_alignment="bottom")
        title_at.markdown("##### Run graph")
        whole = switch_at.toggle("every turn", key="whole_graph",
                                 help=f"Draw every turn, not only the latest {GRAPH_TURNS}.")
        with st.container(height=640, border=False, autoscroll=True):  # the newest turn stays in view
            st.graphviz_chart(run_graph(shown, None if whole else GRAPH_TURNS))
    with right:
        st.markdown("##### Console")
        with st.container(height=190 if shown.turn > 6 else "content", border=False, autoscroll=True):
            st.code("\n".join(console_lines(shown)), language=None, wrap_lines=True)
        total = view.run_usage_line(shown, ss.get("real_model", "") if ss.run_model == "Real" else "")
        if total:
            st.caption(total)
        st.markdown(f"##### Turn {turn}" if turn else "##### Before the first turn")
        turn_details(run, turn)


def turn_details(run: RunState, turn: int) -> None:
    """The exact request a turn sent and the reply that came back."""
    if turn == run.turn and run.error:  # attempts at the next turn that have failed so far
        tries = len(view.failed_attempts(run, turn + 1))
        st.caption(f"The request for turn {turn + 1} has failed {tries} time{'s' if tries != 1 else ''} so far.")
    record = view.record_of_turn(run, turn)
    if record is None:
        st.markdown("No turn has gone through yet. **Step** sends the first request: the task, alone.")
        st.html(message_html(run.messages[0], 0))
        return
    for attempt in view.failed_attempts(run, turn):
        st.error(f"Attempt at turn {turn} failed first: {attempt.error}. It was not counted; the next Step "
                 "tried again.", icon=":material/replay:")
    request = run.request(record)
    st.markdown(f"**Turn {turn} sent** {record.sent} message{'s' if record.sent != 1 else ''} · "
                f"{view.request_size(request):,} bytes · max_tokens {request['max_tokens']} · tools: "
                f"{', '.join(run.tool_names) or 'none'}")
    show_json_lazily("The exact request (JSON)", request, f"request{turn}")
    if record.reply is None:
        st.error(record.error or "No reply came back.", icon=":material/block:")
        return
    st.markdown(f"**The reply came back** with stop_reason `{record.reply.get('stop_reason')}`, and the loop "
                f"{view.BRANCH_WORDS.get(record.branch, record.branch)}.")
    usage = view.usage_line(record.usage, ss.get("real_model", "") if ss.run_model == "Real" else "")
    st.caption(f"Usage: {usage} · the model took {record.model_seconds * 1000:.0f} ms")  # the turn's cost line
    added = view.added_by_turn(run, turn)
    st.html(messages_html(run.messages[added.start:added.stop], added.start, added, f"new in turn {turn}"))
    show_json_lazily("The reply as it came back (JSON)", record.reply, f"reply{turn}")


def show_json_lazily(label: str, value: Any, key: str) -> None:
    box = st.expander(label, key=f"json_{key}", on_change="rerun")
    if box.open:
        with box:
            st.code(json.dumps(value, indent=2, ensure_ascii=False), language="json")


def loop_view(shown: RunState) -> None:
    branch = view.latest_branch(shown)
    diagram_at, code_at = st.columns([5, 7], gap="medium")
    with diagram_at:
        st.caption("The cycle, with the path of the latest turn lit.")
        st.graphviz_chart(loop_diagram(branch))
    with code_at:
        st.caption("The loop's own code, `agent.loop.step`, with the branch the latest turn took marked.")
        note = f"turn {shown.records[-1].turn}" if shown.records else ""
        st.html(source_html(view.loop_source(branch), note))


def messages_view(shown: RunState, turn: int) -> None:
    messages = shown.messages
    new = view.added_by_turn(shown, turn)
    after = ("This is where the run ended." if shown.done else "The next request sends this whole array.")
    st.caption(f"{len(messages)} messages after turn {turn}; the ones turn {turn} added are marked. {after}")
    cut = view.first_card(shown, turn, CARD_TURNS)
    st.html(message_html(messages[0], 0))
    if cut > 1:
        older = st.expander(f"messages[1]–[{cut - 1}], one line each", key="older_messages", on_change="rerun")
        if older.open:
            with older:
                st.code("\n".join(f"[{i}] {view.message_line(m)}" for i, m in enumerate(messages[1:cut], 1)),
                        language=None, wrap_lines=True)
    st.html(messages_html(messages[cut:], cut, new) or "<span></span>")
    show_json_lazily("The whole array, exactly as sent (JSON)", messages, "messages")


def export_view(run: RunState) -> None:
    st.caption("Everything the page shows, as files.")
    st.download_button("Messages (JSON)", lambda: json.dumps(run.messages, indent=2, ensure_ascii=False),
                       file_name="messages.json", mime="application/json", on_click="ignore",
                       icon=":material/download:")
    st.download_button("The whole run: state and turn records (JSON)", run.to_json, file_name="run.json",
                       mime="application/json", on_click="ignore", icon=":material/download:")
    st.download_button("Run graph (DOT)", lambda: run_graph(run).source, file_name="run-graph.dot",
                       mime="text/vnd.graphviz", on_click="ignore", icon=":material/download:")
    try:
        script = script_json(run)
    except ScriptError as exc:  # e.g. no reply yet: nothing to replay
        st.caption(f"The run as a FakeModel script: {exc}.")
        return
    st.download_button("This run as a FakeModel script (JSON): replays it offline, without the key", script,
                       file_name="recorded-run.json", mime="application/json", on_click="ignore",
                       icon=":material/download:")


# ---------------------------------------------------------------- the page


def sandbox_view() -> None:
    sidebar()
    st.title("Loop Sandbox")
    st.caption("An agent loop, one turn at a time: each request, each reply, each tool call, and the messages "
               "array growing.")
    sandbox_main()


# ---------------------------------------------------------------- the exercise: write your own loop


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


# A view is a function that draws the page; more views join this list.
VIEWS = {"Sandbox": sandbox_view, "Write your loop": write_loop_view}

st.set_page_config(page_title="Loop Sandbox", page_icon=":material/autorenew:", layout="wide")
st.html(PAGE_CSS)
start_session()
chosen = st.sidebar.radio("View", list(VIEWS), key="view") if len(VIEWS) > 1 else next(iter(VIEWS))
VIEWS[chosen]()
