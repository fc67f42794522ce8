"""The toy on the lesson's own question and its family: which of the note files mentions a word, read with the
tools, said from what `read_file` gave; how many lines a file has, declined (no tool counts lines)."""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toy_rules import assert_keeps_the_toys_rules, declines, ran

from agent.__main__ import main
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.models.toy import CAN_DO, ToyModel
from agent.real import record_script
from agent.summary import console_lines
from agent.tools import NOTES, tool_schemas

LESSON_QUESTION = "Which of notes.txt and todo.txt mentions Omid?"
OMID_LINE = NOTES["todo.txt"].splitlines()[0]


def calls(state: RunState) -> list[list[tuple[str, object]]]:
    return [[(run.name, run.input) for run in r.tool_runs] for r in state.records if r.tool_runs]


def test_the_lessons_question_reads_both_files_in_one_reply_then_names_the_one_that_mentions_omid():
    state = ran(LESSON_QUESTION)
    assert_keeps_the_toys_rules(state)
    first = state.records[0].reply
    assert first["stop_reason"] == "tool_use" and [b["type"] for b in first["content"]] == ["tool_use", "tool_use"]
    assert [b["input"] for b in first["content"]] == [{"path": "notes.txt"}, {"path": "todo.txt"}]
    assert len({b["id"] for b in first["content"]}) == 2 and first["id"].startswith("msg_")
    assert [r.reply["stop_reason"] for r in state.records] == ["tool_use", "end_turn"]
    assert state.result == f"todo.txt mentions Omid: “{OMID_LINE}” notes.txt does not."
    assert not declines(state.result)


def test_the_lessons_question_on_the_command_line_prints_both_reads_in_turn_one(capsys):
    assert main(["toy", LESSON_QUESTION]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" {")[0] for line in out if line.startswith("turn ")] == ["turn 1: read_file"] * 2
    assert f"result: todo.txt mentions Omid: “{OMID_LINE}” notes.txt does not." in out


@pytest.mark.parametrize("task, expected_calls, result", [
    ("Which file mentions Omid?", [[("list_files", {})], [("read_file", {"path": "notes.txt"}),
                                                          ("read_file", {"path": "todo.txt"})]],
     f"todo.txt mentions Omid: “{OMID_LINE}” notes.txt does not."),
    ("which of my notes mention the plumber", [[("list_files", {})], [("read_file", {"path": "notes.txt"}),
                                                                      ("read_file", {"path": "todo.txt"})]],
     "notes.txt mentions the plumber: “Call the plumber about the kitchen tap.” todo.txt does not."),
    ("Does todo.txt mention Omid?", [[("read_file", {"path": "todo.txt"})]],
     f"Yes: todo.txt mentions Omid: “{OMID_LINE}”"),
    ("does notes.txt mention omid", [[("read_file", {"path": "notes.txt"})]], "No: notes.txt does not mention omid."),
    ("Does todo.txt say Tuesday?", [[("read_file", {"path": "todo.txt"})]],
     f"Yes: todo.txt mentions Tuesday: “{OMID_LINE}”"),
    ("Does my todo list mention lemons?", [[("list_files", {})], [("read_file", {"path": "todo.txt"})]],
     "No: todo.txt does not mention lemons."),
    ("Which of notes.txt and todo.txt mentions Leila?", [[("read_file", {"path": "notes.txt"}),
                                                          ("read_file", {"path": "todo.txt"})]],
     "Neither notes.txt nor todo.txt mentions Leila."),
    ("Which files mention 'the'?", [[("list_files", {})], [("read_file", {"path": "notes.txt"}),
                                                           ("read_file", {"path": "todo.txt"})]],
     "notes.txt mentions the: “Call the plumber about the kitchen tap.” todo.txt mentions the: "
     f"“{OMID_LINE}”"),
])
def test_which_file_mentions_a_word_is_read_with_the_tools_and_said_from_what_they_gave(task, expected_calls, result):
    state = ran(task)
    assert_keeps_the_toys_rules(state)
    assert calls(state) == expected_calls
    assert state.result == result


