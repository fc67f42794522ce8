"""The ToyModel: a few patterns that read the task, replying in the Messages API's shape, checked like any model."""

import json
import os
import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_rules import add_gives_exactly, assert_keeps_the_toys_rules

from agent.api.requests import RequestChecker, RequestRejected
from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.models.toy import CAN_DO, EXAMPLE_TASKS, TOY_MODEL_NAME, ToyModel
from agent.real import record_script
from agent.scripts import load_script
from agent.summary import console_lines
from agent.tools import NOTES, TOOLS, tool_schemas


def ran(task: str, **settings) -> RunState:
    state = RunState(task, **settings)
    run_to_end(state, ToyModel())
    return state


def calls(state: RunState) -> list[list[tuple[str, object]]]:
    return [[(run.name, run.input) for run in r.tool_runs] for r in state.records if r.tool_runs]


def test_a_sum_is_one_add_call_then_the_answer():
    state = ran("What is 10 + 20?")
    assert calls(state) == [[("add", {"a": 10, "b": 20})]]
    assert state.result == "10 + 20 is 30."


def test_several_numbers_are_a_chain_of_calls_each_on_the_last_result():
    state = ran("Add 1, 2 and 3 please, then 4")
    assert calls(state) == [[("add", {"a": 1, "b": 2})], [("add", {"a": 3, "b": 3})], [("add", {"a": 6, "b": 4})]]
    assert state.result == "1 + 2 + 3 + 4 is 10."


def test_separate_sums_are_parallel_calls_in_one_reply():
    state = ran("What is 2 + 3 and 7 + 8?")
    assert calls(state) == [[("add", {"a": 2, "b": 3}), ("add", {"a": 7, "b": 8})]]
    assert state.result == "2 + 3 is 5; 7 + 8 is 15."
    assert [len(r.tool_runs) for r in state.records] == [2, 0]


def test_words_files_and_shouting():
    assert calls(ran("How many words are in 'the cat sat down'?")) == [[("word_count", {"text": "the cat sat down"})]]
    files = ran("What is in my notes?")
    assert calls(files) == [[("list_files", {})], [("read_file", {"path": "notes.txt"})]]
    assert files.result == "notes.txt says:\n" + NOTES["notes.txt"]
    assert files.records[1].reply["content"][0] == {"type": "text", "text": "There are 2 files; I read notes.txt."}
    assert calls(ran("Shout good morning")) == [[("upper", {"text": "good morning"})]]
    assert ran("Shout good morning").result == "GOOD MORNING"


def test_a_new_line_ends_a_request_and_the_word_newline_does_not():
    state = ran("What is 2 + 3\nShout the word newline and more")
    assert state.result == "2 + 3 is 5.\nNEWLINE AND MORE"


def test_anything_else_is_a_polite_answer_saying_what_it_can_do():
    state = ran("Write me a poem about the sea")
    assert state.result == CAN_DO and "not a language model" in CAN_DO
    assert state.records[0].reply["stop_reason"] == "end_turn"


def test_a_tool_it_was_not_given_is_said_not_called():
    state = ran("What is 2 + 3?", tool_names=["upper"])
    assert calls(state) == []
    assert state.result == f"I would use the `add` tool for 2 + 3, but this agent was not given it.\n{CAN_DO}"


def test_replies_have_the_api_shape_ids_usage_and_stop_reasons():
    state = ran("What is 2 + 3?")
    first, last = (r.reply for r in state.records)
    assert set(first) == {"id", "type", "model", "role", "content", "stop_reason", "stop_sequence", "usage"}
    assert first["type"] == "message" and first["role"] == "assistant" and first["model"] == TOY_MODEL_NAME
    assert first["stop_reason"] == "tool_use" and last["stop_reason"] == "end_turn"
    call = next(b for b in first["content"] if b["type"] == "tool_use")
    assert call["id"].startswith("toolu_") and first["id"].startswith("msg_")
    assert first["usage"]["input_tokens"] > 0 and first["usage"]["output_tokens"] > 0
    assert last["usage"]["input_tokens"] > first["usage"]["input_tokens"]  # the conversation grew
    assert ran("What is 2 + 3?").records[0].reply == first  # the same run, the same ids
    # Each reply's ids count the turn they came in.
    assert first["id"].startswith("msg_toy01") and call["id"].startswith("toolu_toy011")
    assert last["id"].startswith("msg_toy02")


