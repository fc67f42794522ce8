"""Change the past: fork at any turn, inject a fault, play the model yourself.

A panel of the sandbox view (`views/sandbox.py` draws it above the Step row, outside the Step's fragment),
built only while it is open, so a Step with it closed costs what it did. The
run on screen is always the current branch of the Sandbox's `RunTree`
(`agent.branches`): every action here is a Sandbox method, and the picker
shows whichever branch the tree says is current. Forking copies the turns
before the fork as data, and the branch's own FakeModel continues the script
from where the branch's records say it had got. Every action here is a step
of `agent.loop` (through the tree), never a loop of its own. Its buttons act in
callbacks, and an error they meet is drawn beside the form that met it.
"""

from __future__ import annotations

from collections.abc import Callable

import graphviz
import streamlit as st

from agent.branch_compare import compare
from agent.branches import MAIN, Branch, RunTree
from agent.loop import Model, RunState, TurnRecord
from agent.models.faults import FAULTS
from agent.models.hand_model import STOP_REASONS
from agent.page import real_model
from agent.page.branches_view import (
    blocks_from_text,
    blocks_text,
    branch_caption,
    branch_map,
    form_blocks,
    input_example,
    mark_run_graph,
    no_reply_note,
    stop_reason_choices,
)
from agent.page.html_cards import comparison_html
from agent.page.names import NoticeKind
from agent.page.safe_text import as_text
from agent.page.sandbox import ModelKind, Notice, Sandbox
from agent.page.sandbox_values import plural
from agent.tools import TOOLS
from agent.untrusted import MAX_FILE_BYTES
from views.actions import act
from views.notices import show_error_beside
from views.session import sandbox
from views.widget_state import touched

ss = st.session_state
MAX_HAND_CALLS = 4


def marked_graph(graph: graphviz.Digraph, shown: RunState) -> graphviz.Digraph:
    """The run graph with the branch's fork and marks, when the run has any (a hook of `views/run_tabs.py`)."""
    branch = sandbox().tree.branch
    if branch.parent is None and not branch.marks:
        return graph
    return mark_run_graph(graph, branch, shown)


def what_the_panel_shows(box: Sandbox) -> tuple:
    """What an open panel is drawn from: when a run of the Step's fragment changes it, the page runs again whole."""
    tree = box.tree
    return (id(tree), tree.current, len(tree.branches), len(box.log), box.turn_shown, len(box.run.records),
            box.run.done)


def stale(box: Sandbox) -> bool:
    """Whether the panel is open and the run has changed since it was drawn (in a run of the Step's fragment)."""
    return bool(ss.get("change_the_past")) and box.page.panel_drawn_for != what_the_panel_shows(box)


def panel(box: Sandbox, model_for: Callable[[], Model | None]) -> None:
    """The expander; `model_for` gives the model a Step would use now (None, with a message, if none)."""
    panel_box = st.expander("Change the past: fork at a turn, inject a fault, be the model", key="change_the_past",
                      on_change=touched, icon=":material/call_split:")
    if not panel_box.open:
        return
    box.page.panel_drawn_for = what_the_panel_shows(box)
    with panel_box:
        if len(box.tree.branches) > 1:
            branches_section(box)
        fork_at, fault_at, hand_at = st.tabs(["Fork and edit", "Inject a fault", "Be the model"], key="past_tab",
                                             on_change=touched)
        if fork_at.open:
            with fork_at:
                fork_section(box)
        if fault_at.open:
            with fault_at:
                fault_section(box, model_for)
        if hand_at.open:
            with hand_at:
                hand_section(box)


def branches_section(box: Sandbox) -> None:
    current = box.tree
    picked_at, map_at = st.columns([2, 3], vertical_alignment="top")
    # The tree says which branch is on screen, whatever the browser last held: the picker is told before it is
    # made (and given no default of its own), and only a pick by the person changes the tree.
    ss.branch_pick = current.current
    picked_at.selectbox("Branch on screen", list(current.branches), key="branch_pick",
                        format_func=lambda name: branch_caption(current, name),
                        on_change=lambda: act(box.pick_branch, ss.branch_pick))
    # The Export tab saves the branch on screen as a script; here only the whole tree, made when clicked.
    picked_at.caption("The Export tab downloads the branch on screen as a script that replays it.")
    picked_at.download_button("Every branch (JSON)", current.to_json, file_name="run-tree.json",
                              mime="application/json", on_click="ignore", icon=":material/account_tree:")
    picked_at.caption("Load the file back (in the Fork and edit tab) to go on where you were.")
    map_at.graphviz_chart(branch_map(current).source)
    compare_section(current)


