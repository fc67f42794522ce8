"""What the `Write your loop` view shows of a check, as words and HTML (agent/exercise_view.py).

The checks here are real: the learner's loops run in the sandbox, as on the page.
"""

from test_exercise import ANSWER, APPEND_REPLY, CORRECT_LOOP, FAST, MISTAKE_CASES, with_bug

from agent.exercise import BadRequest, LoopCheck, check_loop
from agent.page import exercise_view
from agent.page.exercise_view import (
    LinePair,
    aligned_lines,
    check_headline,
    code_at_line_html,
    failure_headline,
    mistake_words,
    output_html,
    problem_line,
    request_pair_html,
    script_label,
    sent_message_html,
    shown_rows,
)


def one(source, script):
    [result] = check_loop(source, [script], FAST).scripts
    return result


def test_aligned_lines_pads_the_shorter_output():
    assert aligned_lines(["a", "b", "c"], ["a", "x"]) == [LinePair(1, "a", "a"), LinePair(2, "b", "x"),
                                                          LinePair(3, "c", None)]
    assert [p.same for p in aligned_lines(["a", "b"], ["a", "b"])] == [True, True]


def test_shown_rows_keeps_the_rows_near_the_focus_and_folds_the_rest():
    assert shown_rows(5, [2]) == [0, 1, 2, 3, 4]
    assert shown_rows(12, [8]) == [range(0, 5), 5, 6, 7, 8, 9, 10, 11]
    assert shown_rows(20, [0], keep=(19,)) == [0, 1, 2, 3, range(4, 19), 19]
    assert shown_rows(12, [1, 10]) == [0, 1, 2, 3, 4, range(5, 7), 7, 8, 9, 10, 11]


def test_output_html_marks_where_the_outputs_part_and_folds_the_equal_start():
    result = one(with_bug(*MISTAKE_CASES["wrong_limit_message"][0]), "runaway")
    shown = output_html(result)
    assert "lines 1–37 are the same in both" in shown
    assert shown.count('class="lx-want"') == 1 and shown.count('class="lx-got"') == 1
    first = shown[shown.index("lx-first"):]
    assert first.startswith('lx-first">41<') and "result: stopped: no answer after 40 turns" in first
    assert "result: stopped: too many turns" in first


def test_output_html_shows_a_missing_line_as_such_and_escapes_what_the_loop_printed():
    source = with_bug((APPEND_REPLY, APPEND_REPLY + '        print("<b>hi</b>")\n'))
    shown = output_html(one(source, "add_then_answer"))
    assert "&lt;b&gt;hi&lt;/b&gt;" in shown and "<b>hi</b>" not in shown
    assert 'lx-missing">(no line)<' in shown  # the learner printed one line more than the reference


def test_request_pair_html_marks_the_refused_message_next_to_the_references():
    bad = one(with_bug((APPEND_REPLY, "")), "add_then_answer").bad_request
    shown = request_pair_html(bad)
    assert "Your loop sent <span>request 2, 2 messages" in shown
    assert "The reference loop sent <span>request 2, 3 messages" in shown
    refused = shown[shown.index('<div class="lx-bad">'):]
    assert refused.index("messages[1]") < refused.index("refused here") < refused.index("tool_result")
    counterpart = shown[shown.index('<div class="lx-good">'):]
    assert "ls-assistant" in counterpart[:200] and "expected here" in counterpart
    assert shown.count("(nothing here)") == 1  # the reference's third message has no counterpart


def test_request_pair_html_folds_a_long_array_and_says_when_the_reference_had_stopped():
    messages = [{"role": "user", "content": f"m{i}"} for i in range(12)]
    shown = request_pair_html(BadRequest("messages: roles must alternate", 5, messages, 9, None))
    assert "had already stopped: it sends no request 5" in shown
    assert "messages[1]–[5], one line each" in shown and "[3] user: &quot;m3&quot;" in shown
    assert "refused here" in shown and shown.count("ls-msg") == 1 + 6  # the task, then rows 6..11


def test_odd_shapes_the_learner_sent_are_shown_as_they_are():
    whole_reply = {"role": "assistant", "content": {"stop_reason": "tool_use", "content": []}}
    card = sent_message_html(whole_reply, 1, "refused here")
    assert "neither a string nor a list of blocks" in card and "&quot;stop_reason&quot;" in card
    assert "refused here" in card
    assert "a str, not a message dict" in sent_message_html("<hello>", 0)
    assert "&lt;hello&gt;" in sent_message_html("<hello>", 0)
    bad = one(with_bug(*MISTAKE_CASES["whole_reply_appended"][0]), "add_then_answer").bad_request
    assert "neither a string nor a list of blocks" in request_pair_html(bad)


def test_code_at_line_html_lights_the_line_in_the_learners_code():
    shown = code_at_line_html(CORRECT_LOOP, 7, "KeyError raised here")
    lit = shown[shown.index("ls-anchor"):]
    assert lit.startswith('ls-anchor"><span class="ls-ln">7</span>') and "◀ KeyError raised here" in lit
    assert '<span class="ls-ln">4</span>' in shown and '<span class="ls-ln">3</span>' not in shown
    assert code_at_line_html(CORRECT_LOOP, 999, "x") == "" and code_at_line_html("", 1, "x") == ""


def test_problem_line_reads_the_line_a_problem_names():
    assert problem_line("line 2: '(' was never closed") == 2
    assert problem_line("the file defines no run_agent function") is None


def test_the_words_for_a_passing_check():
    check = check_loop(CORRECT_LOOP, ["add_then_answer", "refusal"], FAST)
    assert check_headline(check).startswith("**2 of 2 scripts pass: well done.**")
    assert script_label(check.scripts[0]) == (":green[:material/check_circle:] Add two numbers, then answer · "
                                              "`add_then_answer` · :green[pass]")


def test_the_words_for_a_failing_check_name_the_mistake():
    check = check_loop(with_bug((APPEND_REPLY, "")), ["add_then_answer", "refusal"], FAST)
    assert check_headline(check) == ("**1 of 2 scripts pass.** The failing script is open below: it shows where "
                                     "your loop parts from the reference.")
    failed = check.scripts[0]
    assert script_label(failed).endswith(":red[**bad request**] · :gray[reply not appended]")
    assert failure_headline(failed).startswith("**Request 2 was refused**, as the real API would refuse it: "
                                               "messages: roles must alternate")
    assert "(`reply_not_appended`)" in mistake_words(failed) and mistake_words(check.scripts[1]) is None


def test_other_failures_read_as_their_summary():
    result = one(with_bug(*MISTAKE_CASES["not_a_string"][0]), "add_then_answer")
    assert failure_headline(result) == "**The output differs from the reference at line 2**"
    raised = one(with_bug((ANSWER, "            return {}['text']\n")), "add_then_answer")
    assert failure_headline(raised) == "**KeyError: 'text' at line 10: return \\{\\}\\['text'\\]**"
    assert check_headline(LoopCheck(problem="line 2: '(' was never closed")) == (
        "**Not checked:** line 2: '\\(' was never closed")


def test_every_verdict_has_words():
    from agent.exercise import VERDICTS

    assert set(VERDICTS) == set(exercise_view.VERDICT_WORDS)