@pytest.mark.parametrize("task, max_tokens, cut", [
    ("Shout good morning everyone", 3, ("upper", {"text": "go"})),  # 12 characters: {"text": "go
    ("Shout good morning everyone", 2, ("upper", {})),  # 8 characters: {"text":  (the field not yet begun)
    ("What is 10 + 5?", 2, ("add", {"a": 10})),  # 8 characters: {"a": 10  (a whole field, just)
    ("What is 10 + 5?", 1, ("add", {})),  # 4 characters: {"a"
    ("What is 10 + 20?", 4, ("add", {"a": 10})),  # 16 characters: {"a": 10, "b": 2  (the number cut: left out)
    ("What is 10 + 5?", 4, ("add", {"a": 10, "b": 5})),  # 16 characters: all but the closing brace
])
def test_max_tokens_cuts_a_tool_call_off_inside_it_as_the_api_does(task, max_tokens, cut):
    state = ran(task, max_tokens=max_tokens)
    reply = state.records[0].reply
    assert state.result == "stopped: max_tokens" and state.records[0].tool_runs == []
    # the call is there, its input as far as the characters the tokens allow got
    assert [(b["type"], b["name"], b["input"]) for b in reply["content"]] == [("tool_use", *cut)]
    assert (reply["stop_reason"], reply["usage"]["output_tokens"]) == ("max_tokens", max_tokens)


def test_a_bad_request_is_refused_in_the_apis_words():
    model = ToyModel()
    with pytest.raises(Exception, match="roles must alternate|must alternate|first message") as refused:
        model.create([{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}], max_tokens=10)
    assert refused.value.__class__.__name__ == "RequestRejected"
    with pytest.raises(Exception, match="max_tokens: Input should be greater than or equal to 0"):
        model.create([{"role": "user", "content": "hi"}], max_tokens=-1)


def test_max_tokens_0_generates_nothing_as_the_api_does():
    reply = ToyModel().create([{"role": "user", "content": "What is 2 + 3?"}], max_tokens=0)
    assert (reply["content"], reply["stop_reason"], reply["usage"]["output_tokens"]) == ([], "max_tokens", 0)


def test_every_request_of_its_runs_is_one_the_api_accepts():
    for task in ["What is 1 + 2 + 3 + 4 + 5?", "What is 1 + 1 and 2 + 2 and 3 + 3?", "What is in todo.txt?",
                 "What is 1 + 2 + 3, then shout it", "Which files are there?"]:
        state = ran(task)
        checker = RequestChecker("lesson")
        for record in state.records:
            assert checker.check(state.messages[:record.sent]) == []


@pytest.mark.parametrize("task", ["What is 2 + 3 and 4 + 4?", "What is 2 + 3, then shout the answer"])
def test_a_toy_run_records_into_a_script_that_replays_it(task):
    state = ran(task)
    script = record_script(state)
    replay = RunState(script.task, tool_names=script.tools)
    run_to_end(replay, FakeModel(script))
    assert console_lines(replay) == console_lines(state) == script.expected_output


# ---- it says a result only when it has worked it out, and declines the rest


def test_subtraction_is_adding_the_number_negated_through_the_tools():
    state = ran("What is 10 - 3 + 2?")
    assert calls(state) == [[("add", {"a": 10, "b": -3})], [("add", {"a": 7, "b": 2})]]
    assert state.result == "10 - 3 + 2 is 9."
    assert ran("What is 10 minus 3 plus negative 2?").result == "10 - 3 + -2 is 5."
    assert ran("What is 5 - -3?").result == "5 - -3 is 8."


def test_exponents_and_decimals_are_read_as_numbers():
    state = ran("What is 1e3 + 1?")
    assert calls(state) == [[("add", {"a": 1000, "b": 1})]] and state.result == "1e3 + 1 is 1001."
    assert ran("What is 2.5E-1 + .5?").result == "2.5E-1 + .5 is 0.75."
    assert ran("What is 0.5 + 0.25?").result == "0.5 + 0.25 is 0.75."  # halves and quarters are exact in binary


def test_words_in_a_named_file_are_counted_from_its_content_through_the_tools():
    state = ran("How many words are in notes.txt?")
    assert calls(state) == [[("read_file", {"path": "notes.txt"})],
                            [("word_count", {"text": NOTES["notes.txt"]})]]
    assert state.result == f"notes.txt has {len(NOTES['notes.txt'].split())} words."


def test_a_task_of_two_kinds_gets_both_parts_answered():
    state = ran("What is 2 + 3, and how many words in 'a b c'?")
    assert calls(state) == [[("add", {"a": 2, "b": 3}), ("word_count", {"text": "a b c"})]]
    assert state.records[0].reply["content"][0] == {"type": "text", "text": "I will work out each part."}
    assert state.result == "2 + 3 is 5.\nThat text has 3 words."


