"""The sandbox view: step an agent loop and watch the conversation grow.

A page script of `sandbox_app.py`'s navigation. Every turn it shows is
`agent.loop.step`; the sidebar holds the model, the script and the agent's
settings, the main area the task, the view picker, the step row and the view
(`views/run_tabs.py`). A Step reruns only the fragment below the picker, and
draws as few elements as it can: the browser's work grows with each one.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import streamlit as st

from agent.loop import MAX_TOKENS, Model, RunState, reopen, run_to_end, step
from agent.models.fake import FakeModel
from agent.models.toy import CAN_DO, EXAMPLE_TASKS, ToyModel
from agent.page import view
from agent.page.keys import KEY_OF, KEYS_CAPTION, KEYS_JS
from agent.page.links import Link, from_query
from agent.page.safe_text import as_text, scrub
from agent.real import DEFAULT_MODEL
from agent.scripts import Script, ScriptError, parse_script_text
from agent.summary import clip
from agent.tools import TOOLS
from agent.untrusted import MAX_FILE_BYTES
from views import change_the_past, page_link, serving
from views.run_tabs import VIEWS, api_key, export_view, loop_view, messages_view, run_view

ss = st.session_state
MODELS = {"Fake": "Script", "Toy": "Toy", "Real": "Real"}  # the Model switch: its values and what it says
MAX_TURNS_ON_PAGE = 500  # the Turn limit field's maximum
MAX_TOKENS_ON_PAGE = 128_000  # the max_tokens field's maximum
LIVE_PREVIEW_CHARS = 4_000  # the streaming preview shows the reply's latest characters, not all of a huge one
SETTINGS_CHANGED_MID_RUN = ("The settings changed since this run started. Reset starts a run with them; Step "
                            "carries on with the old ones.")
SETTINGS_CHANGED_AFTER_END = ("The settings changed since this run finished. Step (or Run to end) starts a new run "
                              "with them.")
REAL_LINK = ("This link was made with the real model. A link never calls one: its settings are back, and the run "
             "starts afresh. Step sends the task to the model.")
LIVE_PREVIEW_EVERY = 0.1  # seconds between redraws of the preview: a long reply arrives in many small events
builtin_scripts = st.cache_resource(view.builtin_scripts)  # read once, shared by every session


# ---------------------------------------------------------------- scripts and runs


def scripts() -> dict[str, Script]:
    return {**builtin_scripts(), **ss.uploaded}


def put_script_in_controls(script: Script) -> None:
    ss.task, ss.system, ss.tools = script.task, script.system, list(script.tools)
    ss.max_turns = min(script.max_turns, MAX_TURNS_ON_PAGE)
    if script.max_turns > MAX_TURNS_ON_PAGE:
        ss.flash = ("warning", f"The script asks for a turn limit of {script.max_turns:,}; the page allows at most "
                               f"{MAX_TURNS_ON_PAGE}, so the run's turn limit is {MAX_TURNS_ON_PAGE}.")


def settings_in_controls() -> dict[str, Any]:
    return {"task": ss.task, "system": ss.system, "tool_names": list(ss.tools), "max_turns": int(ss.max_turns),
            "max_tokens": int(ss.max_tokens), "threads": bool(ss.get("threads", False))}


def start_run() -> None:
    """A new run from what the controls say now: Reset, a new script, or settings changed before any Step."""
    settings = settings_in_controls()
    ss.run = RunState(settings.pop("task"), **settings)
    ss.fake = FakeModel(scripts()[ss.script])  # holds the run's place in the script
    ss.toy = ToyModel()  # checks the run's requests as one conversation
    ss.run_model = ss.model_choice
    ss.look_back = 0
    ss.pop("hand_model", None)  # ids written by hand count afresh in each run, as they do in a link's replay
    page_link.clear_log()


def untouched_run() -> bool:
    """A run nothing has happened to yet: no turn taken, and not a branch forked before its first turn (a fork is
    the learner's doing, and keeps its parent's settings)."""
    tree = ss.get("tree")
    forked = tree is not None and tree.branch.state is ss.run and tree.branch.parent is not None
    return not ss.run.records and not forked


def settings_changed() -> bool:
    return view.settings_of(ss.run) != settings_in_controls() or ss.run_model != ss.model_choice


def on_script_picked() -> None:
    ss.load_error = None  # it named the script that was playing then: with another picked, it is no longer true
    put_script_in_controls(scripts()[ss.script])
    start_run()


def on_model_picked() -> None:
    """A run belongs to one model: switching it starts a new run, so nothing of the old model's run lingers.

    The toy starts with every tool: each of its patterns needs one (take one away and it says so).
    """
    if ss.model_choice == "Toy":
        ss.tools = list(TOOLS)
    start_run()


def on_example_picked() -> None:
    """An example task goes into the task box and starts a new run with it."""
    if ss.toy_example:
        ss.task = ss.toy_example
        start_run()


def on_file_loaded() -> None:
    file = ss[upload_key()]
    if file is None:
        return
    try:
        script = parse_script_text(file.getvalue(), name=Path(file.name).stem, source=file.name)
    except ScriptError as exc:  # the run on screen stays as it is, and the uploader lets the file go
        ss.load_error = (f"{exc}\n\n{file.name} was not loaded: the run still plays "
                         f"“{scripts()[ss.script].title}”.")
        ss.uploads += 1  # a new uploader, empty: a refused file must not look as if it were in use
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
    ss.uploaded, ss.load_error, ss.flash, ss.uploads = {}, None, None, 0
    if serving.came_back_without_its_session():
        ss.flash = ("warning", serving.SESSION_LOST)
    ss.script, ss.model_choice, ss.max_tokens, ss.tab = view.REFERENCE_SCRIPT, "Fake", MAX_TOKENS, "Run"
    put_script_in_controls(scripts()[ss.script])
    query = st.query_params.to_dict()
    query = {k: v for k, v in query.items() if k.lower() not in ("embed", "embed_options")}
    if not query:
        start_run()
        return
    link = from_query(query, list(builtin_scripts()), list(TOOLS))
    problems = open_link(link)
    said = [REAL_LINK] if link.model == "Real" else []
    if problems:
        said.append("Part of this link could not be used: " + "; ".join(problems) + ".")
    if said:
        ss.flash = ("warning", "  \n".join(said))


# ---------------------------------------------------------------- links into any state (views/page_link.py)


def fresh_settings(model: str, script_name: str) -> dict[str, Any]:
    """The settings a fresh page has for `model` (and, for a script, `script_name`): what a link leaves out."""
    script = scripts().get(script_name if model == "Fake" else view.REFERENCE_SCRIPT) or scripts()[
        view.REFERENCE_SCRIPT]
    return {"task": script.task, "system": script.system,
            "tools": list(TOOLS) if model == "Toy" else list(script.tools),
            "max_turns": min(script.max_turns, MAX_TURNS_ON_PAGE), "max_tokens": MAX_TOKENS, "threads": False}


def link_now() -> Link:
    """The screen as a link: the run's model, script and settings, what was done to it, the turn and the view."""
    run = ss.run
    fresh = fresh_settings(ss.run_model, ss.script)
    settings = {**view.settings_of(run)}
    settings["tools"] = settings.pop("tool_names")
    task = settings.pop("task")
    return Link(model=ss.run_model, script=ss.script if ss.run_model == "Fake" else None,
                task=task if task != fresh["task"] else None,
                settings={name: value for name, value in settings.items() if value != fresh[name]},
                actions=page_link.logged() if ss.run_model != "Real" else [],
                turn=ss.look_back if ss.get("look_back", run.turn) < run.turn else None, view=ss.get("tab") or "Run")


