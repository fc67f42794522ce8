"""The sandbox view: step an agent loop and watch the conversation grow.

A page script of `sandbox_app.py`'s navigation. Every turn it shows is
`agent.loop.step`; the sidebar holds the model, the script and the agent's
settings, the main area the step row and the tabs (`views/run_tabs.py`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import streamlit as st

from agent.fake import FakeModel
from agent.loop import MAX_TOKENS, Model, RunState, reopen, run_to_end, step
from agent.page import view
from agent.real import DEFAULT_MODEL
from agent.scripts import Script, ScriptError, parse_script_text
from agent.tools import TOOLS
from views.run_tabs import export_view, loop_view, messages_view, run_view

ss = st.session_state
builtin_scripts = st.cache_resource(view.builtin_scripts)  # read once, shared by every session


# ---------------------------------------------------------------- scripts and runs


def scripts() -> dict[str, Script]:
    return {**builtin_scripts(), **ss.uploaded}


def put_script_in_controls(script: Script) -> None:
    ss.task, ss.system, ss.tools, ss.max_turns = script.task, script.system, list(script.tools), script.max_turns


def settings_in_controls() -> dict[str, Any]:
    return {"task": ss.task, "system": ss.system, "tool_names": list(ss.tools), "max_turns": int(ss.max_turns),
            "max_tokens": int(ss.max_tokens), "threads": bool(ss.get("threads", False))}


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
    """The first visit of this session: the reference script, ready to step."""
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
        st.toggle("Message threads", key="threads", help="Each turn sends only the new messages; the model "
                  "holds the conversation. The FakeModel holds threads; the Real model gets the whole array.")


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


# ---------------------------------------------------------------- the page


def sandbox_view() -> None:
    sidebar()
    st.title("Loop Sandbox")
    st.caption("An agent loop, one turn at a time: each request, each reply, each tool call, and the messages "
               "array growing.")
    sandbox_main()


start_session()
sandbox_view()