def test_every_example_task_but_the_poem_is_answered_with_the_tools():
    for task in EXAMPLE_TASKS[:-1]:
        state = ran(task)
        assert calls(state) and not state.result.startswith(("I cannot", "stopped", "A tool call failed")), task
    assert ran(EXAMPLE_TASKS[-1]).result == CAN_DO


def test_a_part_it_cannot_answer_is_named_beside_the_parts_it_answers():
    state = ran("What is 2 + 3, and who are you?")
    assert calls(state) == [[("add", {"a": 2, "b": 3})]]
    assert state.result == f"2 + 3 is 5.\nI cannot answer “who are you”.\n{CAN_DO}"


def test_the_words_of_every_note_file_are_counted_when_none_is_named():
    state = ran("How many words are in my notes?")
    names = ["notes.txt", "todo.txt"]
    assert calls(state) == [[("list_files", {})], [("read_file", {"path": name}) for name in names],
                            [("word_count", {"text": NOTES[name]}) for name in names]]
    counts = [len(NOTES[name].split()) for name in ("notes.txt", "todo.txt")]
    assert state.result == f"notes.txt has {counts[0]} words; todo.txt has {counts[1]} words."


def test_one_word_is_said_as_one_word():
    assert ran("How many words in 'hello'?").result == "That text has 1 word."


def test_each_quoted_text_is_counted():
    state = ran("How many words are in 'a b c' and “d e”?")
    assert calls(state) == [[("word_count", {"text": "a b c"}), ("word_count", {"text": "d e"})]]
    assert state.result == "“a b c” has 3 words; “d e” has 2 words."


def test_the_words_of_an_empty_quote_are_none():
    state = ran("count the words in ''")
    assert calls(state) == [[("word_count", {"text": ""})]] and state.result == "That text has 0 words."


def test_separate_sums_of_any_length_are_parallel_chains():
    state = ran("What is 10 + 5 + 2.5 and 1 + 1?")
    assert calls(state) == [[("add", {"a": 10, "b": 5}), ("add", {"a": 1, "b": 1})], [("add", {"a": 15, "b": 2.5})]]
    assert state.result == "10 + 5 + 2.5 is 17.5; 1 + 1 is 2."


@pytest.mark.parametrize("task", ["Is 3 bigger than 2?", "What is 2 + 3 and 4 + 5 and 6?", "What is 5 + ?",
                                  "What is 2 * 3?", "What is 2 + 3 squared?", "Add 1,500 and 5",
                                  "What is 1e20 + 1?", "What is 2 + 3k?", "What is (2 + 3) - 1?",
                                  "What is 007 + 1?", "What is 2 + 3 in binary?", "Add 1 500 and 5",
                                  "What is 9007199254740992 + 1?", "What is 1e999999999 + 1?",
                                  "What is 5 negative 3?", "What is x2 + 3?"])
def test_what_it_cannot_read_it_declines_with_no_call_and_no_number(task):
    state = ran(task)
    assert calls(state) == [] and state.result.startswith("I cannot ") and state.result.endswith(f"\n{CAN_DO}")
    decline = state.result.removesuffix(CAN_DO)
    assert not re.search(r"\bis -?[\d.]", decline.split("”")[-1])  # no result said (after the task quoted)


def test_a_sentence_it_cannot_point_to_is_not_counted():
    state = ran("How many words are in this sentence?")
    assert calls(state) == [] and state.result.startswith("I cannot tell which text to count")


def test_a_tool_that_fails_stops_it_with_the_error_said():
    state = ran("What is in missing.txt?")
    assert calls(state) == [[("read_file", {"path": "missing.txt"})]]
    assert state.result == ("A tool call failed (error: no file named 'missing.txt'; the files are notes.txt, "
                            "todo.txt), so I stop here.")


def test_a_named_file_is_read_once_and_said():
    state = ran("What is in notes.txt?")
    assert calls(state) == [[("read_file", {"path": "notes.txt"})]]
    assert state.result == "notes.txt says:\n" + NOTES["notes.txt"]


def test_a_result_changed_by_hand_into_words_is_not_taken_for_a_number():
    state = RunState("What is 1 + 2 + 3?")
    model = ToyModel()
    step(state, model)
    state.messages[-1]["content"][0]["content"] = "three"
    run_to_end(state, model)
    assert state.result == f"I cannot say what 1 + 2 + 3 is: `add` answered 'three', which is not a number.\n{CAN_DO}"


def test_a_call_changed_by_hand_is_not_taken_for_its_own():
    state = RunState("What is 1 + 2 + 3?")
    model = ToyModel()
    step(state, model)
    state.messages[-2]["content"][0]["input"] = {"a": 1, "b": 5}
    run_to_end(state, model)
    assert state.result.startswith("I cannot go on from here: the tool calls in this conversation are not the ones")


