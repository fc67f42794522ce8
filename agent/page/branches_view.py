"""Change the past, as the page shows it: the branch map, the marks on the run graph, the forms' text.

Streamlit-free: the view `views/change_the_past.py` draws what this works out.
`branch_map` draws the tree of branches; `mark_run_graph` marks, on a run
graph drawn by `agent.page.graph.run_graph`, the turns a branch shares with its
parent, where it left, and every turn whose fault was injected, edited at the
fork or written by hand. The rest turns form fields into blocks and back.
"""

from __future__ import annotations

import json
from typing import Any

import graphviz

from agent.branches import Branch, MarkKind, RunTree
from agent.loop import RunState, TurnPath, TurnRecord
from agent.page.graph import FONT, INK, MUTED, Digraph
from agent.summary import clip

MARK_COLOURS = {MarkKind.INJECTED: "#e8590c", MarkKind.EDITED: "#1971c2", MarkKind.HAND: "#2f9e44"}
# Words, no emoji: a machine without an emoji font (Debian's Chromium) draws a hand or a bolt as an empty box;
# the mark's colour is its sign.
MARK_SIGNS = {MarkKind.INJECTED: "injected", MarkKind.EDITED: "edited", MarkKind.HAND: "by hand"}
SHARED_FILL = "#f1f3f5"


def console_notes(branch: Branch) -> dict[int, str]:
    """Words beside the console lines of each marked record (`agent.summary.console_lines`' notes)."""
    return {index: f"{MARK_SIGNS[mark.kind]}: {mark.words}" if mark.kind != MarkKind.HAND else MARK_SIGNS[MarkKind.HAND]
            for index, mark in branch.marks.items()}


def where_it_left(branch: Branch) -> str:
    """Where a branch leaves its parent, in the words the picker and the branch map both use.

    It was forked from the state after turn `fork_turn`; once that turn is edited, the turn is its own too
    (it shares turns 1..`shared` with its parent), and the words say so.
    """
    edited = f", turn {branch.fork_turn} edited" if branch.shared < branch.fork_turn else ""
    return f"after turn {branch.fork_turn}{edited}"


def branch_caption(tree: RunTree, name: str) -> str:
    """One line for the branch picker: where the branch comes from and how it stands."""
    branch = tree.branches[name]
    state = branch.state
    where = "the run as it happened" if branch.parent is None else f"from {branch.parent} {where_it_left(branch)}"
    standing = state.result if state.done else f"{state.turn} turn{'s' if state.turn != 1 else ''}, going on"
    return f"{name}: {where} · {clip(standing or '', 48)}"


def branch_map(tree: RunTree) -> Digraph:
    """The tree of branches: one node a branch, an edge from its parent labelled with the turn it left after."""
    # Top to bottom: a chain of forks grows down the panel, not across it; only sibling branches stand side by side.
    # Padding: the browser draws the edge labels in its own font, a little wider than graphviz measured them.
    graph = Digraph("branches", graph_attr={"rankdir": "TB", "bgcolor": "transparent", "nodesep": "0.2",
                                            "pad": "0.3"})
    graph.attr("node", shape="box", fontname=FONT, fontsize="13", fontcolor=INK, style="filled", margin="0.12,0.06")
    graph.attr("edge", fontname=FONT, fontsize="13", color=MUTED, fontcolor=MUTED, arrowsize="0.6")
    for number, branch in enumerate(tree.branches.values()):
        state = branch.state
        standing = clip(state.result or "", 36) if state.done else "going on"
        current = branch.name == tree.current
        turns = f"{state.turn} turn{'s' if state.turn != 1 else ''}"
        graph.node(f"b{number}", graphviz.nohtml(f"{branch.name}\\n{turns} · {standing}"),
                   fillcolor="#fff3bf" if current else "#ffffff", color="#f08c00" if current else MUTED,
                   penwidth="2" if current else "1")
    numbers = {name: number for number, name in enumerate(tree.branches)}
    for branch in tree.branches.values():
        if branch.parent is not None:
            graph.edge(f"b{numbers[branch.parent]}", f"b{numbers[branch.name]}", label=where_it_left(branch))
    return graph


def _has_node(graph: graphviz.Digraph, name: str) -> bool:
    return any(line.startswith(f"\t{name} [") for line in graph.body)


