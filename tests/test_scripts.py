"""Script files: every built-in one loads, and a bad file gets one line naming the file, the reply and the field."""

import json
import re

import pytest

from agent.scripts import (
    Script,
    ScriptError,
    builtin_names,
    load_script,
    parse_script,
    parse_script_text,
    save_script,
)

GOOD_REPLY = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "hi"}]}


def test_there_are_at_least_twelve_builtin_scripts_each_with_title_about_and_task():
    names = builtin_names()
    assert len(names) >= 12
    for name in names:
        script = load_script(name)
        assert script.title and script.about and script.task and script.expected_output, name


def bad(data):
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(ScriptError) as caught:
        parse_script_text(text, source="scripts/x.json")
    return str(caught.value)


def with_block(block):
    return {"replies": [GOOD_REPLY, {"stop_reason": "tool_use", "content": [block]}]}


@pytest.mark.parametrize("data, message", [
    ("{not json", "scripts/x.json: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
                  "(char 1))"),
    ([1, 2], "scripts/x.json: a script is a JSON object"),
    ({"title": "x"}, 'scripts/x.json: a script needs "replies"'),
    ({"replies": []}, "scripts/x.json: replies: replies must be a non-empty list"),
    ({"replies": [GOOD_REPLY], "tittle": "typo"},
     'scripts/x.json: unknown key "tittle" (known: title, about, task, system, tools, max_turns, replies, '
     'expected_output, recorded_requests)'),
    (with_block({"type": "tool_use", "name": "add", "input": {}}),
     'scripts/x.json: replies[1].content[0]: tool_use needs an "id"'),
    (with_block({"type": "tool_use", "id": "t1", "input": {}}),
     'scripts/x.json: replies[1].content[0]: tool_use needs a "name"'),
    (with_block({"type": "tool_use", "id": "t1", "name": "add", "input": "2, 3"}),
     "scripts/x.json: replies[1].content[0].input: tool_use input must be an object"),
    (with_block({"type": "tool_use", "id": "t 1", "name": "add", "input": {}}),
     "scripts/x.json: replies[1].content[0].id: a tool_use id may hold only letters, digits, _ and -"),
    (with_block({"type": "image", "source": {}}),
     'scripts/x.json: replies[1].content[0]: unknown block type "image" (known: text, thinking, '
     'redacted_thinking, tool_use)'),
    ({"replies": [{"stop_reason": 7, "content": []}]},
     "scripts/x.json: replies[0].stop_reason: stop_reason must be a string"),
    ({"replies": [{"content": []}]}, 'scripts/x.json: replies[0]: a reply needs a "stop_reason"'),
    ({"replies": [{"stop_reason": "tool_use", "content": [{"type": "text", "text": "x"}]}]},
     "scripts/x.json: replies[0].content: a tool_use reply needs at least one tool_use block"),
    ({"replies": [GOOD_REPLY], "tools": ["add", "rm"]},
     'scripts/x.json: tools[1]: no tool named "rm" (the tools: add, word_count, upper, read_file, list_files)'),
    ({"replies": [GOOD_REPLY], "max_turns": 0},
     "scripts/x.json: max_turns: max_turns must be a whole number of at least 1"),
    ({"replies": [{"error": {"status": "529", "type": "overloaded_error", "message": "x"}}]},
     'scripts/x.json: replies[0].error: an error entry needs a whole-number "status"'),
    ({"replies": [{"stop_reason": "end_turn", "content": [], "usage": {"input_tokens": "many"}}]},
     "scripts/x.json: replies[0].usage: usage must be an object of whole numbers from 0 to 1,000,000,000,000"),
])
def test_a_bad_script_gets_one_line_naming_where(data, message):
    assert bad(data) == message


def test_a_file_that_is_not_utf8_is_said_so(tmp_path):
    path = tmp_path / "latin.json"
    path.write_bytes(b'{"title": "caf\xe9"}')
    with pytest.raises(ScriptError, match="latin.json: not JSON"):
        load_script(path)


def test_a_missing_file_or_name_lists_the_builtin_scripts():
    with pytest.raises(ScriptError, match=r"no_such: no such file, and no built-in script of that name .*add_then"):
        load_script("no_such")


def test_a_script_saves_and_loads_back(tmp_path):
    script = load_script("two_file_search")
    save_script(script, tmp_path / "copy.json")
    again = load_script(tmp_path / "copy.json")
    assert again.to_dict() == script.to_dict() and again.name == "copy"


def test_defaults_fill_in_what_a_script_leaves_out():
    script = parse_script_text(json.dumps({"replies": [GOOD_REPLY]}), name="bare")
    assert (script.title, script.max_turns, script.tools[0]) == ("bare", 40, "add")