def link_notes(link: Link) -> list[str]:
    """What the link of this screen cannot hold, in words."""
    notes = []
    if link.script and link.script not in builtin_scripts():
        notes.append("The script was loaded from a file: a link names built-in scripts only, so it opens on the "
                     "reference script.")
    if link.model == "Real":
        notes.append("A link never calls a real model: it brings back the settings, and the run starts afresh.")
    return notes


def open_link(link: Link) -> list[str]:
    """Set the page as `link` says and replay its actions (never to a real model); the problems, in words."""
    problems = list(link.problems)
    if link.script:
        ss.script = link.script
        put_script_in_controls(scripts()[ss.script])
    ss.model_choice = link.model
    if link.model == "Toy":
        ss.tools = list(TOOLS)
    if link.task is not None:
        ss.task = link.task
    for name, value in link.settings.items():
        if name == "max_turns" and value > MAX_TURNS_ON_PAGE:
            problems.append(f"the turn limit {value:,} is above the page's {MAX_TURNS_ON_PAGE}, which is used")
            value = MAX_TURNS_ON_PAGE
        if name == "max_tokens" and value > MAX_TOKENS_ON_PAGE:
            problems.append(f"max_tokens {value:,} is above the page's {MAX_TOKENS_ON_PAGE:,}, which is used")
            value = MAX_TOKENS_ON_PAGE
        ss[name] = value
    start_run()
    if link.model != "Real":  # a link never calls a real model (REAL_LINK)
        problem = page_link.replay(link.actions, {
            "step": lambda: take_step(None), "run": lambda: take_step(None, to_the_end=True),
            "fork": change_the_past.fork, "switch": change_the_past.switch,
            "edit_reply": change_the_past.edit_reply, "edit_result": change_the_past.edit_result,
            "fault": lambda kind, tool: change_the_past.fault(kind, tool, lambda: model_for_this_run(None)),
            "hand": change_the_past.hand})
        if problem:
            problems.append(problem)
    ss.flash = None  # what the replayed clicks said was for the person who clicked; the screen says the rest
    if link.turn is not None:
        if link.turn <= ss.run.turn:
            ss.look_back = link.turn
        else:
            problems.append(f"the run has no turn {link.turn} (it stops at turn {ss.run.turn}), so the latest "
                            "is shown")
    ss.tab = link.view
    if len(getattr(ss.get("tree"), "branches", ())) > 1:
        ss.change_the_past = True  # open: the branch picker is in it, and it says which branch is on screen
    return problems


