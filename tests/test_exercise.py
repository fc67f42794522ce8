"""The "write your own loop" exercise: the check, its mistake catalogue, the sandbox's limits, the CLI.

Every classic mistake is a correct loop with exactly one thing changed; the
check must catch it and name it. Every learner's loop here really runs in the
sandbox's child process, as a learner's would.
"""

import ast
import json
from pathlib import Path

import pytest

from agent.__main__ import main
from agent.exercise import (
    ALLOW_CODE_ENV,
    MISTAKES,
    ExerciseError,
    Limits,
    check_loop,
    code_runner_enabled,
    code_runner_notice,
    exercise_script_names,
    format_check,
    reference_run,
    starter_source,
)
from agent.models.fake import FakeModel
from agent.scripts import load_script
from agent.summary import console_lines

ROOT = Path(__file__).resolve().parent.parent
CORRECT_LOOP = (ROOT / "examples" / "correct_loop.py").read_text()

APPEND_REPLY = '        messages.append({"role": "assistant", "content": reply["content"]})\n'
APPEND_RESULTS = '        messages.append({"role": "user", "content": results})\n'
STOP_CHECK = ('        if reply["stop_reason"] != "tool_use":\n'
              '            return f"stopped: {reply[\'stop_reason\']}"\n')
ANSWER = '            return "".join(block["text"] for block in reply["content"] if block["type"] == "text")\n'
RUN_CALL = "                result = run_tool(block)\n"
PRINT_CALL = "                print(f\"turn {turn}: {block['name']} {shown} -> {result['content']}\")\n"
KEEP_RESULT = "                results.append(result)\n"
TURNS = "    for turn in range(1, max_turns + 1):\n"
LIMIT_MESSAGE = '    return f"stopped: no answer after {max_turns} turns"\n'


def with_bug(*changes):
    """The correct loop with each (old, new) replaced: one bug, written out where it happens."""
    source = CORRECT_LOOP
    for old, new in changes:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


FAST = Limits(seconds=10.0)


def check_one(source, *scripts, limits=FAST):
    check = check_loop(source, list(scripts), limits)
    assert check.problem is None, check.problem
    return check.scripts


# ---- the interface the learner writes against --------------------------------------------------------------


def test_fake_model_answers_a_call_with_messages_alone_with_a_plain_dict():
    model = FakeModel(load_script("add_then_answer"))
    reply = model.create([{"role": "user", "content": "What is 2 + 3?"}])
    assert type(reply) is dict
    assert reply["stop_reason"] == "tool_use" and reply["content"][1]["name"] == "add"
    assert json.loads(json.dumps(reply)) == reply


def test_starter_is_the_signature_and_the_docstring_only():
    tree = ast.parse(starter_source())
    [function] = tree.body
    assert isinstance(function, ast.FunctionDef) and function.name == "run_agent"
    assert [arg.arg for arg in function.args.args] == ["task", "model", "max_turns"]
    [docstring] = function.body
    assert isinstance(docstring, ast.Expr) and "run_tool(block)" in docstring.value.value


def test_the_starter_is_checked_without_a_crash_and_fails_every_script_by_name():
    check = check_loop(starter_source(), limits=FAST)
    assert check.problem is None and not check.passed
    assert len(check.scripts) == len(exercise_script_names())
    assert {(c.verdict, c.mistake) for c in check.scripts} == {("output", "not_a_string")}


def test_a_correct_loop_passes_every_exercise_script():
    check = check_loop(CORRECT_LOOP, limits=FAST)
    assert check.passed, "\n".join(format_check(check))
    assert [c.script for c in check.scripts] == exercise_script_names()
    for result in check.scripts:
        assert result.actual == result.expected
    assert check.summary == f"{len(check.scripts)} of {len(check.scripts)} scripts pass: well done"
    json.dumps(check.to_dict())  # plain data, for the page


def test_the_reference_is_the_engines_own_run():
    script = load_script("two_file_search")
    lines = "\n".join(console_lines(reference_run(script))).split("\n")
    [result] = check_one(CORRECT_LOOP, "two_file_search")
    assert result.expected == lines == script.expected_output


def test_exercise_scripts_leave_out_the_injected_api_error_and_refuse_it_when_named():
    names = exercise_script_names()
    assert "overloaded_529" not in names and {"runaway", "cut_off_reply", "refusal"} <= set(names)
    with pytest.raises(ExerciseError, match="overloaded_529: this script injects an API error"):
        check_loop(CORRECT_LOOP, ["overloaded_529"])


# ---- the mistake catalogue ---------------------------------------------------------------------------------

