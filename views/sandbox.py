"""The sandbox view: step an agent loop and watch the conversation grow.

A page script of `sandbox_app.py`'s navigation. Every turn it shows is
`agent.loop.step`; the sidebar holds the model, the script and the agent's
settings, the main area the task, the view picker, the step row and the view
(`views/run_tabs.py`). A Step reruns only the fragment below the picker, and
draws as few elements as it can: the browser's work grows with each one.
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from agent.loop import Model
from agent.models.toy import CAN_DO, EXAMPLE_TASKS
from agent.page import real_model, view
from agent.page.keys import KEY_OF, KEYS_CAPTION, PLAYER_KEYS_CAPTION
from agent.page.links import from_query
from agent.page.names import Layout, ModelKind, NoticeKind, OutcomeKind, View
from agent.page.safe_text import as_text, scrub
from agent.page.sandbox import MAX_TOKENS_ON_PAGE, MAX_TURNS_ON_PAGE, VIEWS, Notice, Sandbox
from agent.page.screen import Screen, screen_of
from agent.real import DEFAULT_MODEL
from agent.summary import clip
from agent.tools import TOOLS
from agent.untrusted import MAX_FILE_BYTES
from views import change_the_past, page_link, player_view, session, start_here
from views.actions import act
from views.notices import api_key, show_notice, show_outcome
from views.page_js import remember_layout_js
from views.run_tabs import GRAPH_TURNS, export_view, loop_view, messages_view, run_view
from views.session import sandbox
from views.widget_state import acting, begun_by_a_widget, mirror, touched

ss = st.session_state
LIVE_PREVIEW_CHARS = 4_000  # the streaming preview shows the reply's latest characters, not all of a huge one
LIVE_PREVIEW_EVERY = 0.1  # seconds between redraws of the preview: a long reply arrives in many small events


def follow_history(box: Sandbox) -> None:
    """Back or Forward put another of this page's addresses in the bar: show the screen it names."""
    query = session.page_query()
    begun = begun_by_a_widget(box)  # asked first: whichever way this run goes, the flag is taken
    if box.page.written_query is None or query == box.page.written_query or begun:
        return  # a click carries the address as it was when it was made: the run's own write comes after
    link = from_query(query, list(session.builtin_scripts()), list(TOOLS))
    problems = box.follow_link(link)
    box.page.written_query = query
    box.notice = Notice.warning("Part of this address could not be used: " + "; ".join(problems) + ".") \
        if problems else None
    if (played := st.query_params.get(player_view.PLAYED)) is not None:  # done in the player on that screen
        player_view.take_up_played(box, played)
    if len(box.tree.branches) > 1:
        ss.change_the_past = True


def upload_key() -> str:
    """The uploader's key: a new key is a new, empty uploader, which is how a refused file is let go of."""
    return f"upload{sandbox().page.uploads}" if sandbox().page.uploads else "upload"


def on_file_loaded() -> None:
    box = sandbox()
    box.page.widget_began()
    file = ss.get(upload_key())
    if file is None:
        return
    box.notice = box.load_script(file.getvalue(), file.name)
    if box.notice is not None and box.notice.kind == NoticeKind.ERROR:
        box.page.uploads += 1  # a new uploader, empty: a refused file must not look as if it were in use


# ---------------------------------------------------------------- the model


