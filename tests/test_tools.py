"""The built-in tools and run_tool: results, the allowlist, bad input, failing tools."""

import time

import pytest

from agent.tools import NOTES, TOOLS, call_tool, run_tool, tool_schemas

ALL = list(TOOLS)


def use(name, tool_input, tool_id="toolu_1"):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


@pytest.mark.parametrize("name, tool_input, content", [
    ("add", {"a": 2, "b": 3}, "5"),
    ("add", {"a": 1.5, "b": 2}, "3.5"),
    ("add", {"a": 2.5, "b": 2.5}, "5"),
    ("word_count", {"text": "the loop  is\nsmall"}, "4"),
    ("word_count", {"text": ""}, "0"),
    ("upper", {"text": "hello"}, "HELLO"),
    ("list_files", {}, "notes.txt\ntodo.txt"),
    ("read_file", {"path": "todo.txt"}, NOTES["todo.txt"]),
])
def test_each_tool_answers(name, tool_input, content):
    assert run_tool(use(name, tool_input), ALL) == {"type": "tool_result", "tool_use_id": "toolu_1",
                                                    "content": content}


def test_one_note_mentions_omid_and_one_does_not():
    assert "Omid" in NOTES["todo.txt"] and "Omid" not in NOTES["notes.txt"]


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "notes.txt/..", "missing.txt", ""])
def test_read_file_never_leaves_its_notes(path):
    block = run_tool(use("read_file", {"path": path}), ALL)
    assert block["is_error"] is True
    assert block["content"].startswith("error: no file named")


def test_a_tool_not_given_to_this_agent_is_an_error_result():
    block = run_tool(use("read_file", {"path": "notes.txt"}), ["add", "word_count"])
    assert block == {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                     "content": "error: read_file is not available to this agent (its tools: add, word_count)"}


def test_an_unknown_tool_is_an_error_result():
    block = run_tool(use("rm", {"path": "/"}), ALL)
    assert block["is_error"] and block["content"] == 'error: there is no tool named "rm"'


@pytest.mark.parametrize("tool_input, content", [
    ({"a": "two", "b": 3}, 'error: add needs "a" to be a number, got "two"'),
    ({"a": True, "b": 3}, 'error: add needs "a" to be a number, got true'),
    ({"a": 2}, 'error: add needs "b"'),
    ({"a": 2, "b": 3, "c": 4}, 'error: add has no field "c" (it takes a, b)'),
    ([2, 3], "error: add takes an object, got [2, 3]"),
])
def test_input_that_does_not_fit_the_schema_names_the_field(tool_input, content):
    block = run_tool(use("add", tool_input), ALL)
    assert block["is_error"] and block["content"] == content


@pytest.mark.parametrize("name, tool_input, content", [
    ("upper", {"text": 5}, 'error: upper needs "text" to be a string, got 5'),
    ("word_count", {"text": ["a", "b"]}, 'error: word_count needs "text" to be a string, got ["a", "b"]'),
    ("read_file", {"path": None}, 'error: read_file needs "path" to be a string, got null'),
])
def test_a_text_field_given_something_else_names_the_field_and_what_came(name, tool_input, content):
    block = run_tool(use(name, tool_input), ALL)
    assert block["is_error"] and block["content"] == content


def test_an_exception_inside_a_tool_is_an_error_result_with_its_message(monkeypatch):
    def explode(text):
        raise RuntimeError("the disk is on fire")
    monkeypatch.setitem(TOOLS, "upper", TOOLS["upper"].__class__("upper", "", TOOLS["upper"].input_schema, explode))
    block = run_tool(use("upper", {"text": "x"}), ALL)
    assert block == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "error: the disk is on fire",
                     "is_error": True}


def test_schemas_are_what_the_api_wants():
    schemas = tool_schemas(["add", "word_count"])
    assert [s["name"] for s in schemas] == ["add", "word_count"]
    assert schemas[0]["input_schema"] == {"type": "object", "properties": {"a": {"type": "number"},
                                          "b": {"type": "number"}}, "required": ["a", "b"],
                                          "additionalProperties": False}


def test_the_schema_the_model_is_given_names_each_field_and_its_type():
    assert tool_schemas(["add"]) == [{
        "name": "add", "description": "Add two numbers and return their sum.",
        "input_schema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                         "required": ["a", "b"], "additionalProperties": False}}]


def test_a_file_that_is_not_there_is_answered_with_the_names_of_those_that_are():
    answer = run_tool({"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "x.txt"}},
                      ["read_file"])
    assert answer["content"] == "error: no file named 'x.txt'; the files are notes.txt, todo.txt"


def test_a_field_given_to_a_tool_that_takes_none_says_so():
    block = run_tool(use("list_files", {"path": "notes.txt"}), ALL)
    assert block["is_error"] and block["content"] == 'error: list_files has no field "path" (it takes nothing)'


def test_a_tool_name_that_is_not_a_string_is_no_tool():
    block = run_tool(use(["add"], {"a": 2, "b": 3}), ALL)
    assert block["is_error"] and block["content"] == 'error: there is no tool named ["add"]'


def test_a_call_is_timed():
    started = time.perf_counter()
    run = call_tool(use("add", {"a": 2, "b": 3}), ALL)
    assert 0 <= run.seconds <= time.perf_counter() - started
