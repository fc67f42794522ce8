"""The sandbox view's views: the run (graph, console, one turn's request and reply), the loop, the messages, the export.

Imported by `views/sandbox.py`, which draws only the view picked. Everything
here reads the run and the session's settings; nothing changes the run.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from agent.loop import RunState
from agent.openai_format import DIFFERENCES, DIFFERENCES_HEAD, side_by_side
from agent.page import NotPlayable, run_page, view
from agent.page.frames import GRAPH_TURNS
from agent.page.graph import loop_diagram, run_graph
from agent.page.html_cards import chat_pairs_html, message_html, messages_html, source_html
from agent.page.lesson_loop import lesson_source, shown_record
from agent.page.names import ModelKind
from agent.page.player_html import frames_to_export
from agent.page.safe_text import CODE_CHARS, as_sentence, clip_text, with_code
from agent.page.sandbox import Sandbox
from agent.page.screen import Screen
from agent.page.turn_details import details_of, first_card, loop_view_caption, messages_caption
from agent.real import record_script
from agent.scripts import ScriptError
from agent.summary import message_line
from views import change_the_past  # marks a branch's fork, faults and edits on the graph and the console
from views.notices import api_key
from views.page_js import LOOP_DIAGRAM_KEY
from views.widget_state import touched

CONSOLE_LINE_CHARS = 2_000  # a console line is clipped here: a 20 MB answer is the Export tab's, not the console's
ss = st.session_state


def run_view(screen: Screen) -> None:
    run, shown = screen.run, screen.shown
    left, right = st.columns([5, 6], gap="large")
    with left:
        whole = bool(ss.get("whole_graph"))  # the toggle is beside the view picker, outside the Step's fragment
        # The box scrolls rather than shrink the graph. With every turn drawn it stays at the top, where the
        # turns the toggle brought back are; otherwise it follows the newest turn.
        # A box of its own for each setting: switching starts it scrolled to the top, not where the other was.
        with st.container(height=640, border=False, autoscroll=not whole,
                          key="run_graph_box_whole" if whole else "run_graph_box"):
            # As DOT text: Streamlit takes only graphviz's own class, and the page's is a faster subclass (graph.py).
            st.graphviz_chart(change_the_past.marked_graph(
                run_graph(shown, None if whole else GRAPH_TURNS, next_step=shown is run), shown).source)
    with right:
        st.markdown("##### Console")
        with st.container(height=190 if shown.turn > 6 else "content", border=False, autoscroll=True):
            lines = [clip_text(line, CONSOLE_LINE_CHARS, "the Export tab") for line in screen.console]
            st.code("\n".join(lines), language=None, wrap_lines=True)
        if screen.usage_total:
            st.caption(screen.usage_total)
        turn_details(screen)


def turn_details(screen: Screen) -> None:
    """The exact request a turn sent and the reply that came back, under the turn's heading."""
    run, turn, record, key = screen.run, screen.turn, screen.record, api_key()[0]
    said = details_of(screen)
    if said.failures:  # attempts at the next turn that have failed so far
        st.caption(said.failures)
    heading = f"##### {said.heading}\n\n"
    if record is None:
        st.markdown(heading + with_code(said.said, key))
        st.html(message_html(run.messages[0], 0))
        return
    for attempt in said.attempts:
        st.error(with_code(attempt, key), icon=":material/replay:")
    # What was sent and what came back in one block, the JSON of both under the cards: each element is a
    # message a Step sends, and most of a Step's server time is Streamlit's own work for each (docs/hosting.md).
    st.markdown(f"{heading}{with_code(said.said, key)}\n\n{with_code(said.came_back, key)}")
    if said.thread_note:
        st.caption(said.thread_note)
    if record.reply is not None:
        st.caption(said.cost_line)
        added = screen.added
        st.html(messages_html(run.messages[added.start:added.stop], added.start, added, f"new in turn {turn}"))
    assert screen.turn_sent is not None
    show_json_lazily("The exact request (JSON)", screen.turn_sent.request, f"request{turn}")
    if record.reply is not None:
        show_json_lazily("The reply as it came back (JSON)", record.reply, f"reply{turn}")


def show_json_lazily(label: str, value: Any, key: str) -> None:
    box = st.expander(label, key=f"json_{key}", on_change=touched)
    if box.open:
        with box:
            whole = json.dumps(value, indent=2, ensure_ascii=False)
            st.code(clip_text(whole, CODE_CHARS, "the download below"), language="json", wrap_lines=True)
            if len(whole) > CODE_CHARS:  # a huge reply is drawn clipped; the whole is a click away
                st.download_button(f"The whole {len(whole):,} characters (JSON)", whole, file_name=f"{key}.json",
                                   mime="application/json", on_click="ignore", key=f"whole_{key}",
                                   icon=":material/download:")