def error_entry(**fields):
    return {"replies": [{"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded", **fields}}]}


STATUSES = "400, 401, 402, 403, 404, 408, 409, 413, 429, 500, 502, 503, 504, 529"


# Every refusal a script file can get, word for word: the line is all a person editing the file sees.
@pytest.mark.parametrize("data, message", [
    (with_block("text"), "scripts/x.json: replies[1].content[0]: a content block must be an object"),
    (with_block({"type": 3}), "scripts/x.json: replies[1].content[0]: a block's type must be a string "
                              "(known: text, thinking, redacted_thinking, tool_use)"),
    (with_block({"type": "é" * 61}), f'scripts/x.json: replies[1].content[0]: unknown block type "{"é" * 60}…" '
                                     "(known: text, thinking, redacted_thinking, tool_use)"),
    (with_block({"type": "tool_use", "id": "t1", "name": "add"}),
     'scripts/x.json: replies[1].content[0]: tool_use needs an "input"'),
    (with_block({"type": "redacted_thinking"}),
     'scripts/x.json: replies[1].content[0]: redacted_thinking needs a "data"'),
    (with_block({"type": "text", "text": 5}), "scripts/x.json: replies[1].content[0].text: text text must be a string"),
    (with_block({"type": "thinking", "thinking": "plan", "signature": 5}),
     "scripts/x.json: replies[1].content[0].signature: thinking signature must be a string"),
    ({"replies": ["hi"]}, "scripts/x.json: replies[0]: a reply must be an object"),
    ({"replies": [{"stop_reason": "end_turn", "content": "hi"}]},
     "scripts/x.json: replies[0].content: content must be a list of blocks"),
    ({"replies": [{"error": "overloaded"}]},
     'scripts/x.json: replies[0].error: an error entry is an object with "status", "type" and "message"'),
    (error_entry(mid_stream="yes"), "scripts/x.json: replies[0].error.mid_stream: mid_stream must be true or false"),
    (error_entry(status=True), 'scripts/x.json: replies[0].error: an error entry needs a whole-number "status"'),
    (error_entry(status=418), f"scripts/x.json: replies[0].error.status: 418 is not a status the API answers errors "
                              f"with (one of {STATUSES}, or 200 with mid_stream)"),
    (error_entry(status=200), f"scripts/x.json: replies[0].error.status: 200 is not a status the API answers errors "
                              f"with (one of {STATUSES}, or 200 with mid_stream)"),
    (error_entry(status=10**11), f"scripts/x.json: replies[0].error.status: 100000000000 is not a status the API "
                                 f"answers errors with (one of {STATUSES}, or 200 with mid_stream)"),
    (error_entry(status=10**12), f"scripts/x.json: replies[0].error.status: a number of 13 digits is not a status the "
                                 f"API answers errors with (one of {STATUSES}, or 200 with mid_stream)"),
    (error_entry(type=None), 'scripts/x.json: replies[0].error: an error entry needs a string "type"'),
    (error_entry(message=7), 'scripts/x.json: replies[0].error: an error entry needs a string "message"'),
    (error_entry(retry_after=-1),
     "scripts/x.json: replies[0].error.retry_after: retry_after must be a number of seconds from 0 to 86400"),
    (error_entry(retry_after=86401),
     "scripts/x.json: replies[0].error.retry_after: retry_after must be a number of seconds from 0 to 86400"),
    (error_entry(retry_after=True),
     "scripts/x.json: replies[0].error.retry_after: retry_after must be a number of seconds from 0 to 86400"),
    (error_entry(retry_after="5"),
     "scripts/x.json: replies[0].error.retry_after: retry_after must be a number of seconds from 0 to 86400"),
    ({"replies": [{"stop_reason": "end_turn", "content": [], "usage": {"input_tokens": True}}]},
     "scripts/x.json: replies[0].usage: usage must be an object of whole numbers from 0 to 1,000,000,000,000"),
    ({"replies": [{"stop_reason": "end_turn", "content": [], "usage": {"input_tokens": 10**12 + 1}}]},
     "scripts/x.json: replies[0].usage: usage must be an object of whole numbers from 0 to 1,000,000,000,000"),
    ({"replies": [{"stop_reason": "end_turn", "content": [], "usage": {"input_tokens": -1}}]},
     "scripts/x.json: replies[0].usage: usage must be an object of whole numbers from 0 to 1,000,000,000,000"),
    ({"replies": [{"stop_reason": "end_turn", "content": [], "usage": [1]}]},
     "scripts/x.json: replies[0].usage: usage must be an object of whole numbers from 0 to 1,000,000,000,000"),
    ({"replies": [GOOD_REPLY], "title": 1}, "scripts/x.json: title: title must be a string"),
    ({"replies": [GOOD_REPLY], "system": ["be brief"]}, "scripts/x.json: system: system must be a string"),
    ({"replies": [GOOD_REPLY], "task": 5}, "scripts/x.json: task: task must be a string"),
    ({"replies": [GOOD_REPLY], "tools": "add"}, "scripts/x.json: tools: tools must be a list of tool names"),
    ({"replies": [GOOD_REPLY], "tools": [["add"]]}, "scripts/x.json: tools[0]: a tool is named by a string"),
    ({"replies": [GOOD_REPLY], "tools": ["x" * 70]},
     f'scripts/x.json: tools[0]: no tool named "{"x" * 60}…" (the tools: add, word_count, upper, read_file, '
     'list_files)'),
    ({"replies": [GOOD_REPLY], "max_turns": True},
     "scripts/x.json: max_turns: max_turns must be a whole number of at least 1"),
    ({"replies": [GOOD_REPLY], "max_turns": "3"},
     "scripts/x.json: max_turns: max_turns must be a whole number of at least 1"),
    ({"replies": [GOOD_REPLY], "expected_output": "done"},
     "scripts/x.json: expected_output: expected_output must be a list of lines"),
    ({"replies": [GOOD_REPLY], "expected_output": ["done", 1]},
     "scripts/x.json: expected_output: expected_output must be a list of lines"),
])
def test_each_refusal_reads_as_one_line_naming_the_field(data, message):
    assert bad(data) == message