def compare_section(current: RunTree) -> None:
    """Two branches (or a branch and main) side by side from where they part, drawn only while open."""
    box = st.expander("Compare two branches", key="compare_box", on_change=touched, icon=":material/difference:")
    if not box.open:
        return
    with box:
        names = list(current.branches)
        left_at, right_at = st.columns(2)
        parent = current.branch.parent or (names[1] if current.current == MAIN else MAIN)
        left = left_at.selectbox("Compare", names, index=names.index(parent), key="compare_left", on_change=touched)
        right = right_at.selectbox("with", names, index=names.index(current.current), key="compare_right",
                                   on_change=touched)
        comparison = compare(current, left, right)
        if not comparison.differences:
            st.caption(f"{as_text(left)} and {as_text(right)} hold the same messages and ended the same way.")
            return
        st.markdown("\n".join(f"- {as_text(difference.words)}" for difference in comparison.differences))
        if comparison.rows:
            same = "is" if comparison.shared == 1 else "are"
            st.caption(f"From messages[{comparison.shared}] on: the first {plural(comparison.shared, 'message')} "
                       f"{same} the same in both.")
            st.html(comparison_html(comparison))


def fork_section(box: Sandbox) -> None:
    current, turn = box.tree, box.turn_shown
    st.caption("Fork copies the run as it stood after a turn (pick the turn with the Look back slider). Nothing "
               "before the fork is sent again: Step carries the branch on from there, with the script's next "
               "reply, the real model, or yours.")
    st.button(f"Fork here, after turn {turn}", icon=":material/call_split:", key="fork",
              on_click=lambda: act(box.fork, turn))
    st.file_uploader("Load a run tree (the “Every branch” file)", type=["json"],
                     key=f"tree_upload{box.page.uploads}", on_change=on_tree_loaded, args=(box,),
                     max_upload_size=MAX_FILE_BYTES // 2**20)
    branch = current.branch
    if (record := branch.editable_record()) is not None:
        edit_section(box, branch, record)


def edit_section(box: Sandbox, branch: Branch, record: TurnRecord) -> None:
    k = branch.fork_turn
    st.markdown(f"**Edit turn {k} of {branch.name}**, then Step on. The next request goes through the same checks "
                "as any other, so an edit the API would refuse is refused.")
    if box.run_model == ModelKind.SCRIPT:
        st.caption("The script does not read: its next replies were written for the run as it was, so they do "
                   "not read your edit. An edited text or result changes what the next request carries, not what "
                   "the script answers.")
    if (missing := no_reply_note(record)) is not None:  # a request that got no reply: the form writes one
        st.info(missing, icon=":material/speaker_notes_off:")
    reasons, own_reason = stop_reason_choices(record.reply, STOP_REASONS)
    key = f"{branch.name}_{k}_{len(branch.marks)}"  # fresh fields after each edit
    st.selectbox("stop_reason", reasons, index=reasons.index(own_reason), key=f"edit_stop_{key}", on_change=touched)
    st.text_area("The reply's blocks (JSON): change the text, add, remove or change tool calls",
                 blocks_text(record.reply), height=160, key=f"edit_blocks_{key}", on_change=touched)
    st.button("Apply this reply", icon=":material/edit:", key=f"edit_apply_{key}", on_click=apply_reply,
              args=(box, key))
    show_error_beside(box, f"edit_apply_{key}")
    for position, tool_run in enumerate(record.tool_runs):
        lines = tool_run.content.count("\n") + 1  # a result keeps its newlines: a box as tall as its lines, in reason
        st.text_area(f"Result of {tool_run.name} (call {position + 1})", tool_run.content,
                     height=min(68 + 24 * (lines - 1), 240), key=f"edit_result_{key}_{position}", on_change=touched)
        with st.container(horizontal=True, vertical_alignment="center"):  # under the box: no column to squeeze
            st.checkbox("is_error", tool_run.is_error, key=f"edit_is_error_{key}_{position}", on_change=touched)
            st.button("Change it", key=f"edit_result_apply_{key}_{position}",
                      on_click=lambda position=position: act(
                          box.edit_result, position, ss[f"edit_result_{key}_{position}"],
                          ss[f"edit_is_error_{key}_{position}"], beside=f"edit_result_apply_{key}_{position}"))
        show_error_beside(box, f"edit_result_apply_{key}_{position}")


def apply_reply(box: Sandbox, key: str) -> None:
    """Apply this reply's callback. The forms' buttons act in callbacks, before the run draws anything: a click
    elsewhere that asks for a rerun cannot stop them half done (views/sandbox.py's on_step says how)."""
    box.page.widget_began()
    try:
        blocks = blocks_from_text(ss[f"edit_blocks_{key}"])
    except ValueError as exc:  # not JSON, or not a list of blocks: said beside the form, the text kept
        box.notice = Notice(NoticeKind.ERROR, str(exc), beside=f"edit_apply_{key}")
        return
    act(box.edit_reply, ss[f"edit_stop_{key}"], blocks, beside=f"edit_apply_{key}")


def on_tree_loaded(box: Sandbox) -> None:
    box.page.widget_began()
    file = ss.get(f"tree_upload{box.page.uploads}")
    if file is not None:
        box.notice = box.load_tree(file.getvalue())
        box.page.uploads += 1  # a fresh, empty uploader: the file's work is in the tree now


def fault_section(box: Sandbox, model_for: Callable[[], Model | None]) -> None:
    st.caption("Choose what goes wrong on the next turn, then step it. The loop meets the fault on its own code "
               "path; the graph and the console mark it as injected.")
    kind = st.selectbox("What goes wrong", list(FAULTS), format_func=FAULTS.get, key="fault_kind", on_change=touched)
    if kind == "tool_raises":
        st.selectbox("Which tool", ["", *box.run.tool_names], key="fault_tool", on_change=touched,
                     format_func=lambda name: name or "every tool the reply calls")
    st.button("Step with this fault", icon=":material/bolt:", key="fault_step", on_click=step_with_fault,
              args=(box, model_for))
    show_error_beside(box, "fault_step")


def step_with_fault(box: Sandbox, model_for: Callable[[], Model | None]) -> None:
    """Step with this fault's callback (see apply_reply); the SDK is waited for here, not under a spinner."""
    box.page.widget_began()
    real_model.wait_for_sdk()
    real = model_for()
    if box.run_model == ModelKind.REAL and real is None:
        return  # the real model could not be set up: the notice says why
    kind = ss.fault_kind
    tool = (ss.get("fault_tool") or "") if kind == "tool_raises" else ""  # the tool picker is drawn for this fault only
    act(box.inject_fault, kind, tool, real, beside="fault_step")


def hand_section(box: Sandbox) -> None:
    run = box.run
    st.caption("You are the model: write the next reply and send it into the loop. Tool ids are made for you; "
               "inputs are checked against the tools' schemas. Save the session from the Export tab (This run as "
               "a FakeModel script) and it replays like a built-in script.")
    stop_at, calls_at = st.columns(2)
    stop_at.selectbox("stop_reason", STOP_REASONS, key="hand_stop", on_change=touched)
    count = int(calls_at.number_input("Tool calls", 0, MAX_HAND_CALLS, key="hand_calls", step=1, on_change=touched))
    st.text_area("Thinking (optional)", key="hand_thinking", height=68, on_change=touched)
    st.text_area("Text", key="hand_text", height=68, on_change=touched)
    for position in range(1, count + 1):
        name_at, input_at = st.columns([1, 3])
        names = run.tool_names or list(TOOLS)
        name = name_at.selectbox(f"Tool {position}", names, key=f"hand_tool_{position}", on_change=touched)
        input_at.text_input(f"Input {position} (JSON)", key=f"hand_input_{position}", on_change=touched,
                            placeholder=input_example(TOOLS[name].input_schema))
    st.button("Send this reply", type="primary", icon=":material/send:", key="hand_send", on_click=send_by_hand,
              args=(box, count))
    show_error_beside(box, "hand_send")


def send_by_hand(box: Sandbox, count: int) -> None:
    """Send this reply's callback (see apply_reply): the form as the learner left it, read from its fields."""
    box.page.widget_began()
    calls = [(ss[f"hand_tool_{position}"], ss[f"hand_input_{position}"]) for position in range(1, count + 1)]
    try:
        blocks = form_blocks(ss.hand_thinking, ss.hand_text, calls)
    except ValueError as exc:  # a tool input that is not a JSON object
        box.notice = Notice(NoticeKind.ERROR, str(exc), beside="hand_send")
        return
    act(box.hand, ss.hand_stop, blocks, beside="hand_send")