# ---------------------------------------------------------------- the model


def upload_key() -> str:
    """The uploader's key: a new key is a new, empty uploader, which is how a refused file is let go of."""
    return f"upload{ss.uploads}" if ss.uploads else "upload"


def model_for_this_run(live: Any, send_anyway: bool = False) -> Model | None:
    """The run's FakeModel or ToyModel, or a real model streaming into `live`; None (with a message) if it cannot be.

    Every path that asks a model (a Step, a fault injected) comes here first, so a run with no task yet asks for
    one instead of sending a request the API refuses."""
    if (empty := view.empty_task_note(ss.run)) is not None:
        ss.flash = ("warning", empty)
        return None
    if view.sdk_importing():  # only in the first second or so after the server started
        with st.spinner("Loading the anthropic SDK (once, as the server starts)…"):
            view.wait_for_sdk()
    if ss.run_model == "Fake":
        return ss.fake
    if ss.run_model == "Toy":
        return ss.toy
    preview = view.LiveReply()
    drawn_at = [0.0]
    key = api_key()[0]

    def show(event: dict[str, Any]) -> None:
        preview.add(event)
        if time.monotonic() - drawn_at[0] < LIVE_PREVIEW_EVERY:
            return  # a redraw sends the preview to the browser: a few times a second is enough to watch
        drawn_at[0] = time.monotonic()
        text = scrub(preview.text(), key)
        if len(text) > LIVE_PREVIEW_CHARS:
            text = f"… {len(text) - LIVE_PREVIEW_CHARS:,} characters so far, the latest:\n{text[-LIVE_PREVIEW_CHARS:]}"
        live.code(text, language=None, wrap_lines=True)

    settings = (api_key()[0], ss.get("real_model", ""), ss.get("base_url", ""))
    if ss.get("real_client", (None, None))[0] != settings:  # one SDK client while the settings stay the same
        model, problem = view.real_model(*settings, None)
        if problem:
            ss.flash = ("warning", as_text(problem, settings[0]))
            return None
        ss.real_client = (settings, model)
    model = ss.real_client[1]
    model.on_event, model.send_anyway = show, send_anyway
    return model