@pytest.mark.parametrize("task, result", [
    ("Uppercase good morning", "GOOD MORNING"),
    ("Shout kind words", "KIND WORDS"),  # "words" alone does not ask for a count
    ("What is the number of words in 'a b c'?", "That text has 3 words."),
    ("Count the words in my files", "notes.txt has 22 words; todo.txt has 16 words."),
    ("Make this upper: hello", "HELLO"),
    ("Write it in capitals: hello", "HELLO"),
    ("Shout: good morning", "GOOD MORNING"),  # the colon is not shouted
    ("Shout", 'I cannot tell what to shout: say it after the word ("Shout good morning").'),
    ("Count the words of: the loop is small", "That text has 4 words."),
    ("word count of the loop is small", "That text has 4 words."),
    ("How many words in 'a b c'", "That text has 3 words."),
    ("How many words are in 'a b' and 'c'?", "“a b” has 2 words; “c” has 1 word."),
    ("Count the words in the notes", "notes.txt has 22 words; todo.txt has 16 words."),
    ("What is x plus y?", "I cannot work out “What is x plus y”: I only add and subtract, and I do not read “x” in a "
                          "sum."),
    ("What is x minus y?", "I cannot work out “What is x minus y”: I only add and subtract, and I do not read “x” in a "
                           "sum."),
    ("What is 2x + 3?", "I cannot work out “What is 2x + 3”: I do not read “2x” as a number."),
    ("Add 1,500 and 5", "I cannot work out “Add 1,500 and 5”: I cannot tell whether the comma in 1,500 separates two "
                        "numbers or groups thousands."),
    ("Add 5 and 1,500", "I cannot work out “Add 5 and 1,500”: I cannot tell whether the comma in 1,500 separates two "
                        "numbers or groups thousands."),
    ("What is 'a' + 2?", "I cannot work out “What is 'a' + 2”: I do not read 'a' in a sum."),
    ("What is notes.txt + 2?", "I cannot work out “What is notes.txt + 2”: I do not read notes.txt in a sum."),
    ("What is 1e21 + 1?", "I cannot add 1e21 + 1 exactly: the `add` tool works in floating point, and numbers this "
                          "large or this precise would come back rounded."),
    ("What is: 2 + 3", "2 + 3 is 5."),
    ("What is 2 + 3!", "2 + 3 is 5."),
    ("2 + 3 = ?", "2 + 3 is 5."),
    ("2 + 3.", "2 + 3 is 5."),
    ("What is 2 + 3 4 + 5?", "2 + 3 is 5; 4 + 5 is 9."),
    ("Add 2, 3 and 4", "2 + 3 + 4 is 9."),
    ("What is 0 + 0?", "0 + 0 is 0."),
    ("What is 1.10 + 2.25?", "1.10 + 2.25 is 3.35."),  # `add` gives 3.35 exactly as the decimal sum
    ("What is 2 + 3 and 4 + 5 and 6?", 'I cannot work out “What is 2 + 3 and 4 + 5 and 6”: I read a sum as '
                                       'numbers with + or - between them, or "add" and a list of numbers, and I cannot '
                                       'tell what every number in it is for.'),
    ("How many words are in my note?", "notes.txt has 22 words; todo.txt has 16 words."),
    ("How many words are in the loop is small", "That text has 4 words."),
    ("Count the words in: a b c", "That text has 3 words."),
    ("Add 1 and 2, then 3", "1 + 2 + 3 is 6."),
    ("What is 10 minus 3 plus 2?", "10 - 3 + 2 is 9."),
])
def test_the_words_that_ask_for_each_kind_of_task(task, result):
    said_too = f"\n{CAN_DO}" if result.startswith("I cannot") else ""  # every decline ends saying what it can do
    assert ran(task).result == result + said_too


def test_counting_every_file_first_says_it_looks_which_there_are():
    first = ran("Count the words in my notes").records[0].reply
    assert first["content"][0] == {"type": "text", "text": "Let me see which files there are."}


def test_when_list_files_names_no_file_there_are_none_to_count():
    toy, tools = ToyModel(), tool_schemas(list(TOOLS))
    task = [{"role": "user", "content": "Count the words in my notes"}]
    asked = toy.create(task, tools=tools, max_tokens=200)
    (call,) = [b for b in asked["content"] if b["type"] == "tool_use"]
    answered = toy.create(task + [{"role": "assistant", "content": asked["content"]}, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call["id"], "content": ""}]}], tools=tools, max_tokens=200)
    assert answered["content"] == [{"type": "text", "text": "There are no files to count the words of."}]


