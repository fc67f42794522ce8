"""The run graph and the loop diagram, read as DOT."""

import re
import warnings

import graphviz
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.page.graph import CYCLE_NODES, HARNESS, PATHS, Digraph, loop_diagram, run_graph
from agent.scripts import builtin_names, load_script
from helpers import fake_run, reply, text, tool_use


def scripted(name: str, steps: int | None = None) -> RunState:
    script = load_script(name)
    state = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    model = FakeModel(script)
    for _ in range(steps if steps is not None else 10_000):
        if state.done:
            break
        step(state, model)
    return state


def nodes(dot: str) -> dict[str, str]:
    """Node name -> its attribute text."""
    found = dict(re.findall(r"^\t+(\w+) \[(.*)\]$", dot, flags=re.M))  # a cluster's own nodes: one tab more
    return {name: attrs for name, attrs in found.items() if name not in ("graph", "node", "edge")}


def edges(dot: str) -> set[tuple[str, str]]:
    return set(re.findall(r"^\t(\w+) -> (\w+)", dot, flags=re.M))


def label(attrs: str) -> str:
    return re.search(r'label="((?:[^"\\]|\\.)*)"|label=(\S+)', attrs).group(1) or ""


def test_the_reference_run_reads_ask_call_ask_answer():
    dot = run_graph(scripted("add_then_answer")).source
    assert edges(dot) == {("task", "ask1"), ("ask1", "call1_1"), ("call1_1", "ask2"), ("ask2", "outcome")}
    found = nodes(dot)
    assert label(found["call1_1"]) == 'add {\\"a\\": 2, \\"b\\": 3}\\n→ 5'
    assert label(found["ask2"]) == "ask 2\\n3 messages sent"
    assert label(found["outcome"]) == "answer\\n2 + 3 is 5."
    assert "#2f9e44" in found["outcome"]  # an answer is green


def test_before_the_first_step_the_graph_shows_where_the_next_step_goes():
    dot = run_graph(scripted("add_then_answer", steps=0)).source
    assert edges(dot) == {("task", "ask1")}
    assert "next Step" in nodes(dot)["ask1"] and "dashed" in nodes(dot)["ask1"]


def test_two_calls_of_one_reply_both_lead_to_the_next_ask():
    dot = run_graph(scripted("two_calls_one_reply")).source
    assert {("ask1", "call1_1"), ("ask1", "call1_2"), ("call1_1", "ask2"), ("call1_2", "ask2")} <= edges(dot)


def test_a_failed_call_is_marked():
    found = nodes(run_graph(scripted("failing_tool")).source)
    assert label(found["call1_1"]).startswith("✗ read_file")
    assert "#e03131" in found["call1_1"]
    assert "✗" not in label(found["call2_1"])


def test_a_failed_attempt_shows_and_the_retry_follows_it():
    two = run_graph(scripted("overloaded_529", steps=2)).source
    assert ("call1_1", "ask2_failed1") in edges(two)
    assert "529 overloaded_error" in label(nodes(two)["ask2_failed1"])
    assert "ask2" not in nodes(two)  # while it is failing, there is no "next Step" promise either
    three = run_graph(scripted("overloaded_529", steps=3)).source
    assert re.search(r"^\task2_failed1 -> ask2 \[label=retry\]", three, flags=re.M)


@pytest.mark.parametrize("name, title", [("runaway", "turn limit"), ("cut_off_reply", "stopped"),
                                         ("refusal", "stopped")])
def test_every_ending_has_its_own_outcome_node(name, title):
    found = nodes(run_graph(scripted(name)).source)
    assert label(found["outcome"]).startswith(title + "\\n")


def test_a_bad_request_ends_the_graph_in_red():
    state, model = fake_run(reply("tool_use", tool_use("toolu_01")), reply("tool_use", tool_use("toolu_01")),
                            reply("end_turn", text("done")))
    run_to_end(state, model)
    found = nodes(run_graph(state).source)
    assert label(found["outcome"]).startswith("bad request\\n")
    assert "#e03131" in found["outcome"]


def test_each_step_only_adds_to_the_graph():
    """What was drawn stays drawn, with the same names and labels: the picture never jumps around."""
    script = load_script("three_tool_chain")
    state, model = RunState(script.task, tool_names=script.tools), FakeModel(script)
    before = run_graph(state).source
    while not state.done:
        step(state, model)
        after = run_graph(state).source
        kept = [line for line in before.splitlines() if "next Step" not in line and "style=dashed" not in line]
        assert all(line in after.splitlines() for line in kept)
        before = after


def test_a_long_run_folds_its_earlier_turns_into_one_node():
    state = scripted("runaway", steps=10)
    dot = run_graph(state, last_turns=3).source
    found = nodes(dot)
    assert label(found["earlier"]) == "turns 1–7\\n7 asks · 7 tool calls"
    assert ("task", "earlier") in edges(dot) and ("earlier", "ask8") in edges(dot)
    assert not any(f"ask{n}" in found for n in range(1, 8))
    assert {"ask8", "ask9", "ask10", "ask11"} <= set(found)
    assert len(run_graph(scripted("runaway"), last_turns=3).source) < 2 * len(dot)  # the drawing stays small
    assert "earlier" not in nodes(run_graph(state).source)


def test_text_from_the_run_cannot_break_the_dot():
    state = RunState('say "hi" \\ then <b>stop</b>', tool_names=["add"])
    dot = run_graph(state).source
    assert 'label="task\\nsay \\"hi\\" \\\\ then <b>stop</b>"' in dot


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_script_draws(name):
    dot = run_graph(scripted(name)).source
    assert dot.startswith("digraph run {") and "task" in nodes(dot)
    assert all(line.startswith(("\t", "digraph", "}")) for line in dot.splitlines())  # no raw line breaks


