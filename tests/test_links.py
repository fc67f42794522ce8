"""Links into any state: a screen as a URL's query and back, and a stranger's link read without a crash."""

import base64
import json
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from agent.page.links import MAX_ACTIONS, Link, from_query, to_query
from agent.scripts import builtin_names
from agent.tools import TOOLS

SCRIPTS, TOOL_NAMES = builtin_names(), list(TOOLS)


def test_a_screen_survives_the_round_trip_through_its_query():
    link = Link(model="Script", script="three_tool_chain", task="Sum it, é", settings={
        "tools": ["add", "upper"], "max_turns": 7, "threads": True, "system": "Be brief."},
        actions=[["run"], ["fork", 1], ["edit_result", 0, "35", False], ["step"], ["switch", "main"],
                 ["edit_reply", "end_turn", [{"type": "text", "text": "hi"}]], ["fault", "cut_off", ""],
                 ["hand", "tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 1, "b": 2}}]]],
        turn=2, view="Messages")
    assert from_query(to_query(link), SCRIPTS, TOOL_NAMES) == link


def test_a_fresh_page_s_link_is_short():
    assert to_query(Link(model="Toy", task="What is 2 + 3?")) == {"model": "toy", "task": "What is 2 + 3?"}
    assert from_query({}, SCRIPTS, TOOL_NAMES) == Link()


def test_each_unusable_part_is_left_out_and_said_in_words():
    link = from_query({"model": "gpt", "script": "nope", "tools": "add,rm", "max_turns": "-3", "threads": "yes",
                       "turn": "two", "view": "graph", "colour": "red", "embed": "true"}, SCRIPTS, TOOL_NAMES)
    assert link == Link(settings={"tools": ["add"]}, problems=[
        "the model “gpt” is not one of script, toy, real", "there is no built-in script “nope”", "no tool called rm",
        "max_turns “-3” is not a whole number above 0", "threads “yes” is neither true nor false",
        "the turn “two” is not a number", "the view “graph” is not one of run, loop, messages, export",
        "the link's colour is not read by this page"])
    superscript = from_query({"turn": "¹", "max_turns": "²"}, SCRIPTS, TOOL_NAMES)  # digits to isdigit(), not int()
    assert superscript.turn is None and superscript.problems == ["max_turns “²” is not a whole number above 0",
                                                                 "the turn “¹” is not a number"]


def packed(actions) -> str:
    return base64.urlsafe_b64encode(zlib.compress(json.dumps(actions).encode())).decode()


def test_actions_that_cannot_be_replayed_are_dropped_whole():
    for actions, said in ((["step"], "the link's action 1 is not one this page knows"),
                          ([["step"], ["fork", "1"]], "the link's action 2 is not one this page knows"),
                          ([["step"], ["rm", "-rf"]], "the link's action 2 is not one this page knows"),
                          ([["step"], ["hand", "end_turn", [1]]], "the link's action 2 is not one this page knows"),
                          ([["step"]] * (MAX_ACTIONS + 1), f"at most {MAX_ACTIONS} are replayed"),
                          ({"step": 1}, "the link's actions could not be read")):
        link = from_query({"actions": packed(actions)}, SCRIPTS, TOOL_NAMES)
        assert link.actions == [] and said in link.problems[0], (actions, link.problems)
    bomb = base64.urlsafe_b64encode(zlib.compress(b"[" * 10_000_000)).decode()
    assert from_query({"actions": bomb}, SCRIPTS, TOOL_NAMES).problems == [
        "the link's actions could not be read, so the run starts afresh"]
    assert from_query({"actions": "%%%"}, SCRIPTS, TOOL_NAMES).problems == [
        "the link's actions could not be read, so the run starts afresh"]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["model", "script", "task", "tools", "max_turns", "max_tokens", "system",
                                        "threads", "actions", "turn", "view", "x"]),
                       st.text(max_size=30) | st.lists(st.text(max_size=10), max_size=3)))
def test_any_query_reads_without_a_crash(query):
    link = from_query(query, SCRIPTS, TOOL_NAMES)
    assert all(isinstance(p, str) and p for p in link.problems)