def model_for_this_run(live: Any) -> Model | None:
    """The real model streaming into `live` when the run is the real model's, else None (the Sandbox has the
    script's and the toy's); a real model that cannot be set up says why in the notice."""
    box = sandbox()
    if real_model.sdk_importing():  # only in the first second or so after the server started
        with st.spinner("Loading the anthropic SDK (once, as the server starts)…"):
            real_model.wait_for_sdk()
    if box.run_model != ModelKind.REAL:
        return None
    preview = real_model.LiveReply()
    drawn_at = [0.0]
    key = api_key()[0]

    def show(event: dict[str, Any]) -> None:
        preview.add(event)
        if live is None or time.monotonic() - drawn_at[0] < LIVE_PREVIEW_EVERY:
            return  # a redraw sends the preview to the browser: a few times a second is enough to watch
        drawn_at[0] = time.monotonic()
        text = scrub(preview.text(), key)
        if len(text) > LIVE_PREVIEW_CHARS:
            text = f"… {len(text) - LIVE_PREVIEW_CHARS:,} characters so far, the latest:\n{text[-LIVE_PREVIEW_CHARS:]}"
        live.code(text, language=None, wrap_lines=True)

    settings = (key, box.real_model_name, box.base_url)
    made = box.page.real_client
    if made is None or made[0] != settings:  # one SDK client while the settings stay the same
        model, problem = real_model.for_settings(*settings, None)
        if problem:
            box.notice = Notice.warning(as_text(problem, key))
            return None
        box.page.real_client = (settings, model)
    model = box.page.real_client[1]
    model.on_event = show
    return model


def take_step(live: Any, to_the_end: bool = False) -> None:
    """Step (or Run to end), with a spinner while a real model is asked."""
    box = sandbox()
    box.notice = None  # what the last action said is replaced by what this one says
    box.page.asked_step = None  # taken now, even if the model cannot be set up: a later rerun is no click on Step
    real = model_for_this_run(live)
    if box.run_model == ModelKind.REAL and real is None and box.notice is not None:
        return  # the real model could not be set up: the notice says why
    if live is None:  # a script or the toy answers at once: no spinner to draw and take away again
        box.notice = box.step(real, to_the_end)
    else:
        with st.spinner("Running to the end…" if to_the_end else "Asking the model…"):
            box.notice = box.step(real, to_the_end)


def on_step(box: Sandbox, to_the_end: bool) -> None:
    """Step's and Run to end's callback, so that no other click can lose them. Streamlit stops a run at its next
    element or session-state read once another click asks for a rerun; a callback runs before the run's body,
    and this one touches neither until the step is taken (`box` comes with it). A script or the toy steps here;
    a real model's reply streams into the fragment, so its Step is asked for here and taken there."""
    box.page.widget_began()
    if box.run_model == ModelKind.REAL:
        if box.layout == Layout.START:
            take_step(None, to_the_end)
        else:
            box.page.asked_step = to_the_end  # it stays until the fragment has taken it
        return
    real_model.wait_for_sdk()  # here, not under a spinner: a spinner is an element, where a run can be stopped
    box.notice = box.step(None, to_the_end)  # what the last action said is replaced by what this one says


# ---------------------------------------------------------------- the sidebar: model, script, agent settings


def sidebar(box: Sandbox) -> None:
    settings = box.settings
    with st.sidebar:
        mirror("model_choice", box.model.value)
        st.radio("Model", [kind.value for kind in ModelKind], key="model_choice", horizontal=True,
                 on_change=lambda: act(box.pick_model, ss.model_choice),
                 help="Script: a FakeModel plays a script offline. Toy: a few patterns read the task, offline. "
                      "Real: a model through the anthropic SDK. Switching starts a new run (Undo brings the old "
                      "one back).")
        if box.model == ModelKind.SCRIPT:
            script_settings(box)
        elif box.model == ModelKind.TOY:
            st.caption(CAN_DO + " Anything else gets a polite answer saying so.")
            mirror("toy_example", settings.task if settings.task in EXAMPLE_TASKS else None)
            st.pills("Examples to try", EXAMPLE_TASKS, key="toy_example",
                     on_change=lambda: ss.toy_example and act(box.set_task, ss.toy_example, True))
        else:
            real_settings(box)
        st.subheader("The agent")
        mirror("tools", list(settings.tools))
        st.multiselect("Tools", list(TOOLS), key="tools", on_change=lambda: act(box.change_setting, "tools", ss.tools),
                       help="The tools this agent is given. A call to any other tool comes back to the model as "
                            "an error result.")
        mirror("max_turns", int(settings.max_turns))
        st.number_input("Turn limit", min_value=1, max_value=MAX_TURNS_ON_PAGE, step=1, key="max_turns",
                        on_change=lambda: act(box.change_setting, "max_turns", ss.max_turns))
        if box.model == ModelKind.SCRIPT and (note := view.turn_limit_note(box.picked_script,
                                                                           int(settings.max_turns))):
            st.warning(note, icon=":material/warning:")
        mirror("max_tokens", int(settings.max_tokens))
        st.number_input("max_tokens", min_value=1, max_value=MAX_TOKENS_ON_PAGE, step=256, key="max_tokens",
                        on_change=lambda: act(box.change_setting, "max_tokens", ss.max_tokens),
                        help="The most tokens one reply may have.")
        if box.model == ModelKind.SCRIPT:
            st.caption("A script's replies are written in advance: max_tokens goes out with each request but "
                       "cannot shorten them. The toy and a real model keep to it.")
        mirror("system", settings.system)
        st.text_area("System prompt", key="system", height=90,
                     on_change=lambda: act(box.change_setting, "system", ss.system))
        mirror("threads", bool(settings.threads))
        st.toggle("Message threads", key="threads", on_change=lambda: act(box.change_setting, "threads", ss.threads),
                  help="Each turn sends only the new messages; the model holds the conversation. The FakeModel "
                       "and the Real model hold threads; the Toy gets it all.")
        page_link.copy_link_button(box)


