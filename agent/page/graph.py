"""A run as pictures: the run graph, and the loop's cycle with the step just taken lit.

Both are `Digraph`s, graphviz's own class writing the same DOT faster (the
page hands their `.source` to `st.graphviz_chart`, the export writes it);
building them needs only the `graphviz` Python package, not the Graphviz
programs.

The run graph reads top to bottom: the task, ask 1, the tool calls of turn 1
(name, input, result; errors marked), ask 2, ..., and the outcome. Node names
are fixed by turn (`ask3`, `call3_1`), and each Step only adds to the bottom,
so the part already drawn keeps its place.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

import graphviz

from agent.loop import RunState, TurnPath, TurnRecord
from agent.page.view import failed_attempts, record_of_turn, sent_words
from agent.summary import clip, compact_json

FONT = "Helvetica,Arial,sans-serif"
INK, MUTED, LINE = "#1f2933", "#7b8794", "#cbd2d9"
# Fill and border for each kind of node.
STYLES = {
    "task": ("#e8f0fe", "#4c6ef5"),
    "ask": ("#ffffff", "#4c6ef5"),
    "call": ("#f3f0ff", "#7950f2"),
    "call_error": ("#fff5f5", "#e03131"),
    "failed": ("#fff5f5", "#e03131"),
    "answer": ("#ebfbee", "#2f9e44"),
    "stopped": ("#fff9db", "#e67700"),
    "limit": ("#fff9db", "#e67700"),
    "bad_request": ("#fff5f5", "#e03131"),
    "next": ("#f8f9fa", "#adb5bd"),
    "earlier": ("#f8f9fa", "#adb5bd"),
}
LIT_FILL, LIT_LINE, LAST_FILL = "#fff3bf", "#f08c00", "#ffd43b"
# The parts of the cycle a turn did not go through: quieter than the lit path, still easy to read.
QUIET_INK, QUIET_LINE = "#3e4c59", "#9aa5b1"
HARNESS_FILL = "#f1f3f5"  # the sandbox's own exits: grey, apart from the lesson's loop


TOOLTIP_CHARS = 1_000  # a node's hover text: the whole answer is in the console, the cards and the exports


# `typed`: graphviz quotes nohtml("<b>") and "<b>" differently, and a plain cache would take one for the other.
_quoted = functools.lru_cache(maxsize=4096, typed=True)(graphviz.quoting.quote)


class Digraph(graphviz.Digraph):  # type: ignore[misc]  # graphviz ships no types
    """graphviz's Digraph, with the same DOT written faster: the run graph is built again on every Step.

    graphviz quotes every name and value with regular expressions and checks every call's arguments: 7 % of a
    Step's server time in a py-spy profile of Steps under load, 0.73 ms to build a 20-turn run's graph. Here
    the quoting is remembered (most values are the same colours and styles every time) and nodes and edges
    skip the argument checks: 0.20 ms. The DOT is the same, statement for statement (tests/test_graph.py
    builds both and compares).
    """

    _quote = staticmethod(_quoted)
    _quote_edge = staticmethod(functools.lru_cache(maxsize=1024, typed=True)(graphviz.quoting.quote_edge))

    @staticmethod
    def _attr_list(label: str | None = None, kwargs: Mapping[str, str] | None = None,
                   attributes: Mapping[str, str] | Iterable[tuple[str, str]] | None = None) -> str:
        parts = [f"label={_quoted(label)}"] if label is not None else []
        for given in (kwargs, attributes):
            if not given:
                continue
            pairs = given.items() if isinstance(given, Mapping) else given
            if type(given) is dict:  # graphviz sorts a plain dict's items, as older Pythons kept no order
                pairs = sorted(pairs)
            parts += [f"{_quoted(name)}={_quoted(value)}" for name, value in pairs if value is not None]
        return f" [{' '.join(parts)}]" if parts else ""

    # `_attributes: Any`: a caller's **attrs (a dict of str) could name it, as graphviz's own signature allows.
    def node(self, name: str, label: str | None = None, _attributes: Any = None, **attrs: str) -> None:
        self.body.append(self._node(_quoted(name), self._attr_list(label, attrs, _attributes)))

    def edge(self, tail_name: str, head_name: str, label: str | None = None, _attributes: Any = None,
             **attrs: str) -> None:
        self.body.append(self._edge(tail=self._quote_edge(tail_name), head=self._quote_edge(head_name),
                                    attr=self._attr_list(label, attrs, _attributes)))


def _label(*lines: str) -> str:
    """Text for a DOT label: backslashes kept as written, lines broken with DOT's own \\n, never read as HTML."""
    label: str = graphviz.nohtml("\\n".join(line.replace("\\", "\\\\") for line in lines))
    return label