def _node_of(state: RunState, record: TurnRecord) -> list[str]:
    """The run graph's nodes that show a record (see `agent.page.graph.run_graph` for their names)."""
    if not record.counted:
        failed = [r for r in state.records if r.turn == record.turn and not r.counted]
        return [f"ask{record.turn}_failed{next(n for n, r in enumerate(failed, 1) if r is record)}"]
    names = [f"ask{record.turn}"]
    names += [f"call{record.turn}_{i}" for i, run in enumerate(record.tool_runs, 1) if run.is_error]
    if record is state.records[-1] and state.done:
        names.append("outcome")
    return names


def mark_run_graph(graph: graphviz.Digraph, branch: Branch, shown: RunState) -> graphviz.Digraph:
    """Mark on `graph` (drawn from `shown`, the branch at some turn) the shared turns, the fork and each mark.

    Only nodes the graph already has are touched: a DOT node said again takes the new attributes, and
    a node the graph folded away stays folded.
    """
    if branch.parent is not None:
        for turn in range(1, branch.shared + 1):
            if _has_node(graph, f"ask{turn}"):
                graph.node(f"ask{turn}", fillcolor=SHARED_FILL, tooltip=f"shared with {branch.parent}")
        left = f"ask{branch.shared + 1}"
        if _has_node(graph, left):
            said = f"fork: {branch.name} leaves {branch.parent}\\n{where_it_left(branch)}"
            graph.node("fork", graphviz.nohtml(said), shape="box", style="dashed", color=MUTED, fontcolor=MUTED,
                       fontsize="13")
            graph.edge("fork", left, style="dashed", color=MUTED, arrowhead="none")
    for index, mark in branch.marks.items():
        if index >= len(shown.records):
            continue
        for name in _node_of(shown, shown.records[index]):
            if _has_node(graph, name):
                graph.node(name, color=MARK_COLOURS[mark.kind], penwidth="2.5", xlabel=MARK_SIGNS[mark.kind],
                           fontcolor=INK)
    return graph


# ------------------------------------------------------------------ the forms


def stop_reason_choices(reply: dict[str, Any] | None, known: tuple[str, ...]) -> tuple[list[str], str]:
    """The edit form's stop_reason choices and the one it starts at: the reply's own (added when it is not one of
    `known`), or `end_turn` for a turn that got no reply, or a reply that names none."""
    own = (reply or {}).get("stop_reason")
    if not isinstance(own, str):
        return list(known), "end_turn"
    return list(known) + ([own] if own not in known else []), own


def no_reply_note(record: TurnRecord) -> str | None:
    """What the edit form says above itself when the turn at the fork got no reply; None when it has one."""
    if record.reply is not None:
        return None
    no_reply = record.path == TurnPath.NO_REPLY
    why = "the model had no reply to give" if no_reply else (record.error or "the request failed")
    return (f"Turn {record.turn} got no reply: {why}. There is no reply here to edit: write the one it could "
            f"have had below, and Apply this reply gives turn {record.turn} that reply.")


def blocks_text(reply: dict[str, Any] | None) -> str:
    """A reply's content blocks as JSON for the edit box, one block a line."""
    blocks = (reply or {}).get("content") or []
    return "[\n" + ",\n".join("  " + json.dumps(b, ensure_ascii=False) for b in blocks) + "\n]"


def blocks_from_text(text: str) -> list[dict[str, Any]]:
    """The edit box's JSON as a list of blocks; ValueError in words when it is not one."""
    try:
        blocks = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the blocks are not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise ValueError('the blocks are a JSON list of objects, like [{"type": "text", "text": "Hi."}]')
    return blocks


def input_from_text(position: int, text: str) -> dict[str, Any]:
    """A tool call's input typed into the form; ValueError in words when it is not a JSON object."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"tool call {position}: its input is not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise ValueError(f'tool call {position}: its input is a JSON object, like {{"a": 2, "b": 3}}')
    return value


def form_blocks(thinking: str, text: str, calls: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The be-the-model form's fields as blocks: thinking first, then text, then the tool calls in order."""
    blocks: list[dict[str, Any]] = []
    if thinking.strip():
        blocks.append({"type": "thinking", "thinking": thinking})
    if text.strip():
        blocks.append({"type": "text", "text": text})
    for position, (name, typed) in enumerate(calls, start=1):
        blocks.append({"type": "tool_use", "name": name, "input": input_from_text(position, typed)})
    return blocks


def input_example(schema: dict[str, Any]) -> str:
    """A placeholder input for a tool, from its schema: each field with a value of its type."""
    examples = {"number": 1, "string": "…"}
    return json.dumps({name: examples.get(spec.get("type"), None) for name, spec in schema["properties"].items()})