def script_settings(box: Sandbox) -> None:
    available = box.scripts
    mirror("script", box.script)
    st.selectbox("Script", list(available), key="script", on_change=lambda: act(box.pick_script, ss.script),
                 format_func=lambda name: clip(available[name].title, 80))  # an option is plain text, one line
    picked = box.picked_script  # the title in full, as a long one is cut off in the box
    st.caption(f"**{as_text(picked.title)}**. {as_text(picked.about or '')}")
    st.file_uploader("Load a script", type=["json"], key=upload_key(), on_change=on_file_loaded,
                     max_upload_size=MAX_FILE_BYTES // 2**20,  # the limit it says is the one a script is read to
                     help="A FakeModel script file (JSON): see scripts/ for examples.")


def real_settings(box: Sandbox) -> None:
    st.text_input("API key", type="password", key="api_key", placeholder="sk-ant-…", on_change=touched,
                  help="Also read from ANTHROPIC_API_KEY or st.secrets. It is never shown or saved.")
    _, source = api_key()
    st.caption(f"Key in use: from {source}." if source else "No key yet. A local server needs none.")
    mirror("real_model", box.real_model_name or DEFAULT_MODEL)
    st.text_input("Model name", key="real_model",
                  on_change=acting(box, lambda: box.point_real_model(model_name=ss.real_model)))
    mirror("base_url", box.base_url)
    st.text_input("Base URL", key="base_url", placeholder="empty: Anthropic",
                  on_change=acting(box, lambda: box.point_real_model(base_url=ss.base_url)),
                  help="e.g. http://127.0.0.1:8765 for `python -m agent serve SCRIPT`, or Ollama at "
                       "http://localhost:11434")
    st.caption("Each request is checked before it is sent; one the API would refuse ends the run, with a "
               "button to send it anyway and see the service's own answer.")


# ---------------------------------------------------------------- the main area


def task_box(box: Sandbox) -> None:
    """The task, and what the chosen model makes of it. Outside the fragment: a Step does not redraw them."""
    mirror("task", box.settings.task)
    st.text_area("Task", key="task", height=68, on_change=lambda: act(box.set_task, ss.task))
    if box.model == ModelKind.SCRIPT:
        st.caption(f"The FakeModel plays the script “{as_text(box.picked_script.title)}” reply by "
                   "reply. It does not read the task: to have a typed task answered offline, pick Toy.")
    elif box.model == ModelKind.TOY:
        st.caption("The toy model reads the task with a few fixed patterns (sums, word counts, the note files, "
                   "shouting). It is not a language model: it shows the loop working on what you typed.")
    else:
        st.caption("The real model reads the task and answers it: each Step is one request, paid in tokens.")


