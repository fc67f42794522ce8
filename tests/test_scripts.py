"""Script files: every built-in one loads, and a bad file gets one line naming the file, the reply and the field."""

import json

import pytest

from agent.scripts import ScriptError, builtin_names, load_script, parse_script_text, save_script

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
     'expected_output)'),
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