@pytest.mark.parametrize("data", [
    with_block({"type": "tool_use", "id": "toolu_a-1", "name": "add", "input": {}}),
    {"replies": [{"stop_reason": "end_turn", "content": [{"type": "thinking", "thinking": "plan", "signature": "s"},
                                                         {"type": "redacted_thinking", "data": "x", "signature": 5}]}]},
    error_entry(status=200, mid_stream=True),
    error_entry(retry_after=86400),
    error_entry(retry_after=0.5),
    {"replies": [{"stop_reason": "end_turn", "content": [], "usage": {"input_tokens": 10**12, "output_tokens": 0}}]},
    {"replies": [GOOD_REPLY], "max_turns": 1, "tools": [], "expected_output": []},
])
def test_the_edges_of_what_a_script_may_hold_load(data):
    assert parse_script_text(json.dumps(data), source="scripts/x.json").replies == data["replies"]


def test_a_script_that_says_little_plays_with_the_defaults_and_saves_them():
    script = parse_script_text(json.dumps({"replies": [GOOD_REPLY], "title": "", "task": ""}), name="bare")
    assert (script.title, script.about, script.task, script.system, script.tools, script.max_turns,
            script.expected_output) == ("bare", "", "Use the tools to help with the task.", "",
                                        ["add", "word_count", "upper", "read_file", "list_files"], 40, None)
    assert "expected_output" not in script.to_dict()
    assert Script([GOOD_REPLY], name="n").to_dict()["title"] == "n"
    assert parse_script({"replies": [GOOD_REPLY]}).title == "script"  # a script built from data names itself so


def test_a_saved_script_is_indented_for_a_person_to_edit(tmp_path):
    save_script(parse_script_text(json.dumps({"replies": [GOOD_REPLY], "title": "Hi"})), tmp_path / "s.json")
    text = (tmp_path / "s.json").read_text()
    assert text.startswith('{\n  "title": "Hi",\n  "about": ""') and text.endswith("}\n")


def test_a_script_parsed_elsewhere_is_held_to_the_same_limits_in_words_naming_it():
    with pytest.raises(ScriptError, match="^page upload: nan is not a JSON number$"):
        parse_script({"replies": [GOOD_REPLY], "about": float("nan")}, source="page upload")


def test_a_missing_script_lists_every_builtin_one():
    with pytest.raises(ScriptError) as caught:
        load_script("no_such")
    assert str(caught.value).endswith(f"(the built-in scripts: {', '.join(builtin_names())})")


NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def test_a_title_that_counts_turns_counts_the_turns_the_run_takes():
    for name in builtin_names():
        script = load_script(name)
        said = re.findall(r"\b(\w+) turns\b", script.title)
        sent = next(line for line in script.expected_output if line.startswith("messages sent each turn:"))
        turns = len(sent.split(":", 1)[1].split(","))
        for word in said:
            assert NUMBER_WORDS[word.lower()] == turns, (name, script.title, turns)
