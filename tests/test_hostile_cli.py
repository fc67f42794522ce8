"""Hostile and careless files at the command line: one line on stderr and exit status 2, never a traceback or a hang.

Each case is one the hardening review saw break (issue 10), run as a person runs it: `python -m agent` in a
subprocess, on real files, a real FIFO and the real /dev/zero.
"""

import io
import json
import os
import subprocess
import sys

import pytest

from agent.untrusted import MAX_DEPTH, UntrustedInputError, parse_json, read_limited

GOOD_REPLY = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}
USER = {"role": "user", "content": "hi"}


def agent(*args, stdin=None, timeout=30):
    return subprocess.run([sys.executable, "-m", "agent", *map(str, args)], capture_output=True, text=True,
                          input=stdin, timeout=timeout, env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def assert_one_line_refusal(done, *words):
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def write(tmp_path, text, name="hostile.json"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def script_text(**overrides):
    return json.dumps({"replies": [GOOD_REPLY], **overrides})


DEEP = "[" * 100_000 + "]" * 100_000
HUGE_INT = "1" * 4301


@pytest.mark.parametrize("command", ["validate", "run", "check-request"])
def test_json_nested_100000_deep_is_refused_in_words(tmp_path, command):
    path = write(tmp_path, '{"replies": ' + DEEP + "}")
    assert_one_line_refusal(agent(command, path), f"nested more than {MAX_DEPTH} deep")


@pytest.mark.parametrize("command", ["validate", "run", "check-request"])
def test_an_integer_of_4301_digits_is_refused_in_words(tmp_path, command):
    body = {"model": "m", "max_tokens": 1, "messages": [USER]} if command == "check-request" else None
    text = json.dumps(body).replace('"max_tokens": 1', f'"max_tokens": {HUGE_INT}') if body else \
        script_text(max_turns=1).replace('"max_turns": 1', f'"max_turns": {HUGE_INT}')
    assert_one_line_refusal(agent(command, write(tmp_path, text)), "a number of 4,301 characters")


@pytest.mark.parametrize("kind", [["text"], {"text": 1}])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_block_type_that_is_a_list_or_an_object_is_refused(tmp_path, command, kind):
    reply = {"stop_reason": "end_turn", "content": [{"type": kind, "text": "x"}]}
    assert_one_line_refusal(agent(command, write(tmp_path, json.dumps({"replies": [reply]}))),
                            "replies[0].content[0]", "a block's type must be a string")


@pytest.mark.parametrize("tool", [{"name": "add"}, ["add"]])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_tools_entry_that_is_an_object_or_a_list_is_refused(tmp_path, command, tool):
    assert_one_line_refusal(agent(command, write(tmp_path, script_text(tools=[tool]))),
                            "tools[0]", "a tool is named by a string")


@pytest.mark.parametrize("kind", [["text"], {"a": 1}])
def test_check_request_with_an_unhashable_block_type_is_one_line(tmp_path, kind):
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": kind}]}]}
    done = agent("check-request", write(tmp_path, json.dumps(body)))
    # A refusal of the request (exit 1, "bad request: ...") or a refusal of the input (exit 2): never a traceback.
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done
    assert len((done.stdout + done.stderr).strip().splitlines()) == 1, done


SURROGATE = "\\ud800"
SURROGATE_PLACES = {
    "a text": {"replies": [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "@"}]}]},
    "a stop reason": {"replies": [{"stop_reason": "@", "content": [{"type": "text", "text": "x"}]}]},
    "a tool name": {"replies": [{"stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "@", "input": {}}]}, GOOD_REPLY]},
    "a tool input": {"replies": [{"stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": "@"}}]}, GOOD_REPLY]},
}


@pytest.mark.parametrize("place", SURROGATE_PLACES)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_lone_surrogate_is_refused_before_it_is_printed(tmp_path, command, place):
    text = json.dumps(SURROGATE_PLACES[place]).replace('"@"', f'"{SURROGATE}"')
    assert_one_line_refusal(agent(command, write(tmp_path, text)), "lone surrogate")


@pytest.mark.parametrize("status", [10**30, -5, 999, 200, 0, True, 1.5])
def test_an_error_entry_with_a_status_the_api_never_answers_is_refused(tmp_path, status):
    error = {"status": status, "type": "overloaded_error", "message": "Overloaded"}
    done = agent("validate", write(tmp_path, json.dumps({"replies": [{"error": error}, GOOD_REPLY]})))
    assert_one_line_refusal(done, "replies[0].error")


@pytest.mark.parametrize("retry_after", ["NaN", "Infinity", "-Infinity", "1e999", "-1", "1e30"])
def test_an_error_entry_with_a_retry_after_that_is_not_a_sane_number_is_refused(tmp_path, retry_after):
    error = {"status": 429, "type": "rate_limit_error", "message": "slow down", "retry_after": "@"}
    text = json.dumps({"replies": [{"error": error}, GOOD_REPLY]}).replace('"@"', retry_after)
    done = agent("validate", write(tmp_path, text))
    assert_one_line_refusal(done)


def test_a_recorded_mid_stream_error_with_status_200_is_still_a_script(tmp_path):
    error = {"status": 200, "type": "overloaded_error", "message": "Overloaded", "mid_stream": True}
    done = agent("validate", write(tmp_path, json.dumps({"replies": [{"error": error}, GOOD_REPLY]})))
    assert done.returncode == 0, done


@pytest.mark.parametrize("command", ["validate", "run", "check-request"])
def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path, command):
    fifo = tmp_path / "script.json"
    os.mkfifo(fifo)
    assert_one_line_refusal(agent(command, fifo, timeout=20), "a FIFO, not a regular file")


@pytest.mark.parametrize("command", ["validate", "run", "check-request"])
def test_dev_zero_is_refused_unread(command):
    assert_one_line_refusal(agent(command, "/dev/zero", timeout=20), "a device, not a regular file")


def test_a_directory_and_a_missing_file_are_refused_in_words(tmp_path):
    assert_one_line_refusal(agent("validate", tmp_path), "a directory")
    assert_one_line_refusal(agent("check-request", tmp_path / "none.json"), "cannot read it")


def test_standard_input_beyond_the_limit_is_refused():
    assert read_limited(io.BytesIO(b"12345"), "-", max_bytes=5) == b"12345"
    with pytest.raises(UntrustedInputError, match="more than the 4 bytes read"):
        read_limited(io.BytesIO(b"12345"), "-", max_bytes=4)


def test_a_task_the_terminal_cannot_encode_is_printed_escaped_not_a_crash(tmp_path):
    done = subprocess.run([sys.executable, "-m", "agent", "run", "add_then_answer", "--task", "caf\u00e9 \U0001f600"],
                          capture_output=True, text=True, timeout=30, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done


def test_huge_usage_numbers_are_refused(tmp_path):
    reply = {**GOOD_REPLY, "usage": {"input_tokens": 10**30, "output_tokens": 1}}
    assert_one_line_refusal(agent("validate", write(tmp_path, json.dumps({"replies": [reply]}))), "usage")


@pytest.mark.parametrize("text, words", [
    ("[]", "a JSON object is expected, not a JSON array"),
    ('"\\udfff"', "lone surrogate"),
    ("[NaN]", "NaN is not a JSON number"),
    ("[1e400]", "too large to hold"),
    (b"\xff{}", "not UTF-8"),
])
def test_the_untrusted_reader_says_each_limit_in_words(text, words):
    with pytest.raises(UntrustedInputError, match=words):
        parse_json(text, "body", expect=dict)
