"""Start here: the beginner's page. The task, Step, the question the turn asks, the turn's card, and the lesson's
loop lit beside the run graph, read top to bottom. Everything else is one switch away (All controls).

Drawn by `views/sandbox.py` when the Sandbox's layout is Start here; it reads the Screen and wires callbacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from agent.page.frames import GRAPH_TURNS, Card, card_of  # as the player draws them on this layout
from agent.page.graph import run_graph
from agent.page.html_cards import message_html, messages_html, source_html
from agent.page.keys import KEY_OF, PLAYER_KEYS_CAPTION, START_KEYS_CAPTION
from agent.page.lesson_loop import lesson_source, shown_record
from agent.page.lesson_path import PATH
from agent.page.names import Layout, ModelKind, View
from agent.page.safe_text import as_code, as_text, with_code
from agent.page.sandbox import Sandbox
from agent.page.screen import Screen
from views import page_link, player_view
from views.notices import api_key, show_notice, show_outcome
from views.session import sandbox
from views.widget_state import acting, begun_by_a_widget, mirror

ss = st.session_state


def layout_row(box: Sandbox, act: Callable[..., Any]) -> None:
    """The two switches every layout shows: All controls, and Predict, then Step."""
    with st.container(horizontal=True, key="layout_row"):
        mirror("all_controls", box.layout == Layout.ALL)
        st.toggle("All controls", key="all_controls",
                  on_change=acting(box, lambda: box.set_layout(Layout.ALL if ss.all_controls else Layout.START)),
                  help="Every control of the sandbox: models, settings, message threads, Change the past, the "
                       "views. Off: the beginner's page.")
        mirror("predicting", box.predicting)
        st.toggle("Predict each turn", key="predicting",
                  on_change=acting(box, lambda: box.set_predicting(ss.predicting)),
                  help="Each Step stops when the reply is back and asks what the loop does with it, before "
                       "showing it.")


def scenario_line(box: Sandbox, screen: Screen, act: Callable[..., Any]) -> None:
    """Where on the lesson's path the run is, what the model is (said where it first appears), and the task."""
    if screen.scenario is not None:
        place, scenario = screen.scenario
        st.markdown(f"**Scenario {place + 1} of {len(PATH)}: {as_text(box.picked_script.title)}.** "
                    f"{as_text(scenario.watch)}")
    if box.run_model == ModelKind.TOY:
        st.caption("The model here is the *toy*: a few fixed patterns that read the task (sums, word counts, the "
                   "note files, shouting). It is not a language model; it shows the loop working on what you type.")
        mirror("task", box.settings.task)
        st.text_area("Task", key="task", height=68, on_change=lambda: act(box.set_task, ss.task))
        return
    if box.run_model == ModelKind.REAL:
        st.caption("The model here is a real one, through the anthropic SDK: each Step is one request, paid in "
                   "tokens. The task below is what the loop sends first; its key, model and base URL are set "
                   "under **All controls**.")
    else:
        if screen.scenario is None:
            st.markdown(f"**{as_text(box.picked_script.title)}**")
        st.caption("The model here is a *script*: replies written in advance and played back one per request, so "
                   "the run is the same every time. The task below is what the loop sends first.")
    st.code(box.run.task or "(no task)", language=None, wrap_lines=True)


def question_card(box: Sandbox, screen: Screen, act: Callable[..., Any]) -> None:
    """The question open, with a button a choice (keys 1-4), and the verdicts of those answered."""
    for verdict, line in zip(screen.verdicts, screen.deciding_lines, strict=True):
        (st.success if verdict.right else st.warning)(as_text(verdict.words),
                                                      icon=":material/check:" if verdict.right else ":material/close:")
        if line and not screen.question:
            where = "lit in the loop below" if box.layout == Layout.START or box.view == View.LOOP else \
                "lit in The loop view"
            st.caption(f"run_agent {line.did} at {as_code(line.line)} ({where}).")
    question = screen.question
    if question is None:
        return
    with st.container(border=True, key="question"):
        st.markdown(f"**{question.prompt}**")
        for i, choice in enumerate(question.choices):
            st.button(f"{i + 1}. {choice}", key=f"choice_{i}", on_click=lambda i=i: act(box.predict, i),
                      use_container_width=True)


def score_line(screen: Screen) -> str:
    right, answered = screen.score
    return f"Predictions: {right} right of {answered}" if answered else "No predictions yet"


def turn_card(screen: Screen) -> Card | None:
    """What the turn sent and what came back, in the words the player draws (`frames.card_of`); the card, when a
    reply came."""
    run, card, key = screen.run, card_of(screen), api_key()[0]
    record = screen.asking or screen.record
    st.markdown(f"##### {card.heading}")
    if card.sent:
        st.markdown(f"**Sent:** {with_code(card.sent, key)}")
    if record is None or record.reply is None:
        st.markdown(with_code(card.came_back, key))
        if record is None:
            st.html(message_html(run.messages[0], 0))
        return None
    st.markdown(f"**Came back:** {with_code(card.came_back, key)}")
    for line in card.terms:
        st.caption(line)
    st.html(message_html({"role": "assistant", "content": record.reply.get("content")}, record.sent, "reply"))
    return card