def uses_player(box: Sandbox) -> bool:
    """Whether All controls draws the run in the player: a run it can play, in a view it draws. The Export view
    and an open Change the past are the server's."""
    if box.layout != Layout.ALL or ss.get("change_the_past") or not player_view.usable(box):
        return False
    return box.view in (View.RUN, View.LOOP, View.MESSAGES)


def drawn_around(box: Sandbox) -> tuple[object, ...]:
    """What All controls shows outside the Step's fragment: the switches, the model and its settings, the view."""
    return (box.layout, box.predicting, box.view, box.run_model, box.script, repr(box.settings), box.from_file,
            len(box.tree.branches))


@st.fragment
def sandbox_main(on_player: bool, around: tuple[object, ...]) -> None:
    """Everything that changes when the loop steps; a Step reruns only this. A run the player plays is drawn by
    it: its Steps, look backs and answers then happen in the browser, with no rerun."""
    box = sandbox()
    if uses_player(box) != on_player or (on_player and drawn_around(box) != around):
        st.rerun()  # the page around no longer fits the run (an Undo of a switch, a run the server must step)
    if on_player:
        with st.empty():  # one place whether or not there is a notice: the player's place in the fragment stays
            show_notice(box)
        player_view.draw(box, box.link(), None, act, whole=box.view == View.RUN and bool(ss.get("whole_graph")),
                         chat=box.view == View.MESSAGES and bool(ss.get("openai_side")))
        page_link.write_query(box)
        begun_by_a_widget(box)
        return
    with st.container(horizontal=True, vertical_alignment="center", key="step_row"):
        st.button("Step", type="primary", icon=":material/skip_next:", key="step", on_click=on_step, args=(box, False),
                  help=f"One turn of the loop (key {KEY_OF['step']})")
        st.button("Run to end", icon=":material/fast_forward:", key="run_to_end", on_click=on_step, args=(box, True),
                  help=f"Step until the loop returns (key {KEY_OF['run_to_end']})")
        st.button("Reset", icon=":material/restart_alt:", on_click=lambda: act(box.reset), key="reset",
                  help=f"A new run from the settings as they are (key {KEY_OF['reset']}); Undo brings the old back")
    live = st.empty() if box.run_model == ModelKind.REAL else None  # a real model's reply streams here
    if box.page.asked_step is not None:  # a real model's Step, asked for by its callback
        take_step(live, to_the_end=box.page.asked_step)
        if live is not None:
            live.empty()
    if change_the_past.stale(box):
        st.rerun()  # the panel is outside this fragment: an open one is drawn again for the run as it now stands
    shown = screen_of(box)  # once a rerun, after its actions: every figure below is read from it
    run = shown.run
    st.progress(shown.progress, text=shown.status)
    if box.predicting:
        st.caption(start_here.score_line(shown))
    # Notices and the slider come and go; in a fixed slot they never shift what is drawn below them, so the
    # browser updates the graph in place instead of building it anew. One slot for both: each block drawn is a
    # message a Step sends, and the URL's update (page_link.write_query) is one more.
    with st.container():
        show_notice(box)
        show_outcome(box, shown.outcome)
        if box.run_model == ModelKind.REAL and shown.outcome and shown.outcome.kind == OutcomeKind.BAD_REQUEST \
                and run.records[-1].refused_unsent:
            if st.button("Send it to the model anyway", icon=":material/send:", on_click=touched,
                         help="The check refused this request before it left. Send it as it is, to see what "
                              "the service itself answers."):
                real = model_for_this_run(live)
                if real is not None:
                    box.notice = box.send_anyway(real)
                st.rerun()  # draw the run as it now stands
        if shown.settings_note:
            st.info(shown.settings_note, icon=":material/tune:")
        if shown.asking is not None or shown.verdicts:  # Predict each turn: the reply, then the question
            if shown.asking is not None:
                start_here.turn_card(shown)
            start_here.question_card(box, shown, act)
        look_back(box, shown)
    with st.container(key="view_area"):  # its columns wrap under each other on a narrow page (PAGE_CSS)
        if box.view == View.RUN:
            run_view(shown)
        elif box.view == View.LOOP:
            loop_view(shown)
        elif box.view == View.MESSAGES:
            messages_view(shown)
        else:
            export_view(shown, box)
    page_link.write_query(box)  # after the run's every change: the URL opens this screen
    # A Step's fragment run ends here: its click is not taken for the next run's. One that asks for the whole
    # page again (st.rerun above) leaves the flag to the run it asks for, which a widget began all the same.
    begun_by_a_widget(box)