def _node(graph: Digraph, name: str, label: str, kind: str, tooltip: str = "", **attrs: str) -> None:
    fill, line = STYLES[kind]
    dashed = kind in ("next", "failed", "earlier")
    # Square corners on purpose: the browser's renderer samples every curved outline point by point, and
    # rounded boxes made each Step several times slower (bench/page_step.py).
    tooltip = tooltip[:TOOLTIP_CHARS] + ("…" if len(tooltip) > TOOLTIP_CHARS else "")  # a huge answer stays off it
    graph.node(name, label, fillcolor=fill, color=line, tooltip=_label(*tooltip.split("\n")) if tooltip else label,
               style="filled,dashed" if dashed else "filled", **attrs)


def _call_nodes(graph: Digraph, record: TurnRecord, ask: str) -> list[str]:
    names = []
    for i, run in enumerate(record.tool_runs, start=1):
        name = f"call{record.turn}_{i}"
        mark = "✗ " if run.is_error else ""
        label = _label(f"{mark}{run.name} {clip(compact_json(run.input), 34)}", f"→ {clip(run.content, 40)}")
        tooltip = f"{run.name} {compact_json(run.input)} -> {run.content}"
        _node(graph, name, label, "call_error" if run.is_error else "call", tooltip)
        graph.edge(ask, name)
        names.append(name)
    return names


def _outcome_node(graph: Digraph, state: RunState, record: TurnRecord) -> tuple[str, str]:
    kind = record.path if record.path in (TurnPath.ANSWER, TurnPath.LIMIT, TurnPath.BAD_REQUEST) else "stopped"
    title = {TurnPath.ANSWER: "answer", TurnPath.LIMIT: "turn limit", TurnPath.BAD_REQUEST: "bad request",
             TurnPath.NO_REPLY: "no reply"}.get(record.path, "stopped") if record.path else "stopped"
    _node(graph, "outcome", _label(title, clip(state.result or "", 48)), kind, state.result or "", penwidth="2")
    return "outcome", kind


def run_graph(state: RunState, last_turns: int | None = None, next_step: bool = True) -> Digraph:
    """ask -> tool calls -> ask ... -> outcome; with `last_turns`, earlier turns fold into one node.

    `next_step=False` leaves out the dashed node of where the next Step goes: a run looked back at has no
    next Step from there.
    """
    graph = Digraph("run", graph_attr={"rankdir": "TB", "nodesep": "0.25", "ranksep": "0.3",
                                       "bgcolor": "transparent", "fontname": FONT})
    graph.attr("node", shape="box", fontname=FONT, fontsize="13", fontcolor=INK, margin="0.14,0.07", height="0.3")
    graph.attr("edge", fontname=FONT, fontsize="13", color=MUTED, arrowsize="0.6")
    _node(graph, "task", _label("task", clip(state.task, 48)), "task", state.task)
    tails = ["task"]
    first = 1
    if last_turns is not None and state.turn > last_turns:
        first = state.turn - last_turns + 1
        folded = [r for r in state.records if r.counted and r.turn < first]  # one pass: redrawn every Step
        calls = sum(len(r.tool_runs) for r in folded)
        asks = first - 1
        label = _label("turn 1" if asks == 1 else f"turns 1–{asks}",
                       f"{asks} ask{'s' if asks != 1 else ''} · {calls} tool call{'s' if calls != 1 else ''}")
        _node(graph, "earlier", label, "earlier")
        graph.edge("task", "earlier", style="dashed")
        tails = ["earlier"]
    for turn in range(first, state.turn + 2):
        ask = f"ask{turn}"
        for n, attempt in enumerate(failed_attempts(state, turn), start=1):
            name = f"{ask}_failed{n}"
            _node(graph, name, _label(f"ask {turn} failed", clip(attempt.error or "", 40)), "failed",
                  attempt.error or "")
            for tail in tails:
                graph.edge(tail, name)
            tails = [name]
        record = record_of_turn(state, turn)
        if record is None:
            if next_step and not state.done and not state.error:  # where the next Step goes
                _node(graph, ask, _label(f"ask {turn}", "next Step"), "next")
                for tail in tails:
                    graph.edge(tail, ask, style="dashed")
            break
        said = sent_words(record.messages_sent, record.sent, record.thread is not None)
        _node(graph, ask, _label(f"ask {turn}", f"{said[0]} sent", *said[1:]), "ask")
        retried = bool(failed_attempts(state, turn))
        for tail in tails:
            graph.edge(tail, ask, **({"label": "retry"} if retried else {}))
        tails = _call_nodes(graph, record, ask) or [ask]
        if record.path != TurnPath.TOOL_USE:
            name, _ = _outcome_node(graph, state, record)
            for tail in tails:
                graph.edge(tail, name)
            break
    return graph