def test_numbers_with_neither_a_sign_nor_a_verb_between_them_are_not_added():
    assert ran("What is 7 and 5?").result.startswith("I cannot work out “What is 7 and 5”: I read a sum as")


@pytest.mark.parametrize("task, result", [
    ("Hello! What is 2 + 3?", "2 + 3 is 5."),  # a greeting beside a task is not a part it declines
    ("Thank you, thanks. What is 2 + 3?", "2 + 3 is 5."),  # with a comma in it too
    ("What is in the file?", "notes.txt says:\n" + NOTES["notes.txt"]),
])
def test_a_greeting_is_let_be_and_the_file_is_a_file_too(task, result):
    assert ran(task).result == result


def test_counting_a_named_file_says_it_will_count_before_the_count():
    said = [b["text"] for r in ran("Count the words in notes.txt").records for b in r.reply["content"]
            if b["type"] == "text"]
    assert said == ["I will count them.", "notes.txt has 22 words."]


def test_when_list_files_names_no_file_there_is_none_to_read():
    toy, tools = ToyModel(), tool_schemas(list(TOOLS))
    task = [{"role": "user", "content": "What is in my notes?"}]
    asked = toy.create(task, tools=tools, max_tokens=200)
    (call,) = [b for b in asked["content"] if b["type"] == "tool_use"]
    answered = toy.create(task + [{"role": "assistant", "content": asked["content"]}, {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call["id"], "content": ""}]}], tools=tools, max_tokens=200)
    assert answered["content"] == [{"type": "text", "text": "There are no files."}]


def test_another_task_gets_other_ids():
    assert ran("What is 2 + 3?").records[0].reply["id"] != ran("What is 4 + 4?").records[0].reply["id"]


# ---- one token estimate: the usage it reports is where max_tokens cuts