def test_the_answer_follows_the_files_as_read_not_the_files_the_toy_knows():
    model, tools = ToyModel(), tool_schemas(["read_file", "list_files"])
    messages = [{"role": "user", "content": LESSON_QUESTION}]
    reply = model.create(messages, tools=tools)
    edited = {"notes.txt": "Lunch with Omid on Friday.", "todo.txt": "Nothing to do."}  # results changed by hand
    results = [{"type": "tool_result", "tool_use_id": b["id"], "content": edited[b["input"]["path"]]}
               for b in reply["content"] if b["type"] == "tool_use"]
    messages += [{"role": "assistant", "content": reply["content"]}, {"role": "user", "content": results}]
    answer = model.create(messages, tools=tools)
    assert answer["stop_reason"] == "end_turn"
    assert answer["content"] == [{"type": "text", "text": "notes.txt mentions Omid: “Lunch with Omid on Friday.” "
                                                          "todo.txt does not."}]


def test_the_lessons_question_records_into_a_script_that_replays_it():
    state = ran(LESSON_QUESTION)
    script = record_script(state)
    replay = RunState(script.task, tool_names=script.tools)
    run_to_end(replay, FakeModel(script))
    assert console_lines(replay) == console_lines(state) == script.expected_output
    assert json.loads(json.dumps(script.replies)) == script.replies


@pytest.mark.parametrize("task", ["how many lines are in notes.txt", "How many lines does my todo list have?",
                                  "count the lines in todo.txt"])
def test_how_many_lines_is_declined_saying_what_it_can_do_with_no_call_and_no_number(task):
    state = ran(task)
    assert_keeps_the_toys_rules(state)
    assert calls(state) == []
    assert declines(state.result) == ["I cannot count lines: no tool here counts them, and I say only what a tool "
                                      "worked out. I can show a file's lines or count its words."]
    assert state.result.endswith(CAN_DO)


@pytest.mark.parametrize("task", ["which file mentions Omid and Leila?", "Does todo.txt mention notes.txt?",
                                  "Which file mentions Omid first?", "delete the file that mentions Omid",
                                  "Does todo.txt mention '" + "x" * 60 + "'?"])
def test_a_mention_question_it_cannot_read_whole_is_declined_not_guessed(task):
    state = ran(task)
    assert_keeps_the_toys_rules(state)
    assert calls(state) == [] and declines(state.result) and state.result.endswith(CAN_DO)


def test_without_read_file_it_says_it_would_use_it():
    state = ran(LESSON_QUESTION, tool_names=["add"])
    assert calls(state) == []
    assert state.result.startswith("I would use the `read_file` tool for this, but this agent was not given it.")


WORDS_IN_FILES = sorted({w.strip(".,'") for text in NOTES.values() for w in text.split()} - {""})


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.sampled_from(WORDS_IN_FILES), st.from_regex(r"[A-Za-z]{1,8}", fullmatch=True)),
       st.sampled_from(["Which of notes.txt and todo.txt mentions {}?", "Which file mentions {}?",
                        "Does todo.txt mention {}?", "Which of my notes mention '{}'"]))
def test_over_words_the_files_said_to_mention_one_are_exactly_those_whose_text_holds_it(word, phrasing):
    state = ran(phrasing.format(word))
    assert_keeps_the_toys_rules(state)
    if declines(state.result):  # a word it reads as pointing ("what", "it") rather than one to look for
        assert calls(state) == []
        return
    read = [run.input["path"] for record in state.records for run in record.tool_runs if run.name == "read_file"]
    for name in read:
        holds = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", NOTES[name], re.IGNORECASE) is not None
        assert (f"{name} mentions {word}:" in state.result) == holds, (phrasing, word, state.result)