def loop_view(screen: Screen) -> None:
    """The lesson's loop with the turn's lines lit, then the same turn round the cycle, each at a size to read."""
    shown, turn = screen.shown, screen.turn
    record = shown_record(shown, turn)
    ended = record is not None and shown.done and record is shown.records[-1]
    st.caption(loop_view_caption(screen))
    st.html(source_html(lesson_source(record, shown.result if ended else None)))
    with st.container(key=LOOP_DIAGRAM_KEY):  # scrolls sideways rather than shrink, opened where the loop starts
        st.graphviz_chart(loop_diagram(record.path if record else None).source)


def messages_view(screen: Screen) -> None:
    shown, turn = screen.shown, screen.turn
    messages = shown.messages
    new = screen.added
    st.caption(with_code(messages_caption(shown, turn)))
    if ss.get("openai_side"):  # the switch is beside the view picker (views/sandbox.py)
        chat_completions_view(shown, new)
        return
    cut = first_card(screen)
    st.html(message_html(messages[0], 0))
    if cut > 1:
        older = st.expander(f"messages[1]–[{cut - 1}], one line each", key="older_messages", on_change=touched)
        if older.open:
            with older:
                st.code("\n".join(f"[{i}] {message_line(m)}" for i, m in enumerate(messages[1:cut], 1)),
                        language=None, wrap_lines=True)
    st.html(messages_html(messages[cut:], cut, new) or "<span></span>")
    show_json_lazily("The whole array, exactly as sent (JSON)", messages, "messages")


def chat_completions_view(shown: RunState, new: range) -> None:
    """Row by row: this API's message on the left, what Chat Completions carries instead on the right."""
    rows = "\n".join(f"| {what} | {here} | {there} |" for what, here, there in DIFFERENCES)
    st.markdown(f"| {' | '.join(DIFFERENCES_HEAD)} |\n|---|---|---|\n{rows}")
    st.html(chat_pairs_html(side_by_side(shown.messages, shown.system), new, view.latest_stop_reason(shown)))


def export_view(screen: Screen, box: Sandbox) -> None:
    """`box`: the page's Sandbox, which the run's web page is played again from."""
    run = screen.run
    st.caption("Everything the page shows, as files.")
    st.download_button("Messages (JSON)", lambda: json.dumps(run.messages, indent=2, ensure_ascii=False),
                       file_name="messages.json", mime="application/json", on_click="ignore",
                       icon=":material/download:")
    st.download_button("The whole run: state and turn records (JSON)", run.to_json, file_name="run.json",
                       mime="application/json", on_click="ignore", icon=":material/download:")
    st.download_button("Run graph (DOT)", lambda: run_graph(run).source, file_name="run-graph.dot",
                       mime="text/vnd.graphviz", on_click="ignore", icon=":material/download:")
    web_page(run, box)
    try:
        recorded = record_script(run)
        about = view.recorded_about(run, screen.recorded_source, len(recorded.replies), screen.edited_replies)
        script = json.dumps({**recorded.to_dict(), "about": about}, indent=2)
        script += "\n"
    except ScriptError as exc:  # e.g. no reply yet: nothing to replay
        st.caption(f"The run as a FakeModel script: {as_sentence(exc, api_key()[0])}")
        return
    st.download_button("This run as a FakeModel script (JSON): replays it offline, without the key", script,
                       file_name="recorded-run.json", mime="application/json", on_click="ignore",
                       icon=":material/download:")


def web_page(run: RunState, box: Sandbox) -> None:
    """The run as one web page that steps it in any browser: a file to open, or to put in a lesson's iframe."""
    if not run.records:
        st.caption("This run as a web page: Step once first, and the page holds the run from its start.")
        return
    try:
        frames, caveat = frames_to_export(box)
    except (NotPlayable, ScriptError) as exc:
        st.caption(f"This run as a web page: {as_sentence(exc, api_key()[0])}")
        return
    st.download_button("This run as a web page (HTML): steps in any browser, no server, no network",
                       lambda: run_page(frames), file_name="loop-sandbox-run.html", mime="text/html",
                       on_click="ignore", icon=":material/download:")
    whole = "the whole run, to where it ends" if box.run_model != ModelKind.REAL else "the turns taken"
    st.caption(f"One file holding {whole}: open it from disk, or put it in a lesson page's iframe. "
               + (caveat or ""))