def test_usage_is_one_token_for_every_four_characters_written():
    state = ran("What is in notes.txt?")
    answer = state.records[-1].reply
    assert answer["usage"]["output_tokens"] == -(-len(state.result) // 4)
    call = state.records[0].reply
    assert call["usage"]["output_tokens"] == -(-len(json.dumps({"path": "notes.txt"})) // 4)


def test_max_tokens_cuts_the_answer_at_four_characters_a_token():
    whole = ran("What is in notes.txt?").result
    state = ran("What is in notes.txt?", max_tokens=20)
    reply = state.records[-1].reply
    assert state.result == "stopped: max_tokens"
    assert reply["content"] == [{"type": "text", "text": whole[:80]}] and reply["usage"]["output_tokens"] == 20


def test_a_reply_exactly_max_tokens_long_comes_whole():
    text = "x" * 28  # the call writes {"text": "xx...x"}: 40 characters, 10 tokens
    state = ran(f"Shout '{text}'", max_tokens=10)
    assert state.records[0].reply["usage"]["output_tokens"] == 10
    assert state.result == text.upper()


def test_a_long_reply_cut_reports_what_it_kept():
    text = "word " * 1600  # 8,000 characters to shout
    state = ran(f"Shout '{text}'", max_tokens=1024)
    reply = state.records[0].reply
    (call,) = reply["content"]
    assert reply["stop_reason"] == "max_tokens" and reply["usage"]["output_tokens"] == 1024
    assert text.startswith(call["input"]["text"])
    assert len(json.dumps(call["input"])) - len('"}') == 1024 * 4  # what it wrote before the tokens ran out


def test_with_no_max_tokens_given_a_reply_stops_at_1024_tokens():
    tools = tool_schemas(["upper"])
    exactly = ToyModel().create([{"role": "user", "content": f"Shout '{'x' * 4084}'"}], tools=tools)
    assert (exactly["stop_reason"], exactly["usage"]["output_tokens"]) == ("tool_use", 1024)  # 4,096 characters
    over = ToyModel().create([{"role": "user", "content": f"Shout '{'x' * 4088}'"}], tools=tools)
    assert (over["stop_reason"], over["usage"]["output_tokens"]) == ("max_tokens", 1024)  # one token more: cut


def test_input_tokens_are_the_requests_characters_as_written_four_a_token():
    reply = ToyModel().create(TASK, max_tokens=100)
    # {"system": "", "tools": [], "messages": [{"role": "user", "content": "What is 2 + 3?"}]}: 88 characters
    assert reply["usage"]["input_tokens"] == 22
    greek = ToyModel().create([{"role": "user", "content": "Shout 'καλημέρα κόσμε'"}], max_tokens=100)
    assert greek["usage"]["input_tokens"] == 24  # 96 characters: a Greek letter is one, not a \u escape of six


def test_a_task_sent_as_text_blocks_is_read_as_the_same_words():
    as_blocks = [{"role": "user", "content": [{"type": "text", "text": "What is"}, {"type": "text", "text": "2 + 3?"}]}]
    reply = ToyModel().create(as_blocks, tools=tool_schemas(["add"]), max_tokens=100)
    assert [(b["name"], b["input"]) for b in reply["content"] if b["type"] == "tool_use"] == [("add", {"a": 2, "b": 3})]


# ---- its requests are checked whole, as the FakeModel checks them

TASK = [{"role": "user", "content": "What is 2 + 3?"}]


@pytest.mark.parametrize("fields, words", [
    ({"tools": [{"name": "add"}]}, "tools.0.input_schema: Field required"),
    ({"temprature": 1}, "temprature: Extra inputs are not permitted"),
    ({"system": 123}, "system: Input should be a valid list"),
    ({"system": 0}, "system: Input should be a valid list"),
    ({"tools": {}}, "tools: Input should be a valid list"),
    ({"max_tokens": "9"}, "max_tokens: Input should be a valid integer"),
    ({"max_tokens": -1}, "max_tokens: Input should be greater than or equal to 0"),
])
def test_a_wrong_field_is_refused_in_the_same_words_as_the_fakemodels(fields, words):
    with pytest.raises(RequestRejected) as toy:
        ToyModel().create(TASK, **{"max_tokens": 10, **fields})
    with pytest.raises(RequestRejected) as fake:
        FakeModel(load_script("add_then_answer")).create(TASK, **{"max_tokens": 10, **fields})
    assert str(toy.value) == str(fake.value) == words


def test_a_run_with_a_wrong_tool_ends_in_the_apis_refusal():
    class BrokenSchemas(ToyModel):
        def create(self, messages, *, system, tools, max_tokens):
            return super().create(messages, system=system, tools=[{k: v for k, v in t.items() if k != "input_schema"}
                                                                  for t in tools], max_tokens=max_tokens)

    state = RunState("What is 2 + 3?")
    run_to_end(state, BrokenSchemas())
    assert state.result == "bad request: tools.0.input_schema: Field required" and state.records[0].reply is None


def test_the_same_settings_are_checked_again_after_a_tools_list_is_changed_in_place():
    model, tools = ToyModel(), tool_schemas(["add"])
    model.create(TASK, tools=tools, max_tokens=100)
    del tools[0]["input_schema"]
    with pytest.raises(RequestRejected, match="tools.0.input_schema: Field required"):
        model.create(TASK, tools=tools, max_tokens=100)


# ---- a property: over generated sums, the answer is the true value or a decline, through the whole loop
# (the decline only where `add` itself would give a rounded sum, or the numbers are out of its reach)


def _number(draw) -> tuple[str, Decimal, bool]:
    """A number as a person might write it, its value, and whether it is in the range the toy must answer."""
    style = draw(st.sampled_from(["int", "decimal", "exponent", "far"]))
    if style == "int":
        text = str(draw(st.integers(0, 10**6)))
    elif style == "decimal":
        whole, places = draw(st.integers(0, 9999)), draw(st.integers(1, 3))
        digits = str(draw(st.integers(0, 10**places - 1))).rjust(places, "0")
        text = f"{whole}.{digits}" if whole or draw(st.booleans()) else f".{digits}"
    elif style == "exponent":
        text = f"{draw(st.integers(1, 99))}{draw(st.sampled_from(['e', 'E']))}{draw(st.integers(-3, 6))}"
    else:
        text = f"{draw(st.integers(1, 9))}e{draw(st.sampled_from([-30, -18, 15, 16, 22]))}"
    return text, Decimal(text), style != "far"


@st.composite
def sums(draw) -> tuple[str, Decimal, bool]:
    """A sum as typed ("10 - 3 plus negative 2"), its true value, and whether the toy must answer it."""
    text, terms, in_reach = "", [], True
    for i in range(draw(st.integers(2, 5))):
        written, number, in_range = _number(draw)
        negative = draw(st.booleans())
        sign = "+" if i == 0 else draw(st.sampled_from(["+", "-"]))
        if i:
            text += f" {draw(st.sampled_from([sign, 'plus' if sign == '+' else 'minus']))} "
        text += (draw(st.sampled_from(["-", "negative "])) if negative else "") + written
        terms.append((-number if negative else number) * (1 if sign == "+" else -1))
        in_reach = in_reach and in_range
    return text, sum(terms), in_reach and add_gives_exactly(terms)


EXAMPLES = int(os.environ.get("TOY_EXAMPLES", "60"))  # a longer search: TOY_EXAMPLES=2000
PHRASINGS = ["What is {}?", "what's {}", "Calculate {}.", "{} = ?", "Please work out {}", "How much is {}?"]


def said_value(part: str) -> Decimal | None:
    """The value a part of the answer states ("... is 17.5."), or None for a decline."""
    if part.startswith("I cannot "):
        return None
    assert " is " in part and part.endswith("."), part
    return Decimal(part.rsplit(" is ", 1)[1].removesuffix("."))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sums(), st.one_of(st.none(), sums()), st.sampled_from(PHRASINGS), st.booleans())
def test_over_generated_sums_the_answer_is_the_true_value_or_a_polite_decline(first, second, phrasing, words):
    asked = first[0] if second is None else f"{first[0]} and {second[0]}"
    task = phrasing.format(asked) + (", and how many words in 'a b c d'?" if words else "")
    state = RunState(task)
    run_to_end(state, ToyModel())
    assert not state.result.startswith(("stopped", "bad request", "model error")), state.result
    assert_keeps_the_toys_rules(state)
    lines = state.result.removesuffix(f"\n{CAN_DO}").split("\n")
    if words:
        assert lines.pop() == "That text has 4 words."
    expected = [first] if second is None else [first, second]
    parts = lines[0].split("; ") if len(lines) == 1 and second is not None and "; " in lines[0] else lines
    if len(parts) == 1 and len(expected) == 2 and parts[0].startswith("I cannot"):
        parts = parts * 2  # one decline for the clause it could not read
    assert len(parts) == len(expected), state.result
    for part, (_, value, answerable) in zip(parts, expected, strict=True):
        said = said_value(part if part.endswith(".") else part + ".")
        assert said == value if said is not None else not answerable, (task, state.result)


@st.composite
def listed(draw) -> tuple[str, Decimal, bool]:
    """Numbers listed for a sum ("1, -2.5 and 3e2"), their total, and whether the toy must answer it."""
    numbers = [_number(draw) for _ in range(draw(st.integers(2, 5)))]
    signed = [(("-" if draw(st.booleans()) else "") + text, value, ok) for text, value, ok in numbers]
    last = draw(st.sampled_from([" and ", ", and ", ", then "]))
    text = ", ".join(t for t, _, _ in signed[:-1]) + last + signed[-1][0]
    terms = [Decimal(t) for t, _, _ in signed]
    return text, sum(terms), all(ok for _, _, ok in signed) and add_gives_exactly(terms)


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(listed(), st.sampled_from(["Add {}", "What is the sum of {}?", "Please add {}.", "Total of {}"]))
def test_over_generated_lists_the_answer_is_their_total_or_a_polite_decline(numbers, phrasing):
    text, total, answerable = numbers
    state = RunState(phrasing.format(text))
    run_to_end(state, ToyModel())
    assert_keeps_the_toys_rules(state)
    said = said_value(state.result.removesuffix(f"\n{CAN_DO}"))
    assert said == total if said is not None else not answerable, (phrasing.format(text), state.result)


TASK_PIECES = ["What is", "2", "-3", "1e3", ".5", "+", "-", "plus", "minus", "and", ",", "?", ".", "'a b'", "''",
               "notes.txt", "missing.txt", "how many words", "in", "shout", "add", "negative", "*", "1,500", "\n",
               "my notes", "then", "3k", "(", "word count", "“x”", "shout it", "the answer", "uppercase", "that",
               "which files", "list", "files", "I was born in", "1990", "0.1", "0.2", "the word", "upper-case",
               "make", "in capitals", "to", "of", "subtract", "from", "total", "my todo list", "the sentence",
               "'bye'", "how many files", "mentions", "the first file", "how many lines"]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(TASK_PIECES), st.text(max_size=6)), min_size=1, max_size=12))