MISTAKE_CASES = {
    "reply_not_appended": ([(APPEND_REPLY, "")], ["add_then_answer"], "bad_request"),
    "one_message_per_result": (
        [(KEEP_RESULT, '                messages.append({"role": "user", "content": [result]})\n'),
         (APPEND_RESULTS, "")], ["two_calls_one_reply"], "bad_request"),
    "wrong_tool_use_id": (
        [(KEEP_RESULT, '                results.append({"type": "tool_result", "tool_use_id": f"call_{turn}", '
                       '"content": result["content"]})\n')], ["add_then_answer"], "bad_request"),
    "call_not_answered": (
        [(KEEP_RESULT, "                results.append(result)\n                break\n")],
        ["two_calls_one_reply"], "bad_request"),
    "results_not_first": (
        [(APPEND_RESULTS, '        messages.append({"role": "user", "content": [{"type": "text", "text": "Here:"}]'
                          ' + results})\n')], ["add_then_answer"], "bad_request"),
    "results_not_appended": ([(APPEND_RESULTS, "")], ["add_then_answer"], "bad_request"),
    "content_changed": (
        [(APPEND_REPLY, '        messages.append({"role": "assistant", "content": '
                        '[b for b in reply["content"] if b["type"] != "thinking"]})\n')],
        ["thinking_then_answer"], "bad_request"),
    "whole_reply_appended": (
        [(APPEND_REPLY, '        messages.append({"role": "assistant", "content": reply})\n')],
        ["add_then_answer"], "bad_request"),
    "kept_going": ([(STOP_CHECK, '        if reply["stop_reason"] != "tool_use":\n            continue\n')],
                   ["pause_turn"], "bad_request"),
    # Running the calls of a max_tokens or refusal reply (the stop check missing): caught on both.
    "ran_stopped_call": ([(STOP_CHECK, "")], ["cut_off_reply", "refusal"], "too_many_requests"),
    "no_turn_limit": ([(TURNS, "    turn = 0\n    while True:\n        turn += 1\n")], ["runaway"],
                      "too_many_requests"),
    "stopped_early": ([(TURNS, "    for turn in range(1, max_turns):\n")], ["runaway"], "output"),
    "thinking_in_answer": (
        [(ANSWER, '            return "".join(b.get("text") or b.get("thinking", "") for b in reply["content"])\n')],
        ["thinking_then_answer"], "output"),
    "answer_text": ([(ANSWER, '            return reply["content"][-1]["text"][:-1]\n')], ["add_then_answer"],
                    "output"),
    "wrong_limit_message": ([(LIMIT_MESSAGE, '    return "stopped: too many turns"\n')], ["runaway"], "output"),
    "wrong_stop_message": ([(STOP_CHECK, '        if reply["stop_reason"] != "tool_use":\n'
                                         '            return "stopped"\n')], ["refusal"], "output"),
    "not_a_string": ([(ANSWER, "            return reply\n")], ["add_then_answer"], "output"),
    "tool_lines": ([(PRINT_CALL, "                print(f\"turn {turn - 1}: {block['name']} -> "
                                 "{result['content']}\")\n")], ["add_then_answer"], "output"),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKE_CASES))
def test_each_classic_mistake_is_caught_and_named(mistake):
    changes, scripts, verdict = MISTAKE_CASES[mistake]
    for result in check_one(with_bug(*changes), *scripts):
        assert (result.verdict, result.mistake) == (verdict, mistake), result.summary
        assert result.mistake_text == MISTAKES[mistake]
        assert f"mistake ({mistake})" in "\n".join(format_check_of(result))


def format_check_of(result):
    from agent.exercise import LoopCheck

    return format_check(LoopCheck([result]))


def test_every_named_mistake_has_a_case():
    from naming_corpus import CORPORA, corpus
    from test_exercise_judge import NAMED_CASES

    labelled = {loop.label for folder in CORPORA for loop in corpus(folder) if loop.expects_name}
    assert set(MISTAKE_CASES) | set(NAMED_CASES) | labelled | {"endless_loop"} == set(MISTAKES)


def test_a_bad_request_shows_both_arrays_and_points_at_the_offending_message():
    [result] = check_one(with_bug((APPEND_REPLY, "")), "add_then_answer")
    bad = result.bad_request
    assert bad.request == 2 and bad.reason.startswith('messages: roles must alternate')
    assert [m["role"] for m in bad.messages] == ["user", "user"] and bad.offending_index == 1
    assert bad.messages[1]["content"][0]["tool_use_id"] == "toolu_01"
    assert [m["role"] for m in bad.reference_messages] == ["user", "assistant", "user"]
    assert result.actual[-2:] == [f"result: bad request: {bad.reason}", "messages sent each turn: 1, 2"]
    text = "\n".join(format_check_of(result))
    assert "> [1] user: tool_result toolu_01: 5" in text
    assert '[1] assistant: thinking (empty) · tool_use toolu_01 add {"a": 2, "b": 3}' in text


