"""The sandbox view's tabs: the run (graph, console, one turn's request and reply), the loop, the messages, the export.

Imported by `views/sandbox.py`, which draws only the open tab. Everything here
reads the run and the session's settings; nothing changes the run.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from agent.loop import RunState, console_lines
from agent.page import view
from agent.page.graph import loop_diagram, run_graph
from agent.page.html_cards import message_html, messages_html, source_html
from agent.real import script_json
from agent.scripts import ScriptError
from agent.summary import message_line

# The run graph draws this many latest turns and folds earlier ones into one node: the browser lays the
# graph out again on every Step, at a cost that grows with its size (bench/page_step.py measures it).
GRAPH_TURNS = 8
CARD_TURNS = 3  # the Messages tab draws the latest turns as cards, older ones as one line a message
ss = st.session_state


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
    if (note := view.thread_note(run, record)) is not None:
        st.caption(note)
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
                st.code("\n".join(f"[{i}] {message_line(m)}" for i, m in enumerate(messages[1:cut], 1)),
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
