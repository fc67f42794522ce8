"""The command line, run as a person runs it: `python -m agent ...` in a subprocess."""

import json
import subprocess
import sys

import pytest

from agent.scripts import builtin_names, load_script

REFERENCE = 'turn 1: add {"a": 2, "b": 3} -> 5\nresult: 2 + 3 is 5.\nmessages sent each turn: 1, 3\n'


def agent(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "agent", *map(str, args)], capture_output=True, text=True,
                          input=stdin, timeout=60)


def test_the_reference_run_prints_exactly_the_lessons_output():
    done = agent("run", "add_then_answer")
    assert (done.returncode, done.stdout, done.stderr) == (0, REFERENCE, "")


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_script_prints_its_expected_output(name):
    done = agent("run", name)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.rstrip("\n").split("\n") == load_script(name).expected_output


def test_run_takes_a_path_and_the_options(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(load_script("runaway").to_dict()))
    done = agent("run", path, "--max-turns", "2", "--tools", "add,word_count", "--task", "anything")
    assert done.stdout.splitlines()[-2:] == ["result: stopped: no answer after 2 turns",
                                             "messages sent each turn: 1, 3"]


def test_the_tool_option_reaches_the_allowlist():
    done = agent("run", "add_then_answer", "--tools", "word_count")
    assert done.stdout.splitlines()[0] == (
        'turn 1: add {"a": 2, "b": 3} -> error: add is not available to this agent (its tools: word_count)')


@pytest.mark.parametrize("args, message", [
    (["run", "nope"], "error: nope: no such file, and no built-in script of that name"),
    (["run", "add_then_answer", "--max-turns", "0"], "argument --max-turns: 0 must be at least 1"),
    (["run", "add_then_answer", "--tools", "add,rm"], "argument --tools: no tool named 'rm'"),
    (["run", "add_then_answer", "--mode", "loose"], "argument --mode: invalid choice: 'loose'"),
    (["launch"], "argument command: invalid choice: 'launch'"),
    (["run", "add_then_answer", "--server.port", "1"], "unrecognized arguments: --server.port 1"),
    (["serve-page", "--page", "nope.py"], "error: serve-page: nope.py: no such page"),
    (["serve-page", "--server.bogus", "1"], "error: serve-page: No such option '--server.bogus'"),
])
def test_bad_input_is_one_line_on_stderr_with_status_2(args, message):
    done = agent(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_bad_script_file_names_the_reply_and_field(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"replies": [{"stop_reason": "tool_use", "content": [
        {"type": "tool_use", "name": "add", "input": {}}]}]}))
    for command in ("run", "validate"):
        done = agent(command, path)
        assert done.returncode == 2
        assert done.stderr == f'error: {path}: replies[0].content[0]: tool_use needs an "id"\n'


def test_validate_says_ok_for_a_good_file():
    done = agent("validate", "add_then_answer")
    assert (done.returncode, done.stdout) == (0, "ok: add_then_answer: 2 replies\n")


def test_scripts_lists_every_builtin_with_its_title():
    lines = agent("scripts").stdout.splitlines()
    assert len(lines) == len(builtin_names())
    assert any(line.startswith("add_then_answer") and "Add two numbers, then answer" in line for line in lines)


def test_check_request_says_ok_or_each_problem(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}))
    assert (agent("check-request", good).stdout, agent("check-request", good).returncode) == ("ok\n", 0)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure "}]))
    lesson = agent("check-request", bad)
    assert (lesson.returncode, lesson.stdout) == (1, 'bad request: messages: the final message must use the "user" '
                                                     'role\n')
    real = agent("check-request", bad, "--mode", "real-api")
    assert real.stdout == "bad request: messages: final assistant content cannot end with trailing whitespace\n"


def test_check_request_reads_standard_input_and_refuses_non_json():
    assert agent("check-request", "-", stdin='[{"role": "user", "content": "hi"}]').stdout == "ok\n"
    done = agent("check-request", "-", stdin="not json")
    assert done.returncode == 2 and done.stderr.startswith("error: -: not JSON")


def test_a_fake_run_imports_neither_streamlit_nor_anthropic():
    code = ("import sys; from agent.__main__ import main; main(['run', 'add_then_answer']); "
            "print([m for m in ('streamlit', 'anthropic', 'pydantic') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "[]"


def test_toy_answers_a_typed_task_through_the_loop():
    done = agent("toy", "What is 2 + 3 and 10 + 20?")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ['turn 1: add {"a": 2, "b": 3} -> 5', 'turn 1: add {"a": 10, "b": 20} -> 30',
                                        "result: 2 + 3 is 5; 10 + 20 is 30.", "messages sent each turn: 1, 3"]


def test_toy_without_the_tool_it_needs_says_so_and_never_calls_it():
    done = agent("toy", "What is 2 + 3?", "--tools", "word_count")
    assert done.returncode == 0 and "not given it" in done.stdout and "add {" not in done.stdout