def test_the_offending_index_is_the_apis_own_where_it_gives_one():
    [result] = check_one(with_bug(MISTAKE_CASES["one_message_per_result"][0][0], (APPEND_RESULTS, "")),
                         "two_calls_one_reply")
    assert result.bad_request.offending_index == 3
    [result] = check_one(with_bug(*MISTAKE_CASES["wrong_tool_use_id"][0]), "add_then_answer")
    assert result.bad_request.reason.startswith("messages.2.content.0: unexpected `tool_use_id`")
    assert result.bad_request.offending_index == 2


def test_a_loop_that_swallows_the_refusal_is_still_caught():
    source = with_bug(("        reply = model.create(messages)\n",
                       "        try:\n            reply = model.create(messages)\n"
                       "        except Exception:\n            return \"all good\"\n"), (APPEND_REPLY, ""))
    [result] = check_one(source, "add_then_answer")
    assert (result.verdict, result.mistake) == ("bad_request", "reply_not_appended")
    assert "result: all good" in result.actual


def test_a_cut_off_call_run_then_hidden_still_fails():
    # The calls run before the stop check: the result is right, but a half-written call ran.
    source = with_bug((STOP_CHECK, ""), (APPEND_RESULTS, APPEND_RESULTS + STOP_CHECK))
    [result] = check_one(source, "refusal")
    assert (result.verdict, result.mistake) == ("output", "ran_stopped_call")
    assert result.actual[0].startswith("turn 1: word_count")


def test_an_exception_names_the_line_of_the_learners_file():
    source = with_bug((ANSWER, '            return "".join(b["text"] for b in reply["content"])\n'))
    [result] = check_one(source, "thinking_then_answer")
    line = source.splitlines().index('            return "".join(b["text"] for b in reply["content"])') + 1
    assert result.verdict == "exception" and result.mistake == "answer_text"
    assert (result.error.type, result.error.message, result.error.line) == ("KeyError", "'text'", line)
    assert result.error.code == 'return "".join(b["text"] for b in reply["content"])'
    assert result.summary == f"KeyError: 'text' at line {line}: {result.error.code}"


def test_a_file_that_cannot_be_checked_says_why_in_one_line():
    assert check_loop("def run_agent(task, model, max_turns)\n    pass\n").problem.startswith("line 1: ")
    assert check_loop("x = 1\n").problem == "the file defines no run_agent function"
    assert check_loop("def run_agent(task):\n    pass\n").problem == (
        "run_agent must take three arguments: run_agent(task, model, max_turns)")
    assert check_loop("import nothing_by_this_name\n").problem.startswith(
        "running the file raised ModuleNotFoundError")


def test_the_learners_code_never_sees_the_operators_api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-for-the-test")
    source = with_bug((TURNS, '    import os\n    print(os.environ.get("ANTHROPIC_API_KEY"))\n' + TURNS))
    [result] = check_one(source, "pause_turn")
    assert result.actual[0] == "None"
    assert "sk-ant-secret" not in json.dumps(result.__dict__, default=str)


# ---- the sandbox's limits ----------------------------------------------------------------------------------

HANGS_ON_ADDITION = with_bug((TURNS, '    while "2 + 3" in task:\n        pass\n' + TURNS))


def test_an_endless_loop_ends_at_the_time_limit_and_the_next_script_still_runs():
    hang, after = check_one(HANGS_ON_ADDITION, "add_then_answer", "two_file_search", limits=Limits(seconds=1.0))
    assert (hang.verdict, hang.mistake) == ("time_limit", "endless_loop")
    assert hang.summary == "did not finish within 1 s (time limit)"
    assert hang.actual == [] and "did not finish within 1 s" in "\n".join(format_check_of(hang))  # nothing it printed
    assert after.passed


def test_a_loop_that_hangs_everywhere_stops_the_check_at_its_total_time():
    source = with_bug((TURNS, "    while True:\n        pass\n" + TURNS))
    hang, *rest = check_one(source, "add_then_answer", "two_file_search", "refusal",
                            limits=Limits(seconds=1.0, total_seconds=0.5))
    assert hang.verdict == "time_limit"
    not_run = ("not_run", "not run: the check had already taken over 0.5 s")
    assert [(r.verdict, r.summary) for r in rest] == [not_run, not_run]