def test_any_typed_task_ends_in_an_answer_never_a_crash(pieces):
    state = RunState(" ".join(pieces).strip() or "?")  # a blank task is a bad request, rightly
    run_to_end(state, ToyModel())
    assert state.done and not state.result.startswith(("model error", "bad request")), state.result
    assert all(r.error is None for r in state.records)
    assert_keeps_the_toys_rules(state)


def test_a_full_stop_inside_an_address_does_not_end_the_request():
    state = RunState("Shout [x](http://example.com) and www.foo.org, mail a@b.com", tool_names=["upper"])
    assert run_to_end(state, ToyModel()) == "[X](HTTP://EXAMPLE.COM) AND WWW.FOO.ORG, MAIL A@B.COM"


def test_parallel_chains_say_once_what_they_will_work_out():
    state = ran("What is 1 + 2 + 3 and 4 + 5 + 6?")
    said = [[b["text"] for b in r.reply["content"] if b["type"] == "text"] for r in state.records]
    assert said == [["I will work out each sum."], [], ["1 + 2 + 3 is 6; 4 + 5 + 6 is 15."]]


def test_a_count_of_the_words_in_nothing_named_asks_for_the_text():
    for task in ("How many words are in", "Count the words of"):
        assert ran(task).result.startswith("I cannot tell which text to count: put it in quotes")


