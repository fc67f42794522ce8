"""The toy reads the plain ways people ask: which files there are, shouting the answer before, uppercasing a word;
it declines sums `add` would round and small talk with numbers in it, briefly, always saying what it can do."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toy_rules import assert_keeps_the_toys_rules, declines, ran, tool_results

from agent.loop import MAX_TOKENS
from agent.models.toy import CAN_DO
from agent.tools import NOTES


def calls(state) -> list[list[tuple[str, object]]]:
    return [[(run.name, run.input) for run in r.tool_runs] for r in state.records if r.tool_runs]


FILES_SAID = "The files are notes.txt and todo.txt."

# ---- the files, listed when asked which there are


@pytest.mark.parametrize("task", ["Hi, tell me what files I have", "What files do I have?", "which files are there",
                                  "List my files", "show me the files", "Do I have any files?", "What are my files?",
                                  "Which notes do I have?", "Give me the names of my files", "list the notes"])
def test_asked_which_files_there_are_it_lists_them_and_reads_none(task):
    state = ran(task)
    assert calls(state) == [[("list_files", {})]]
    assert state.result == FILES_SAID


def test_asked_what_is_in_them_it_still_reads_them():
    assert calls(ran("What is in my notes?")) == [[("list_files", {})], [("read_file", {"path": "notes.txt"})]]
    assert ran("What do my notes say?").result == f"notes.txt says:\n{NOTES['notes.txt']}"


def test_asked_to_change_a_file_it_declines_and_calls_nothing():
    state = ran("Delete my notes")
    assert calls(state) == [] and state.result.startswith("I cannot change files") and CAN_DO in state.result


# ---- shouting the answer of the part before


@pytest.mark.parametrize("shout", ["then shout the answer", "shout it", "then shout the result", "and uppercase that",
                                   "make it uppercase", "then yell it out loud", "turn that into upper case"])
def test_shouting_the_answer_shouts_what_the_part_before_answered(shout):
    state = ran(f"What is 2 + 3, {shout}")
    assert calls(state) == [[("add", {"a": 2, "b": 3})], [("upper", {"text": "2 + 3 is 5."})]]
    assert state.result == "2 + 3 is 5.\n2 + 3 IS 5."


def test_the_answer_shouted_is_any_kind_of_part_and_waits_for_all_of_its_calls():
    state = ran("What is 1 + 2 + 3? Then shout it")
    assert calls(state) == [[("add", {"a": 1, "b": 2})], [("add", {"a": 3, "b": 3})],
                            [("upper", {"text": "1 + 2 + 3 is 6."})]]
    listed = ran("Which files are there? Shout the answer")
    assert listed.result == f"{FILES_SAID}\n{FILES_SAID.upper()}"
    counted = ran("How many words are in 'a b c', and shout that")
    assert counted.result == "That text has 3 words.\nTHAT TEXT HAS 3 WORDS."


def test_them_shouts_every_answer_before_and_it_only_the_last():
    both = ran("What is 1 + 1? What is 2 + 2? Shout them")
    assert both.result == "1 + 1 is 2.\n2 + 2 is 4.\n1 + 1 IS 2; 2 + 2 IS 4."
    last = ran("What is 1 + 1? What is 2 + 2? Shout it")
    assert last.result == "1 + 1 is 2.\n2 + 2 is 4.\n2 + 2 IS 4."


def test_the_answer_to_a_sum_named_in_the_shout_is_worked_out_then_shouted():
    state = ran("Shout the answer to 2 + 3")
    assert calls(state) == [[("add", {"a": 2, "b": 3})], [("upper", {"text": "2 + 3 is 5."})]]


def test_an_answer_that_is_not_there_is_not_shouted():
    alone = ran("Shout the answer")
    assert calls(alone) == [] and alone.result.startswith("I cannot tell which answer to shout")
    after_a_decline = ran("What is 2 * 3, then shout it")
    assert calls(after_a_decline) == [] and declines(after_a_decline.result)[-1] == (
        "I cannot shout the answer: there is no answer I worked out to shout.")
    without_upper = ran("What is 2 + 3, then shout it", tool_names=["add"])
    assert calls(without_upper) == [[("add", {"a": 2, "b": 3})]]
    assert "I would use the `upper` tool for this, but this agent was not given it." in without_upper.result


# ---- shouting a text: the words that ask for it are not shouted


@pytest.mark.parametrize("task", ["uppercase the word hello", "upper-case the word hello", "Upper case the word hello",
                                  "make 'hello' uppercase", "make hello uppercase", "shout hello", "Shout: hello",
                                  "put hello in capitals", "write hello in all caps please", "yell hello",
                                  "can you uppercase hello for me", "hello in capital letters please",
                                  "Uppercase the text: hello", "turn hello into upper case"])
def test_the_text_to_shout_is_the_text_alone(task):
    state = ran(task)
    assert calls(state) == [[("upper", {"text": "hello"})]] and state.result == "HELLO"


def test_a_text_that_only_looks_like_a_reference_is_shouted_as_it_is():
    assert ran("Shout this is fun").result == "THIS IS FUN"
    assert ran("Shout kind words").result == "KIND WORDS"


# ---- sums `add` would round are declined before any call


@pytest.mark.parametrize("task", ["What is 0.1 + 0.2?", "What is 1.1 + 2.2?", "Add 0.1, 0.2 and 0.3"])
def test_a_sum_add_would_round_is_declined_before_any_call_with_no_value_said(task):
    state = ran(task)
    assert calls(state) == [] and state.result.startswith("I cannot add")
    assert "no exact binary value" in state.result and "0.3." not in state.result and "0000" not in state.result
    assert state.result.endswith(CAN_DO)


def test_a_sum_add_gives_exactly_states_the_number_add_returned():
    state = ran("What is 0.5 + 0.25 - 0.125?")
    assert tool_results(state) == ["0.75", "0.625"] and state.result == "0.5 + 0.25 - 0.125 is 0.625."


# ---- small talk with numbers, long tasks, many declines


@pytest.mark.parametrize("task", ["I was born in 1990 and my sister in 1993", "I have 3 cats and 2 dogs",
                                  "The train leaves at 9", "Tell me a story about 3 dragons"])
def test_small_talk_with_numbers_is_not_a_failed_sum_but_what_the_toy_can_do(task):
    state = ran(task)
    assert calls(state) == [] and state.result == CAN_DO


def test_a_long_declined_task_is_quoted_short_and_ends_with_end_turn():
    state = ran("What is 2 * 3 " + "and the sea and the sky " * 200)
    assert state.records[-1].reply["stop_reason"] == "end_turn"
    assert state.result == ("I cannot work out “What is 2 * 3 and the sea and the sky…”: I only add and subtract, and "
                            f"I do not read “*”.\n{CAN_DO}")


def test_many_declined_parts_name_a_few_and_the_rest_together():
    state = ran("What is 2 * 3? " * 300)
    lines = state.result.split("\n")
    assert lines[:5] == ["I cannot work out “What is 2 * 3”: I only add and subtract, and I do not read “*”."] * 5
    assert lines[5:] == ["I cannot read the other parts either.", CAN_DO]
    assert state.records[-1].reply["stop_reason"] == "end_turn"


def test_a_long_failure_is_said_short():
    state = ran(f"What is in {'x' * 3000}.txt?")
    assert state.records[-1].reply["stop_reason"] == "end_turn" and len(state.result) < 250


# ---- properties over the phrasings: random tasks of these kinds keep the toy's rules

EXAMPLES = int(os.environ.get("TOY_EXAMPLES", "60"))  # a longer search: TOY_EXAMPLES=2000
SEARCH = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GREETINGS = st.sampled_from(["", "Hi, ", "Hello! ", "Hey, ", "Ok. "])
ENDINGS = st.sampled_from(["", "?", ".", "!", " please", " please?"])
ASKING_WHICH_FILES = ["what files do I have", "which files are there", "list my files", "show me the files",
                      "tell me what files I have", "what files are there", "which notes do I have", "list the files",
                      "do I have any files", "what are my files", "show me my files", "list all my notes",
                      "which files do I have", "can you list the files", "give me the names of my files",
                      "are there any files", "what notes are there"]


def cased(draw, text: str) -> str:
    return draw(st.sampled_from([text, text.capitalize(), text.upper(), text.title()]))


@SEARCH
@given(st.data())
def test_over_ways_of_asking_which_files_there_are_it_lists_them(data):
    ask = cased(data.draw, data.draw(st.sampled_from(ASKING_WHICH_FILES)))
    state = ran(data.draw(GREETINGS) + ask + data.draw(ENDINGS))
    assert_keeps_the_toys_rules(state)
    assert calls(state) == [[("list_files", {})]] and state.result == FILES_SAID, (state.task, state.result)


@st.composite
def first_parts(draw) -> str:
    """A part with an answer: a small sum, a word count or the files."""
    kind = draw(st.sampled_from(["sum", "count", "files"]))
    if kind == "sum":
        numbers = draw(st.lists(st.integers(0, 999), min_size=2, max_size=4))
        signs = [draw(st.sampled_from([" + ", " - ", " plus ", " minus "])) for _ in numbers[1:]]
        sum_text = str(numbers[0]) + "".join(s + str(n) for s, n in zip(signs, numbers[1:], strict=True))
        return draw(st.sampled_from(["What is {}", "what's {}", "Calculate {}", "{}"])).format(sum_text)
    if kind == "count":
        text = " ".join(draw(st.lists(st.sampled_from(["a", "cat", "sat", "loop", "on"]), min_size=1, max_size=5)))
        return f"How many words are in '{text}'"
    return draw(st.sampled_from(ASKING_WHICH_FILES))


SHOUTING_IT = ["shout the answer", "shout it", "uppercase that", "shout the result", "then shout the result",
               "make it uppercase", "upper-case it", "yell it", "shout that out loud", "put it in capitals",
               "turn that into upper case", "shout the answer please", "and uppercase that", "shout it too",
               "write the result in caps"]


@SEARCH
@given(first_parts(), st.sampled_from([", then ", ". Then ", " and then ", " and ", "; ", ", and ", "\n", ". "]),
       st.sampled_from(SHOUTING_IT))
def test_over_ways_of_shouting_the_answer_it_shouts_what_the_part_before_answered(first, join, shout):
    state = ran(first + join + shout)
    assert_keeps_the_toys_rules(state)
    *answered, shouted = state.result.split("\n")
    last_call = state.records[-2].tool_runs
    assert [(run.name, run.input) for run in last_call] == [("upper", {"text": "\n".join(answered)})], state.task
    assert shouted == "\n".join(answered).upper() and not shouted.startswith("I cannot"), (state.task, state.result)


SYLLABLES = ["ka", "lo", "mi", "zu", "re", "po", "ny", "ta"]
SHOUTING_A_TEXT = ["uppercase the word {}", "upper-case the word {}", "Upper case the words {}", "make '{}' uppercase",
                   'make "{}" upper case', "shout {}", "Shout the word {}", "make {} uppercase", "put {} in capitals",
                   "write {} in caps please", "Uppercase: {}", "yell {}", "can you uppercase {} for me",
                   "turn {} into uppercase", "{} in capital letters please", "say {} in all caps", "shout {} out loud",
                   "Shout the text {}", "scream {}", "Put {} in upper case"]


@SEARCH
@given(st.lists(st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=4).map("".join), min_size=1, max_size=3),
       st.sampled_from(SHOUTING_A_TEXT), GREETINGS)
def test_over_ways_of_asking_to_shout_a_text_it_shouts_the_text_alone(words, phrasing, greeting):
    text = " ".join(words)
    state = ran(greeting + phrasing.format(text))
    assert_keeps_the_toys_rules(state)
    assert calls(state) == [[("upper", {"text": text})]] and state.result == text.upper(), (state.task, state.result)


SMALL_TALK = ["I was born in {} and my sister in {}", "I have {} cats and {} dogs", "The train leaves at {} or {}",
              "We moved here in {}, my brother in {}", "Tell me a story about {} dragons and {} knights",
              "My flat is number {} on floor {}", "Room {} is next to room {}", "I slept {} hours, then {} more"]


@SEARCH
@given(st.sampled_from(SMALL_TALK), st.integers(0, 3000), st.integers(0, 3000), GREETINGS)
def test_over_small_talk_with_numbers_it_says_what_it_can_do_and_calls_nothing(talk, first, second, greeting):
    state = ran(greeting + talk.format(first, second))
    assert_keeps_the_toys_rules(state)
    assert calls(state) == [] and state.result == CAN_DO, (state.task, state.result)


DECLINED = ["What is 2 * 3", "Is 3 bigger than 2", "What is 1,500 + 2", "What is 0.1 + 0.2", "What is 2 + 3k",
            "How many words are in this sentence", "What is 7 and 5", "Write me a poem", "Delete my notes"]
WORDS = st.lists(st.sampled_from(["the", "sea", "and", "sky", "of", "12", "long", "words", "x", "blue"]),
                 min_size=0, max_size=900)


@SEARCH
@given(st.lists(st.tuples(st.sampled_from(DECLINED), WORDS), min_size=1, max_size=30),
       st.sampled_from(["? ", ". ", "\n", "; "]))
def test_over_long_and_many_declined_parts_every_answer_ends_within_max_tokens(parts, join):
    task = join.join(" ".join([asked, *tail]) for asked, tail in parts)
    state = ran(task)
    assert state.max_tokens == MAX_TOKENS  # the page's and the command line's default
    assert_keeps_the_toys_rules(state)
    assert calls(state) == [] or state.result.startswith("A tool call failed")


# ---- cases an outside tester found: each is read as it was asked, or declined truthfully


@pytest.mark.parametrize("task, text", [("how many words in the sentence I love my cats", "I love my cats"),
                                        ("How many words are in the phrase: good morning", "good morning"),
                                        ("count the words in this sentence: the loop is small", "the loop is small")])
def test_a_text_named_as_a_sentence_is_counted_without_the_words_naming_it(task, text):
    state = ran(task)
    assert calls(state) == [[("word_count", {"text": text})]]
    assert state.result == f"That text has {len(text.split())} words."


@pytest.mark.parametrize("task", ["count the words in the answer", "How many words are in the result?"])
def test_counting_the_words_of_an_answer_that_is_not_there_is_declined(task):
    state = ran(task)
    assert calls(state) == [] and state.result.startswith("I cannot tell which text to count")
    assert state.result.endswith(CAN_DO)


def test_counting_the_words_of_the_answer_before_counts_that_answer():
    state = ran("What is 2 + 3, then count the words in the answer")
    assert calls(state) == [[("add", {"a": 2, "b": 3})], [("word_count", {"text": "2 + 3 is 5."})]]
    assert state.result == "2 + 3 is 5.\nThat answer has 5 words."  # `word_count` counts "+" as a word
    declined = ran("What is 2 * 3, then count the words in the answer")
    assert calls(declined) == [] and declines(declined.result)[-1] == (
        "I cannot count the words of the answer: there is no answer I worked out to count.")


def test_every_quoted_text_asked_to_be_shouted_is_shouted():
    state = ran("shout 'hello' and 'bye'")
    assert calls(state) == [[("upper", {"text": "hello"}), ("upper", {"text": "bye"})]]
    assert state.result == "HELLO\nBYE"
    assert ran("Shout “a”, “b” and “c”").result == "A\nB\nC"


def test_a_quoted_text_not_asked_to_be_shouted_is_declined_not_dropped():
    state = ran("shout 'hello' and whisper 'bye'")
    assert calls(state) == [[("upper", {"text": "hello"})]]
    assert state.result == f"HELLO\nI cannot answer “whisper 'bye'”.\n{CAN_DO}"


def test_shouting_what_is_in_the_notes_reads_them_and_shouts_their_content():
    state = ran("shout what's in my notes")
    assert calls(state) == [[("list_files", {})], [("read_file", {"path": "notes.txt"})],
                            [("upper", {"text": NOTES["notes.txt"]})]]
    assert state.result == NOTES["notes.txt"].upper()
    named = ran("Shout what is in todo.txt")
    assert calls(named) == [[("read_file", {"path": "todo.txt"})], [("upper", {"text": NOTES["todo.txt"]})]]
    assert named.result == NOTES["todo.txt"].upper()
    assert ran("Shout the word notes").result == "NOTES"  # a word named as a word is shouted as it is
    assert ran("shout hello to my notes").result == "HELLO TO MY NOTES"  # a greeting is a text, not a file question
    without_upper = ran("shout what's in my notes", tool_names=["list_files", "read_file"])
    assert without_upper.result.startswith("I would use the `upper` tool for this, but this agent was not given it.")


@pytest.mark.parametrize("task", ["What is the first line of my notes?", "total words in notes.txt",
                                  "How many words are in the first line of notes.txt?", "Is Omid in todo.txt?"])
def test_a_question_about_the_files_it_has_no_pattern_for_is_declined_not_answered_with_the_file(task):
    state = ran(task)
    assert_keeps_the_toys_rules(state)
    assert state.result.startswith("I cannot answer “") and state.result.endswith(CAN_DO)
    assert not any(line in state.result for text in NOTES.values() for line in text.split("\n"))


def test_subtract_a_from_b_is_b_minus_a_through_add():
    state = ran("subtract 4 from 10")
    assert calls(state) == [[("add", {"a": 10, "b": -4})]] and state.result == "10 - 4 is 6."
    assert ran("What is 4 subtracted from 10?").result == "10 - 4 is 6."
    assert ran("Please subtract negative 2 from 5").result == "5 - -2 is 7."


@pytest.mark.parametrize("task", ["subtract 4 and 10", "subtract 4 from 10 and 2", "10 subtract 4",
                                  "subtract 4 from notes.txt"])
def test_a_subtraction_it_cannot_read_is_declined_without_saying_it_cannot_subtract(task):
    state = ran(task)
    assert_keeps_the_toys_rules(state)  # the decline's example holds no number the task did not
    assert calls(state) == [] and state.result.startswith(f"I cannot work out “{task}”: I read subtracting only as")
    assert "I only add and subtract" not in state.result and state.result.endswith(CAN_DO)


@pytest.mark.parametrize("task, quoted", [("total", "total"), ("What's the total?", "What's the total"),
                                          ("Add 2 and 3, total", "total"), ("sum it up", "sum it up")])
def test_a_sum_word_with_no_number_is_declined_for_having_none(task, quoted):
    decline = declines(ran(task).result)[-1]
    assert decline == f"I cannot work out “{quoted}”: there is no number in it to add."


@pytest.mark.parametrize("task", ["what is my todo list", "Show me my to-do list", "read the todo file",
                                  "What's on my to do list?"])
def test_a_file_named_by_a_word_is_found_among_the_files_and_read(task):
    state = ran(task)
    assert calls(state) == [[("list_files", {})], [("read_file", {"path": "todo.txt"})]]
    assert state.result == f"todo.txt says:\n{NOTES['todo.txt']}"


def test_a_file_named_by_a_word_is_counted_and_shouted_too():
    counted = ran("How many words are in my todo list?")
    assert calls(counted) == [[("list_files", {})], [("read_file", {"path": "todo.txt"})],
                              [("word_count", {"text": NOTES["todo.txt"]})]]
    assert counted.result == f"todo.txt has {len(NOTES['todo.txt'].split())} words."
    assert ran("shout my todo list").result == NOTES["todo.txt"].upper()


def test_a_word_that_names_no_file_is_said_to_name_none_after_listing():
    state = ran("What is on my shopping list?")
    assert calls(state) == [[("list_files", {})]]
    assert state.result == ("I cannot find a file called “shopping”: the files are notes.txt and todo.txt.\n"
                            + CAN_DO)


def test_a_word_that_says_which_file_without_naming_it_is_not_looked_for_as_a_name():
    assert calls(ran("What is in the first file?")) == [[("list_files", {})], [("read_file", {"path": "notes.txt"})]]
    last = ran("What is in the last file?")
    assert calls(last) == [] and last.result.startswith("I cannot answer “What is in the last file”")


@pytest.mark.parametrize("task", ["how many files", "How many files do I have?", "how many notes are there",
                                  "count my files", "Hi, what is the number of files?"])
def test_how_many_files_lists_them_and_counts_the_list_with_a_tool(task):
    state = ran(task)
    assert calls(state) == [[("list_files", {})], [("word_count", {"text": "notes.txt\ntodo.txt"})]]
    assert state.result == "There are 2 files: notes.txt and todo.txt."
    assert_keeps_the_toys_rules(state)


def test_without_word_count_the_files_are_not_counted_by_the_toy_itself():
    state = ran("How many files do I have?", tool_names=["list_files"])
    assert calls(state) == [[("list_files", {})]]
    assert state.result.startswith("I would use the `word_count` tool for this, but this agent was not given it.")