def take_step(live: Any, to_the_end: bool = False, send_anyway: bool = False) -> str | None:
    """Step (or Run to end): None when the loop stepped, else why not (also said in the notice)."""
    if ss.run.done and settings_changed():
        forked = len(ss.tree.branches) > 1 if ss.get("tree") is not None and ss.tree.branch.state is ss.run else False
        start_run()  # a finished run has nothing to carry on: a new task (or new settings) is a new run
        ss.flash = ("info", "The run had finished, so this Step started a new run with the settings as they are now"
                            + (" (the old run's branches went with it)." if forked else "."))
    if (empty := view.empty_task_note(ss.run)) is not None:
        ss.flash = ("warning", empty)
        return empty  # an empty first message is a request the API refuses: ask for the task instead
    if ss.run.done:
        ss.flash = ("info", f"The loop has finished ({as_text(ss.run.result, api_key()[0])}). There is nothing left "
                            "to step: Reset starts it again, and a new task typed above starts with the next Step.")
        return ss.flash[1]
    model = model_for_this_run(live, send_anyway)
    if model is None:
        return "there is no model to ask"

    def go() -> None:
        if to_the_end:
            run_to_end(ss.run, model)
        else:
            step(ss.run, model)

    if live is None:  # a script or the toy answers at once: no spinner to draw and take away again
        go()
    else:
        with st.spinner("Running to the end…" if to_the_end else "Asking the model…"):
            go()
    ss.look_back = ss.run.turn
    page_link.log("run" if to_the_end else "step")
    return None


# ---------------------------------------------------------------- the sidebar: model, script, agent settings


def sidebar() -> None:
    with st.sidebar:
        st.radio("Model", list(MODELS), key="model_choice", horizontal=True, format_func=MODELS.get,
                 on_change=on_model_picked,
                 help="Script: a FakeModel plays a script offline. Toy: a few patterns read the task, offline. "
                      "Real: a model through the anthropic SDK. Switching starts a new run.")
        if ss.model_choice == "Fake":
            script_settings()
        elif ss.model_choice == "Toy":
            st.caption(CAN_DO + " Anything else gets a polite answer saying so.")
            st.pills("Examples to try", EXAMPLE_TASKS, key="toy_example", on_change=on_example_picked)
        else:
            real_settings()
        st.subheader("The agent")
        st.multiselect("Tools", list(TOOLS), key="tools", help="The tools this agent is given. A call to any "
                       "other tool comes back to the model as an error result.")
        st.number_input("Turn limit", min_value=1, max_value=MAX_TURNS_ON_PAGE, step=1, key="max_turns")
        if ss.model_choice == "Fake" and (note := view.turn_limit_note(scripts()[ss.script], int(ss.max_turns))):
            st.warning(note, icon=":material/warning:")
        st.number_input("max_tokens", min_value=1, max_value=MAX_TOKENS_ON_PAGE, step=256, key="max_tokens",
                        help="The most tokens one reply may have.")
        if ss.model_choice == "Fake":
            st.caption("A script's replies are written in advance: max_tokens goes out with each request but "
                       "cannot shorten them. The toy and a real model keep to it.")
        st.text_area("System prompt", key="system", height=90)
        st.toggle("Message threads", key="threads", help="Each turn sends only the new messages; the model "
                  "holds the conversation. The FakeModel and the Real model hold threads; the Toy gets it all.")
        if st.button("Copy link", icon=":material/link:", key="copy_link",
                     help="A link that opens this screen: the run replayed to this turn, in this view."):
            link = link_now()
            page_link.copy_link_dialog(link, link_notes(link))


def script_settings() -> None:
    available = scripts()
    st.selectbox("Script", list(available), key="script", on_change=on_script_picked,
                 format_func=lambda name: clip(available[name].title, 80))  # an option is plain text, one line
    picked = available[ss.script]  # the title in full, as a long one is cut off in the box
    st.caption(f"**{as_text(picked.title)}**. {as_text(picked.about or '')}")
    st.file_uploader("Load a script", type=["json"], key=upload_key(), on_change=on_file_loaded,
                     max_upload_size=MAX_FILE_BYTES // 2**20,  # the limit it says is the one a script is read to
                     help="A FakeModel script file (JSON): see scripts/ for examples.")
    if ss.load_error:
        st.error(as_text(ss.load_error), icon=":material/error:")


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


def task_box() -> None:
    """The task, and what the chosen model makes of it. Outside the fragment: a Step does not redraw them."""
    st.text_area("Task", key="task", height=68)
    if ss.model_choice == "Fake":
        st.caption(f"The FakeModel plays the script “{as_text(scripts()[ss.script].title)}” reply by "
                   "reply. It does not read the task: to have a typed task answered offline, pick Toy.")
    elif ss.model_choice == "Toy":
        st.caption("The toy model reads the task with a few fixed patterns (sums, word counts, the note files, "
                   "shouting). It is not a language model: it shows the loop working on what you typed.")
    else:
        st.caption("The real model reads the task and answers it: each Step is one request, paid in tokens.")


