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