def appended(screen: Screen, card: Card) -> None:
    """What the loop appended after the reply, and why."""
    st.markdown(with_code(card.appended, api_key()[0]))
    if card.results:
        added = screen.added
        st.html(messages_html(screen.run.messages[card.results[0]:added.stop], card.results[0], added, "new"))


def loop_and_graph(screen: Screen) -> None:
    shown = screen.shown
    with st.container(key="view_area"):  # its columns wrap under each other on a narrow page (PAGE_CSS)
        _loop_and_graph(screen, shown)


def _loop_and_graph(screen: Screen, shown: Any) -> None:
    left, right = st.columns([7, 4], gap="medium")
    with left:
        st.markdown("##### The loop")
        if screen.asking is not None:
            source = lesson_source(screen.asking, asking=True)
        else:
            record = shown_record(shown, screen.turn)
            ended = record is not None and shown.done and record is shown.records[-1]
            source = lesson_source(record, shown.result if ended else None)
        st.html(source_html(source))
    with right:
        st.markdown("##### The run so far")
        st.graphviz_chart(run_graph(shown, GRAPH_TURNS, next_step=shown is screen.run).source)


def player_page(box: Sandbox, screen: Screen, act: Callable[..., Any]) -> None:
    """The beginner's page with a script's or the toy's run in the player: Step, look back, the question, the
    card, the loop, the graph, Undo and Redo of those, and Copy link are drawn in the browser with no rerun."""
    scenario_line(box, screen, act)
    following = screen.next_scenario
    player_part(box.scripts[following.script].title if following else None, act, drawn_around(box))
    st.caption(PLAYER_KEYS_CAPTION)


def drawn_around(box: Sandbox) -> tuple[object, ...]:
    """What the page around the player's part shows: the switches, the scenario, the model, the task."""
    return (box.layout, box.predicting, box.scenario, box.run_model, box.script, box.settings.task)


@st.fragment
def player_part(next_label: str | None, act: Callable[..., Any], around: tuple[object, ...]) -> None:
    """The notice and the player, in a fragment of their own: what the player hands the server (its
    component state) and an Undo the server takes (of what came before the player's own actions: the player takes
    back those) run only this. What changes the page around it (the next scenario, an Undo of a switch, a run the
    player cannot play) runs the whole page again."""
    box = sandbox()
    if drawn_around(box) != around or not player_view.usable(box):
        st.rerun()  # the page around no longer says what the run is, or the server must draw it: draw it all
    with st.empty():  # one place whether or not there is a notice: the player's place in the fragment stays
        show_notice(box)
    player_view.draw(box, box.link(), next_label, act)
    page_link.write_query(box)  # the address the player wrote, now the server's too
    begun_by_a_widget(box)  # a fragment run's flag is taken here (views/widget_state.py)


def page(box: Sandbox, screen: Screen, act: Callable[..., Any], take_step: Callable[[bool], None]) -> None:
    """The beginner's page below the title."""
    if player_view.usable(box):
        player_page(box, screen, act)
        return
    scenario_line(box, screen, act)
    with st.container(horizontal=True, vertical_alignment="center", key="step_row"):
        st.button("Step", type="primary", icon=":material/skip_next:", key="step", on_click=lambda: take_step(False),
                  help=f"One turn of the loop (key {KEY_OF['step']})")
        st.button("Run to end", icon=":material/fast_forward:", key="run_to_end", on_click=lambda: take_step(True),
                  help="Step until the loop stops, without questions")
        st.button("Reset", icon=":material/restart_alt:", key="reset", on_click=lambda: act(box.reset),
                  help="The run again from the start (Undo brings this one back)")
        st.button("Undo", icon=":material/undo:", key="undo", type="tertiary", on_click=lambda: act(box.undo),
                  help=f"Take back the last action (key {KEY_OF['undo']})")
        st.button("Redo", icon=":material/redo:", key="redo", type="tertiary", on_click=lambda: act(box.redo),
                  help=f"Take the undone action again (key {KEY_OF['redo']})")
        page_link.copy_link_button(box)
        st.caption(score_line(screen) if box.predicting else "")
    st.progress(screen.progress, text=screen.status)
    show_notice(box)
    card = turn_card(screen)
    question_card(box, screen, act)
    if card is not None and screen.asking is None:
        appended(screen, card)
    if screen.outcome is not None:
        show_outcome(box, screen.outcome)
        if screen.next_scenario is not None:
            st.button(f"Next scenario: {as_text(box.scripts[screen.next_scenario.script].title)}",
                      icon=":material/arrow_forward:", key="next_scenario", type="primary",
                      on_click=lambda: act(box.next_scenario))
        else:
            st.caption("That was the path's last scenario. All controls opens the rest of the page.")
    loop_and_graph(screen)
    st.caption(START_KEYS_CAPTION)