@st.fragment
def sandbox_main() -> None:
    """Everything that changes when the loop steps; a Step reruns only this."""
    if settings_changed() and untouched_run():
        start_run()  # nothing has happened yet, so the new settings simply apply
    with st.container(horizontal=True, vertical_alignment="center", key="step_row"):
        stepped = st.button("Step", type="primary", icon=":material/skip_next:", key="step",
                            help=f"One turn of the loop (key {KEY_OF['step']})")
        ran = st.button("Run to end", icon=":material/fast_forward:", key="run_to_end",
                        help=f"Step until the loop returns (key {KEY_OF['run_to_end']})")
        st.button("Reset", icon=":material/restart_alt:", on_click=start_run, key="reset",
                  help=f"A new run from the settings as they are (key {KEY_OF['reset']})")
    live = st.empty() if ss.run_model == "Real" else None  # a real model's reply streams here while it is written
    if stepped or ran:
        take_step(live, to_the_end=ran)
        if live is not None:
            live.empty()
    change_the_past.panel(lambda: model_for_this_run(live))  # drawn only while open: views/change_the_past.py
    run = ss.run
    st.progress(min(run.turn / run.max_turns, 1.0), text=view.run_summary(run))
    # Notices and the slider come and go; in a fixed slot they never shift what is drawn below them, so the
    # browser updates the graph in place instead of building it anew. One slot for both: each block drawn is a
    # message a Step sends, and the URL's update (page_link.write_query) is one more.
    with st.container():
        show_flash()
        outcome = show_outcome(run)
        if ss.run_model == "Real" and outcome and outcome.kind == "bad_request" and run.records[-1].refused_unsent:
            if st.button("Send it to the model anyway", icon=":material/send:",
                         help="The check refused this request before it left. Send it as it is, to see what "
                              "the service itself answers."):
                reopen(run)  # the engine takes back the ending, and the same turn goes out again
                take_step(live, send_anyway=True)
                st.rerun()  # draw the run as it now stands
        if settings_changed():
            st.info(SETTINGS_CHANGED_AFTER_END if run.done else SETTINGS_CHANGED_MID_RUN, icon=":material/tune:")
        turn = look_back(run)
    shown = view.snapshot(run, turn)
    picked = ss.get("tab") or VIEWS[0]
    with st.container(key="view_area"):  # its columns wrap under each other on a narrow page (PAGE_CSS)
        if picked == "Run":
            run_view(run, shown, turn)
        elif picked == "The loop":
            loop_view(shown, turn)
        elif picked == "Messages":
            messages_view(shown, turn)
        else:
            export_view(run)
    page_link.write_query(link_now())  # after the run's every change: the URL opens this screen


def show_flash() -> None:
    if ss.flash:  # markdown: whatever it quotes from a run or a setting went through as_text when it was said
        kind, text = ss.flash
        {"info": st.info, "warning": st.warning, "error": st.error}[kind](text)
        ss.flash = None


def show_outcome(run: RunState) -> view.Outcome | None:
    outcome = view.outcome(run)
    if outcome is None:
        return None
    key, _ = api_key() if ss.run_model == "Real" else ("", "")
    headline = as_text(outcome.headline, key)
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
    turn = st.slider("Look back: the state after turn", 0, run.turn, key="look_back",
                     help="Keys: ← → one turn back or forward, Home and End the first and the last turn.")
    if turn < run.turn:
        st.caption(f"Looking back at turn {turn} of {run.turn}. Step and Run to end carry on from turn "
                   f"{run.turn}.")
    return turn


# ---------------------------------------------------------------- the page


def sandbox_view() -> None:
    sidebar()
    st.title("Loop Sandbox")
    st.caption("An agent loop, one turn at a time: each request, each reply, each tool call, and the messages "
               "array growing.")
    task_box()
    st.caption(KEYS_CAPTION)
    # A picker, not st.tabs: only the view picked is sent to the browser, and picking one reruns the page.
    st.segmented_control("View", VIEWS, key="tab", label_visibility="collapsed", required=True)
    sandbox_main()
    st.html(KEYS_JS, unsafe_allow_javascript=True)


start_session()
sandbox_view()
# After the page is drawn: the first request that needs the SDK finds it imported; then what the process has
# loaded leaves the garbage collector's full passes (views/serving.py).
serving.freeze_loaded_code(view.import_sdk_ahead())
