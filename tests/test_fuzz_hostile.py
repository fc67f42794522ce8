"""A property-based fuzzer over script files and request bodies (issue 10), with a bounded number of examples.

The rule it holds the CLI and the stand-in server to: the CLI exits 0 or 2 (check-request: 1 for a request it
refuses), and a refusal is one line on stderr, never a traceback, never "failed unexpectedly"; the server answers
every body with 200 or a 4xx in the API's JSON error shape with a request-id, never a 500.
"""

import contextlib
import http.client
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.__main__ import main
from agent.real import running_server
from agent.scripts import TOP_LEVEL_KEYS, parse_script

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- hostile values

HUGE = "@4301 digits@"  # json.dumps cannot write an int of 4,301 digits: this stands in, replaced in the text
hostile_strings = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["\ud800", "a\udfffb", "![x](http://127.0.0.1:9/t.png)", "# h", "<img src=x>", "`", "\x00",
                     "tool_use", "end_turn", "text", "add", "toolu_01", "bad id", "x" * 300]),
)
hostile_numbers = st.one_of(
    st.integers(-10, 600), st.integers(), st.sampled_from([10**30, -5, 999, 200, 529, 429, HUGE]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
)
leaves = st.none() | hostile_numbers | hostile_strings
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_strings, inner,
                                                                                             max_size=3), max_leaves=10)
block_types = st.sampled_from(["text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image"]) | values
blocks = st.fixed_dictionaries({"type": block_types}, optional={
    "text": values, "thinking": values, "data": values, "signature": values, "id": values, "name": values,
    "input": values, "tool_use_id": values, "content": values, "is_error": values})
replies = st.one_of(
    st.fixed_dictionaries({"stop_reason": st.sampled_from(["end_turn", "max_tokens"]) | hostile_strings | values,
                           "content": st.lists(blocks, max_size=3) | st.lists(blocks | values, max_size=3)},
                          optional={"usage": st.dictionaries(hostile_strings, hostile_numbers, max_size=3) | values}),
    st.fixed_dictionaries({"error": st.fixed_dictionaries({}, optional={
        "status": hostile_numbers | values, "type": hostile_strings | values, "message": hostile_strings | values,
        "retry_after": hostile_numbers | values, "mid_stream": values}) | values}),
    values,
)
GOOD_REPLY = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}
TOOL_REPLY = {"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add",
                                                      "input": {"a": 1, "b": 2}}]}
wild_scripts = st.fixed_dictionaries({"replies": st.lists(replies, max_size=4) | values}, optional={
    **{key: values | hostile_strings for key in TOP_LEVEL_KEYS if key not in ("replies", "tools", "max_turns")},
    "tools": st.lists(st.sampled_from(["add", "word_count", "upper"]) | values, max_size=3) | values,
    "max_turns": hostile_numbers | values})
# A good script with one field made hostile: the checks after the first one get their share of the examples.
one_bad_field = st.one_of(
    st.builds(lambda reply: {"replies": [TOOL_REPLY, reply, GOOD_REPLY]}, replies),
    st.builds(lambda key, value: {"replies": [TOOL_REPLY, GOOD_REPLY], key: value},
              st.sampled_from([key for key in TOP_LEVEL_KEYS if key != "replies"]), values | hostile_numbers),
    st.builds(lambda tools: {"replies": [TOOL_REPLY, GOOD_REPLY], "tools": tools},
              st.lists(st.sampled_from(["add", "word_count"]) | values, min_size=1, max_size=3)),
)
scripts = wild_scripts | one_bad_field


def as_json_text(value, mangle: int) -> str:
    """The value as JSON (NaN and Infinity as Python writes them), sometimes mangled: cut short, or nested deep."""
    text = json.dumps(value, allow_nan=True).replace(json.dumps(HUGE), "7" * 4301)
    if mangle == 1:
        return text[: len(text) // 2]
    if mangle == 2:
        return "[" * 5000 + text + "]" * 5000
    if mangle == 3:
        return '{"replies": ' + "[" * 100_000 + "]" * 100_000 + "}"
    return text


# ---------------------------------------------------------------- the CLI, in-process (the subprocess cases are in
# test_hostile_cli.py); its output streams as a terminal's would be


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def assert_cli_rule(code: int, out: str, err: str, verdicts: tuple[int, ...] = (0, 2)) -> None:
    assert code in verdicts, (code, out, err)
    assert "Traceback" not in err and "failed unexpectedly" not in err, err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    else:
        assert err == "", err
    out.encode("utf-8")  # whatever was printed is text a terminal can take (no lone surrogate)


@FUZZ
@given(scripts, st.integers(0, 3))
def test_validate_and_run_answer_any_script_file_by_the_rule(tmp_path_factory, script, mangle):
    path = tmp_path_factory.mktemp("fuzz") / "script.json"
    path.write_text(as_json_text(script, mangle), encoding="utf-8", errors="surrogatepass")
    assert_cli_rule(*cli("validate", str(path)))
    assert_cli_rule(*cli("run", str(path), "--max-turns", "5"))


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_as_a_script_file_are_answered_by_the_rule(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "bytes.json"
    path.write_bytes(data)
    assert_cli_rule(*cli("validate", str(path)))


# ---------------------------------------------------------------- request bodies: the server and check-request

roles = st.sampled_from(["user", "assistant", "system"]) | values
messages = st.lists(st.fixed_dictionaries({"role": roles, "content": hostile_strings | st.lists(blocks | values,
                                                                                                max_size=3) | values}),
                    max_size=4) | values
bodies = st.fixed_dictionaries({}, optional={
    "model": hostile_strings | values, "max_tokens": hostile_numbers | values, "messages": messages,
    "system": hostile_strings | values, "tools": st.lists(values, max_size=2) | values,
    "stream": st.booleans() | values}) | values

SERVED = parse_script({"replies": [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}] * 3},
                      name="fuzz")


@FUZZ
@given(bodies, st.integers(0, 2), st.sampled_from(["/v1/messages", "/v1/messages/count_tokens"]))
def test_the_server_answers_any_body_with_200_or_a_4xx_in_the_api_shape(stand_in, body, mangle, path):
    text = as_json_text(body, mangle)
    connection = http.client.HTTPConnection(stand_in.server_address[0], stand_in.server_address[1], timeout=20)
    try:
        connection.request("POST", path, text.encode("utf-8", "surrogatepass"),
                           {"x-api-key": "k", "content-type": "application/json"})
        answer = connection.getresponse()
        raw = answer.read()
    finally:
        connection.close()
    assert answer.getheader("request-id", "").startswith("req_")
    if answer.status == 200:
        return
    error = json.loads(raw)
    assert error["type"] == "error" and error["request_id"] == answer.getheader("request-id")
    assert 400 <= answer.status < 500, (answer.status, error)
    assert isinstance(error["error"]["message"], str) and error["error"]["message"]


@FUZZ
@given(bodies, st.integers(0, 2))
def test_check_request_answers_any_body_by_the_rule(tmp_path_factory, body, mangle):
    text = as_json_text(body, mangle)
    path = tmp_path_factory.mktemp("fuzz") / "body.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    code, out, err = cli("check-request", str(path))
    assert_cli_rule(code, out, err, verdicts=(0, 1, 2))
    if code == 1:
        assert out and all(line.startswith("bad request: ") for line in out.splitlines())


@pytest.fixture(scope="module")
def stand_in():
    with running_server(SERVED) as server:
        yield server