@pytest.mark.parametrize("branch", list(PATHS))
def test_the_loop_diagram_lights_the_path_of_the_branch(branch):
    dot = loop_diagram(branch).source
    found = nodes(dot)
    lit = {name for name, attrs in found.items() if "#f08c00" in attrs}
    assert lit == set(PATHS[branch])
    assert set(found) == {name for name, _, _ in CYCLE_NODES}
    lit_edges = {(a, b) for a, b in re.findall(r"^\t(\w+) -> (\w+) \[.*#f08c00", dot, flags=re.M)}
    assert lit_edges == set(zip(PATHS[branch], PATHS[branch][1:], strict=False))


def test_the_step_that_happened_last_is_the_brightest():
    answer = nodes(loop_diagram("answer").source)
    assert "#ffd43b" in answer["answer"] and "#ffd43b" not in answer["decide"]
    tool_use_turn = nodes(loop_diagram("tool_use").source)
    assert "#ffd43b" in tool_use_turn["limit"]  # the turn ended at the limit check, on its way back to send


def test_one_folded_turn_is_said_in_the_singular():
    found = nodes(run_graph(scripted("runaway", steps=4), last_turns=3).source)
    assert label(found["earlier"]) == "turn 1\\n1 ask · 1 tool call"


def test_a_run_looked_back_at_has_no_next_step_node():
    state = scripted("add_then_answer", steps=1)
    assert "next Step" in run_graph(state).source
    assert "next Step" not in run_graph(state, next_step=False).source


def test_a_script_that_ran_out_ends_the_graph_and_lights_its_own_path():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")))
    run_to_end(state, model)
    assert label(nodes(run_graph(state).source)["outcome"]).startswith("no reply\\n")
    diagram = loop_diagram("no_reply").source
    assert 'no_reply [label="no reply left:\\nthe run ends"' in diagram and 'color="#f08c00"' in diagram


@pytest.mark.parametrize("branch", list(PATHS))
def test_the_sandbox_s_own_exits_are_drawn_apart_from_run_agent_s_paths(branch):
    """run_agent has no handler: a call that raises leaves it. Each path that leaves `send` without a reply is
    the sandbox's, drawn dashed grey in a box labelled so; every other node and arrow is the lesson's loop."""
    dot = loop_diagram(branch).source
    cluster = re.search(r"^\tsubgraph cluster_sandbox \{\n(.*?)^\t\}$", dot, flags=re.M | re.S).group(1)
    assert 'label="the sandbox, not run_agent\\n(run_agent raises here)"' in cluster and "style=dashed" in cluster
    inside = set(re.findall(r"^\t\t(\w+) \[", cluster, flags=re.M)) - {"graph", "node", "edge"}
    without_a_reply = {path[-1] for path in PATHS.values() if len(path) == 2 and path[0] == "send"}
    assert inside == set(HARNESS) == without_a_reply == {"bad_request", "failed", "no_reply"}
    found = nodes(dot)
    for name in found:
        assert ('style="filled,dashed"' in found[name]) == (name in HARNESS), name
        if name in HARNESS and name not in PATHS[branch]:
            assert 'color="#9aa5b1"' in found[name] and 'fillcolor="#f1f3f5"' in found[name]
    for tail, head, attrs in re.findall(r"^\t(\w+) -> (\w+) \[(.*)\]$", dot, flags=re.M):
        if "invis" not in attrs:
            assert ("style=dashed" in attrs) == (head in HARNESS), (tail, head)


def test_the_parts_of_the_cycle_not_taken_are_drawn_dark_enough_to_read():
    from agent.page.graph import QUIET_INK
    diagram = loop_diagram("answer").source
    assert f'fontcolor="{QUIET_INK}"' in diagram and "#7b8794" not in diagram


# ---------------------------------------------------------------- the faster Digraph writes graphviz's own DOT

_text = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["<b>x</b>", "a\\", 'say "hi"', "node", "edge", "-1.5", "", "a:b", "a:b:n", "fill,dashed"])
_value = _text | _text.map(graphviz.nohtml)
_attrs = st.dictionaries(st.sampled_from(["color", "label_", "style", "tooltip", "x y", "penwidth"]),
                         _value | st.none(), max_size=4)
_statement = st.one_of(
    st.tuples(st.just("node"), _text, _value | st.none(), _attrs),
    st.tuples(st.just("edge"), _text, _text, _value | st.none(), _attrs),
    st.tuples(st.just("attr"), st.sampled_from(["node", "edge", "graph"]), _attrs))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_statement, max_size=12), _attrs)
@example([("node", "a", "<b>x</b>", {}), ("node", "b", graphviz.nohtml("<b>x</b>"), {})], {})  # one text, two types
def test_the_faster_digraph_writes_what_graphviz_writes(statements, graph_attr):
    """Every call the pictures make, on both classes: the DOT must be the same, line for line, so a change in
    graphviz's quoting that the faster class does not follow fails here, not on a learner's screen."""
    ours, theirs = Digraph("g", graph_attr=graph_attr), graphviz.Digraph("g", graph_attr=graph_attr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", graphviz.DotSyntaxWarning)  # a trailing backslash: both warn, ours once
        for kind, *args in statements:
            for graph in (ours, theirs):
                if kind == "node":
                    name, label, attrs = args
                    graph.node(name, label, **attrs)
                elif kind == "edge":
                    tail, head, label, attrs = args
                    graph.edge(tail, head, label, **attrs)
                else:
                    graph.attr(args[0], **args[1])
        assert ours.source == theirs.source


def test_the_pages_graphs_are_the_faster_digraph():
    run, _ = fake_run(reply("end_turn", text("done")))
    assert type(run_graph(run)) is Digraph and type(loop_diagram(None)) is Digraph