def look_back(box: Sandbox, shown: Screen) -> None:
    """The slider that looks back at an earlier turn's state (keys: the arrows, Home, End)."""
    if shown.run.turn == 0 or shown.asking is not None:  # a question open: the turn waits for its answer
        return
    mirror("look_back", shown.turn)
    st.slider("Look back: the state after turn", 0, shown.run.turn, key="look_back",
              on_change=acting(box, lambda: box.look_at(ss.look_back)),
              help="Keys: ← → one turn back or forward, Home and End the first and the last turn.")
    if shown.looking_back:
        st.caption(shown.looking_back)


# ---------------------------------------------------------------- the page


def start_here_view(box: Sandbox) -> None:
    """The beginner's page: one column, top to bottom."""
    start_here.page(box, screen_of(box), act, lambda to_the_end: on_step(box, to_the_end))
    page_link.write_query(box)


def sandbox_view() -> None:
    bare_visit = not session.made() and not session.page_query()  # a first visit, no link
    box = sandbox()
    box.page.bare_visit = bare_visit
    follow_history(box)
    st.title("Loop Sandbox")
    st.caption("An agent loop, one turn at a time: each request, each reply, each tool call, and the messages "
               "array growing.")
    start_here.layout_row(box, act)
    st.html(remember_layout_js(box.layout.word, bare_visit), unsafe_allow_javascript=True)
    if box.layout == Layout.START:
        start_here_view(box)
        box.page.bare_visit = False
        return
    sidebar(box)
    task_box(box)
    on_player = uses_player(box)
    # Outside the fragment: a Step does not redraw them (each element drawn is a message a Step sends). The player
    # draws its own Undo and Redo.
    with st.container(horizontal=True, vertical_alignment="center", key="undo_row"):
        if not on_player:
            st.button("Undo", icon=":material/undo:", on_click=lambda: act(box.undo), key="undo", type="tertiary",
                      help=f"Take back the last action (key {KEY_OF['undo']})")
            st.button("Redo", icon=":material/redo:", on_click=lambda: act(box.redo), key="redo", type="tertiary",
                      help=f"Take the undone action again (key {KEY_OF['redo']})")
        st.caption(PLAYER_KEYS_CAPTION if on_player else KEYS_CAPTION)
    # A picker, not st.tabs: only the view picked is sent to the browser, and picking one reruns the page.
    mirror("tab", box.view)
    with st.container(horizontal=True, vertical_alignment="center", key="view_row"):
        st.segmented_control("View", VIEWS, key="tab", label_visibility="collapsed", required=True,
                             on_change=acting(box, lambda: box.pick_view(ss.tab)))
        if box.view == View.RUN:
            st.toggle("Every turn", key="whole_graph", on_change=touched,
                      help=f"Draw the run graph's every turn from the task down, not only the latest {GRAPH_TURNS}.")
        elif box.view == View.MESSAGES:
            st.toggle("Beside it: Chat Completions", key="openai_side", on_change=touched,
                      help="The same conversation as OpenAI's Chat Completions would carry it, beside the array "
                           "row by row, and what that translation leaves out.")
    # Drawn only while open (views/change_the_past.py); a real model's fault is asked without a live preview.
    change_the_past.panel(box, lambda: model_for_this_run(None))
    sandbox_main(on_player, drawn_around(box))
    box.page.bare_visit = False  # from the next run on, the address follows the screen


sandbox_view()
real_model.import_sdk_ahead()  # after the page is drawn: the first request that needs the SDK finds it imported