@pytest.mark.parametrize("mode", ["lesson", "real-api"])
def test_with_thinking_on_a_tool_loop_that_drops_the_thinking_is_refused(mode):
    sent = [{"role": "user", "content": "What is 2 + 3?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "add",
                                               "input": {"a": 2, "b": 3}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}]
    with pytest.raises(RequestRejected, match=r"^messages\.1\.content\.0\.type: Expected `thinking` or "
                                              r"`redacted_thinking`, but found `tool_use`"):
        ToyModel(mode).create(sent, tools=tool_schemas(["add"]), max_tokens=2048,
                              thinking={"type": "enabled", "budget_tokens": 1024})
    assert ToyModel(mode).create(sent, tools=tool_schemas(["add"]))["content"][0]["text"] == "2 + 3 is 5."


def test_a_tool_call_written_in_the_users_message_is_not_taken_for_one_the_toy_made():
    written = {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 3}}
    sent = [{"role": "user", "content": [{"type": "text", "text": "What is 2 + 3?"}, written]}]
    reply = ToyModel().create(sent, tools=tool_schemas(["add"]))
    assert reply["stop_reason"] == "tool_use"  # it makes the call itself
    assert [(b["name"], b["input"]) for b in reply["content"] if b["type"] == "tool_use"] == [("add", {"a": 2, "b": 3})]


ALL_TOOLS = tool_schemas(list(TOOLS))

def test_a_cut_goes_block_by_block_and_usage_counts_the_characters_written():
    sent = [{"role": "user", "content": "What is 12 + 34 and 7 + 8?"}]
    whole = ToyModel().create(sent, tools=ALL_TOOLS)
    # "I will work out each sum." (25 characters), {"a": 12, "b": 34} (18) and {"a": 7, "b": 8} (16): 59 in all.
    assert (whole["stop_reason"], whole["usage"]["output_tokens"]) == ("tool_use", 15)
    cut = ToyModel().create(sent, tools=ALL_TOOLS, max_tokens=11)  # 44 characters: 1 is left for the second call
    assert [b.get("text", b.get("input")) for b in cut["content"]] == [
        "I will work out each sum.", {"a": 12, "b": 34}, {}]
    assert (cut["stop_reason"], cut["usage"]["output_tokens"]) == ("max_tokens", 11)
    accented = ToyModel().create([{"role": "user", "content": "Shout déjà vu"}], tools=ALL_TOOLS)
    assert accented["usage"]["output_tokens"] == 5  # {"text": "déjà vu"}: 19 characters, é one, not a \\u escape


def test_the_ids_hang_on_what_the_conversation_says_not_on_the_order_of_its_keys():
    first = ToyModel().create([{"role": "user", "content": "What is 2 + 3?"}], tools=ALL_TOOLS)
    again = ToyModel().create([{"content": "What is 2 + 3?", "role": "user"}], tools=ALL_TOOLS)
    assert again == first


def test_a_prefill_after_the_task_is_answered_in_real_api_mode():
    sent = [{"role": "user", "content": "What is 2 + 3?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Let me see."}]}]
    reply = ToyModel("real-api").create(sent, tools=ALL_TOOLS)
    assert [(b["name"], b["input"]) for b in reply["content"] if b["type"] == "tool_use"] == [("add", {"a": 2, "b": 3})]


def test_reading_and_counting_say_what_they_will_do_before_the_result():
    def said(task: str) -> list[list[str]]:
        return [[b["text"] for b in r.reply["content"] if b["type"] == "text"] for r in ran(task).records]

    assert said("What is in the files?")[:2] == [["Let me see which files there are."],
                                                 ["There are 2 files; I read notes.txt."]]
    assert said("How many words are in 'a b' and 'c'?")[0] == ["I will count them."]
    assert ran("Read my note").result == f"notes.txt says:\n{NOTES['notes.txt']}"
    both = ran("What is in notes.txt and todo.txt?").result
    assert both == f"notes.txt says:\n{NOTES['notes.txt']}\ntodo.txt says:\n{NOTES['todo.txt']}"