def test_a_runaway_allocation_ends_at_the_memory_limit_and_the_next_script_still_runs():
    source = with_bug((TURNS, "    hoard = []\n    while task.startswith('What'):\n"
                              "        hoard.append(bytearray(16 << 20))\n" + TURNS))
    hoard, after = check_one(source, "add_then_answer", "two_file_search", limits=Limits(seconds=10, memory_mb=200))
    line = source.splitlines().index("        hoard.append(bytearray(16 << 20))") + 1
    assert hoard.verdict == "memory_limit" and hoard.error.type == "MemoryError"
    assert hoard.summary == f"ran out of memory (the limit is 200 MB) at line {line}: hoard.append(bytearray(16 << 20))"
    assert after.passed


def test_a_loop_that_ends_its_own_process_is_a_crash_and_the_next_script_still_runs():
    source = with_bug((TURNS, "    import os\n    if '2 + 3' in task:\n        os._exit(3)\n" + TURNS))
    crash, after = check_one(source, "add_then_answer", "two_file_search")
    assert crash.verdict == "crash" and "exit status 3" in crash.summary
    assert after.passed


def test_a_file_whose_top_level_never_finishes_is_stopped():
    check = check_loop("while True:\n    pass\n", ["add_then_answer"], Limits(seconds=1.0))
    assert check.problem == "loading the file took longer than 1 s (time limit)"


def test_writing_to_the_terminal_directly_is_printed_output_not_a_garbled_report():
    source = with_bug((TURNS, "    import os\n    os.write(1, b'not json\\n')\n" + TURNS))
    [result] = check_one(source, "add_then_answer")
    assert result.actual[0] == "not json" and (result.verdict, result.mistake) == ("output", "extra_print")


# ---- the runner's switch for the page ----------------------------------------------------------------------


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_the_code_runner_is_on_for_loopback_addresses(address):
    assert code_runner_enabled(address, environ={})


@pytest.mark.parametrize("address", ["0.0.0.0", "", None, "192.168.1.20", "::", "example.org"])
def test_the_code_runner_is_off_for_other_addresses_unless_the_operator_turns_it_on(address):
    assert not code_runner_enabled(address, environ={}, sandboxed=False)
    assert not code_runner_enabled(address, environ={ALLOW_CODE_ENV: "0"}, sandboxed=False)
    assert code_runner_enabled(address, environ={ALLOW_CODE_ENV: "1"}, sandboxed=False)
    assert code_runner_enabled(address, environ={}, sandboxed=True)  # bubblewrap walls the code off
    assert f"{ALLOW_CODE_ENV}=1" in code_runner_notice(address) and "127.0.0.1" in code_runner_notice(address)


# ---- python -m agent check-loop ----------------------------------------------------------------------------


def test_check_loop_command_passes_a_correct_loop_with_status_0(tmp_path, capsys):
    path = tmp_path / "my_loop.py"
    path.write_text(CORRECT_LOOP)
    assert main(["check-loop", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(("sandbox: bubblewrap (Your code runs inside bubblewrap",
                                "sandbox: process limits ("))
    assert lines[1:-1] == [f"pass  {name}" for name in exercise_script_names()]
    assert lines[-1].endswith("scripts pass: well done")


def test_check_loop_command_reports_a_failure_with_status_1(tmp_path, capsys):
    path = tmp_path / "my_loop.py"
    path.write_text(with_bug((APPEND_REPLY, "")))
    assert main(["check-loop", str(path), "--script", "add_then_answer", "--script", "cut_off_reply"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  add_then_answer: bad request (request 2): messages: roles must alternate" in out
    assert "mistake (reply_not_appended)" in out and "pass  cut_off_reply" in out
    assert out.splitlines()[-1] == "1 of 2 scripts pass"


def test_check_loop_command_shows_the_first_differing_line(tmp_path, capsys):
    path = tmp_path / "my_loop.py"
    path.write_text(with_bug(*MISTAKE_CASES["wrong_limit_message"][0]))
    assert main(["check-loop", str(path), "--script", "runaway"]) == 1
    out = capsys.readouterr().out
    assert "expected line 41: result: stopped: no answer after 40 turns" in out
    assert "your line 41:     result: stopped: too many turns" in out


@pytest.mark.parametrize("argv, message", [
    (["check-loop", "no_such_file.py"], "no_such_file.py: cannot read it"),
    (["check-loop"], "name your file"),
    (["check-loop", "x.py", "--script", "no_such_script"], "no built-in script of that name"),
    (["check-loop", "x.py", "--time-limit", "0"], "--time-limit 0 must be above 0"),
])
def test_check_loop_command_refuses_bad_input_in_one_line(argv, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text(CORRECT_LOOP)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_check_loop_command_prints_the_starter(capsys):
    assert main(["check-loop", "--starter"]) == 0
    assert capsys.readouterr().out == starter_source()