# The loop's cycle: (name, label, shape). The labels are the loop's own steps.
CYCLE_NODES = [
    ("start", "messages = [task]", "box"),
    ("send", "send all the messages", "box"),
    ("append", "append the whole reply", "box"),
    ("decide", "stop_reason?", "diamond"),
    ("tools", "run every tool call", "box"),
    ("results", "append one user\nmessage of results", "box"),
    ("limit", "turn limit?", "diamond"),
    ("answer", "return the text", "oval"),
    ("stopped", "stopped: <reason>", "oval"),
    ("out_of_turns", "stopped: no answer\nafter N turns", "oval"),
    ("bad_request", "bad request:\nthe run ends", "oval"),
    ("failed", "failed: the next\nStep tries again", "oval"),
    ("no_reply", "no reply left:\nthe run ends", "oval"),
]
# The sandbox's own harness around the loop, not the lesson's `run_agent`: that loop has no handler, so when
# `model.create` raises, the exception leaves run_agent; the sandbox's step catches it, and ends the run or
# keeps it for the next Step. Drawn dashed and grey in a box of its own, so the two cannot be taken for one.
HARNESS = ("bad_request", "failed", "no_reply")
HARNESS_LABEL = "the sandbox, not run_agent\n(run_agent raises here)"
CYCLE_EDGES = [
    ("start", "send", ""),
    ("send", "append", "reply"),
    ("append", "decide", ""),
    ("decide", "answer", "end_turn"),
    ("decide", "tools", "tool_use"),
    ("decide", "stopped", "other"),
    ("tools", "results", ""),
    ("results", "limit", ""),
    ("limit", "send", "next turn"),
    ("limit", "out_of_turns", "reached"),
    ("send", "bad_request", "400"),
    ("send", "failed", "error"),
    ("send", "no_reply", "none"),
]
# The exits stand in a column beside the loop, not in a row under it, so the diagram stays narrow enough
# to read at its own size: (upper, lower) pairs held one above the other by an invisible edge.
STACKED = [("bad_request", "failed"), ("failed", "no_reply"), ("answer", "stopped")]
SPINE = ("send", "append", "decide", "tools", "results", "limit")
# The way each path (a turn record's `TurnPath`) takes round the cycle.
PATHS: dict[TurnPath | None, list[str]] = {
    None: ["start"],
    TurnPath.TOOL_USE: ["send", "append", "decide", "tools", "results", "limit", "send"],
    TurnPath.ANSWER: ["send", "append", "decide", "answer"],
    TurnPath.STOPPED: ["send", "append", "decide", "stopped"],
    TurnPath.LIMIT: ["send", "append", "decide", "tools", "results", "limit", "out_of_turns"],
    TurnPath.BAD_REQUEST: ["send", "bad_request"],
    TurnPath.MODEL_ERROR: ["send", "failed"],
    TurnPath.NO_REPLY: ["send", "no_reply"],
}


def loop_diagram(taken: TurnPath | None) -> Digraph:
    """The loop's cycle with the way of `taken` (a turn record's path, or None before any turn) lit."""
    path = PATHS.get(taken, [])
    lit_edges = set(zip(path, path[1:], strict=False))
    lit_nodes = set(path)
    last = path[-1] if path and taken != TurnPath.TOOL_USE else (path[-2] if path else None)
    graph = Digraph("loop", graph_attr={"rankdir": "TB", "nodesep": "0.3", "ranksep": "0.28",
                                        "bgcolor": "transparent"})
    graph.attr("node", fontname=FONT, fontsize="13", style="filled", height="0.3", margin="0.08,0.03")
    graph.attr("edge", fontname=FONT, fontsize="13", arrowsize="0.6")
    harness = Digraph(name="cluster_sandbox", graph_attr={
        "label": _label(*HARNESS_LABEL.split("\n")), "style": "dashed", "color": QUIET_LINE, "fontcolor": QUIET_INK,
        "fontname": FONT, "fontsize": "13", "labeljust": "l"})
    for name, text, shape in CYCLE_NODES:
        label = _label(*text.split("\n"))
        spine = {"group": "spine"} if name in SPINE else {}  # one group: the loop's own steps in a straight line
        where, style = (harness, "filled,dashed") if name in HARNESS else (graph, "filled")
        if name in lit_nodes:
            fill = LAST_FILL if name == last else LIT_FILL
            where.node(name, label, shape=shape, fillcolor=fill, color=LIT_LINE, fontcolor=INK, penwidth="2",
                       style=style, **spine)
        else:
            where.node(name, label, shape=shape, fillcolor=HARNESS_FILL if name in HARNESS else "#ffffff",
                       color=QUIET_LINE, fontcolor=QUIET_INK, style=style, **spine)
    graph.subgraph(harness)
    for tail, head, label in CYCLE_EDGES:
        lit = (tail, head) in lit_edges
        graph.edge(tail, head, **({"label": label} if label else {}), color=LIT_LINE if lit else QUIET_LINE,
                   fontcolor=INK if lit else QUIET_INK, penwidth="2.2" if lit else "1",
                   style="dashed" if head in HARNESS else "solid")
    for upper, lower in STACKED:
        graph.edge(upper, lower, style="invis")
    return graph
