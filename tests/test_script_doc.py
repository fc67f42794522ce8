"""docs/script-format.md holds true: its examples are taken, its refusals are refused word for word, its
defaults and lists are the checker's, and what it says the FakeModel does is what it does."""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agent.api.requests import RequestRejected
from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.models.hand_model import STOP_REASONS
from agent.real.server import running_server
from agent.scripts import (
    BLOCK_FIELDS,
    DEFAULT_MAX_TURNS,
    DEFAULT_TASK,
    ERROR_STATUSES,
    MAX_RETRY_AFTER,
    TOP_LEVEL_KEYS,
    ScriptError,
    parse_script,
    parse_script_text,
)
from agent.tools import TOOLS
from agent.untrusted import MAX_DEPTH, MAX_FILE_BYTES, MAX_NUMBER_CHARS

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "script-format.md").read_text()
EXAMPLES = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC, re.S)]
REFUSALS = re.findall(r"^\| `(\{.*\})` \| `(demo\.json: .*)` \|$", DOC, re.M)


def section(title: str) -> str:
    return DOC.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def table_column(text: str) -> list[str]:
    """The first column of a markdown table's body rows, backticks dropped."""
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("|---")]
    return [row.split("|")[1].strip().strip("`") for row in rows[1:]]


def test_the_doc_has_examples_and_refusals_to_check():
    assert len(EXAMPLES) >= 5 and len(REFUSALS) >= 10


def test_the_whole_file_example_validates_and_prints_its_expected_output(tmp_path):
    whole = EXAMPLES[0]
    path = tmp_path / "sum.json"
    path.write_text(json.dumps(whole))
    done = subprocess.run([sys.executable, "-m", "agent", "validate", str(path)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout == f"ok: {path}: 2 replies\n"
    done = subprocess.run([sys.executable, "-m", "agent", "run", str(path)], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert done.stdout.rstrip("\n").split("\n") == whole["expected_output"]


def test_every_entry_example_is_taken_as_a_reply_of_a_script():
    for example in EXAMPLES[1:]:
        assert "replies" not in example
        parse_script({"replies": [example]}, source="demo.json")


@pytest.mark.parametrize(("text", "said"), REFUSALS)
def test_each_refusal_in_the_doc_is_the_checker_s_own_line(text, said):
    with pytest.raises(ScriptError) as refused:
        parse_script_text(text, name="demo", source="demo.json")
    assert str(refused.value) == said


def test_the_key_table_is_the_checker_s_keys_and_defaults():
    keys = section("A whole file")
    assert set(table_column(keys)) == set(TOP_LEVEL_KEYS)
    default = parse_script({"replies": [{"stop_reason": "end_turn", "content": []}]}, name="demo")
    assert f"`{DEFAULT_TASK}`" in keys and default.task == DEFAULT_TASK
    assert ", ".join(f"`{name}`" for name in TOOLS) in keys and default.tools == list(TOOLS)
    assert f"| {DEFAULT_MAX_TURNS} |" in keys and default.max_turns == DEFAULT_MAX_TURNS
    assert default.title == "demo" and parse_script({"title": "", "replies": default.replies}, name="x").title == "x"
    assert parse_script({"tools": [], "replies": default.replies}).tools == []  # "it may be empty"
    page = (ROOT / "agent" / "page" / "sandbox_values.py").read_text()
    assert re.search(r"^MAX_TURNS_ON_PAGE = 500\b", page, re.M) and "at most 500" in keys


def test_the_lists_in_the_doc_are_the_checker_s_lists():
    replies = section("Replies")
    assert set(table_column(replies)) == set(BLOCK_FIELDS)
    assert ", ".join(f"`{reason}`" for reason in STOP_REASONS) in " ".join(replies.split())
    errors = " ".join(section("Errors in place of a reply").split())
    assert ", ".join(str(status) for status in sorted(ERROR_STATUSES)) in errors
    assert f"from 0 to {MAX_RETRY_AFTER}" in errors
    limits = " ".join(section("Files it will not read").split())
    assert f"larger than {MAX_FILE_BYTES // 2**20} MiB" in limits and f"more than {MAX_DEPTH} deep" in limits
    assert f"more than {MAX_NUMBER_CHARS} characters" in limits


def test_what_the_doc_says_the_fake_model_does():
    entries = [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_1", "name": "grep",
                                                        "input": {}}]},
               {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}},
               {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}]
    script = parse_script({"tools": ["add"], "replies": entries}, name="demo")
    model = FakeModel(script)
    with pytest.raises(RequestRejected):  # a refused request uses up no entry
        model.create([], system="", tools=[], max_tokens=16)
    assert model.calls == 0
    state = RunState("go", tool_names=["add"])
    first = step(state, model)  # a call to a tool not given: an error result, not a refused file
    assert first.reply["id"] == "msg_fake_0001" and first.tool_runs[0].is_error
    failed = step(state, model)
    assert failed.path == "model_error" and not failed.counted and state.turn == 1
    assert model.calls == 2  # the error entry used up its place
    last = step(state, model)
    assert last.reply["id"] == "msg_fake_0003" and state.result == "done"
    cut = parse_script({"replies": [EXAMPLES[1]]})  # the cut-off example: its call is never run
    cut_state = RunState("go")
    run_to_end(cut_state, FakeModel(cut))
    assert cut_state.records[0].path == "stopped" and cut_state.records[0].tool_runs == []
    calls = [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": f"toolu_{k}", "name": "add",
                                                      "input": {"a": k, "b": 1}}]} for k in (1, 2)]
    out = RunState("go", tool_names=["add"])
    run_to_end(out, FakeModel(parse_script({"replies": calls}, name="demo")))
    assert out.records[-1].path == "no_reply" and out.done
    assert out.result == "stopped: the script 'demo' has 2 replies and this is request 3: there is no reply to give"


def test_a_400_entry_ends_the_run_and_other_statuses_are_tried_again():
    bad = {"error": {"status": 400, "type": "invalid_request_error", "message": "no"}}
    state = RunState("go")
    step(state, FakeModel(parse_script({"replies": [bad]})))
    assert state.records[0].path == "bad_request" and state.done
    state = RunState("go")
    over = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}
    said = run_to_end(state, FakeModel(parse_script({"replies": [over] * 4})))
    assert said.startswith("model error: 529") and len(state.records) == 3  # the first and two more


def posted(server, messages: list) -> tuple[int, dict, dict]:
    """One request to the stand-in, without the SDK (which would retry): status, headers, body."""
    body = json.dumps({"model": "m", "max_tokens": 64, "messages": messages}).encode()
    request = urllib.request.Request(server.base_url + "/v1/messages", data=body, method="POST",
                                     headers={"x-api-key": "k", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def test_over_http_the_entry_is_read_from_the_request():
    call = {"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add",
                                                    "input": {"a": 4, "b": 5}}]}
    limited = {"error": {"status": 429, "type": "rate_limit_error", "message": "Slow down"}}
    answer = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "9"}]}
    first = [{"role": "user", "content": "What is 4 + 5?"}]
    second = first + [{"role": "assistant", "content": call["content"]},
                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "9"}]}]
    with running_server(parse_script({"replies": [call, limited, dict(limited, error={**limited["error"],
                                                                                     "retry_after": 2}), answer]})
                        ) as server:
        assert posted(server, first)[2]["stop_reason"] == "tool_use"
        assert posted(server, first)[2]["stop_reason"] == "tool_use"  # the same conversation, the same entry
        status, headers, _ = posted(server, second)
        assert status == 429 and headers["retry-after"] == "1"  # the first error entry, no retry_after: 1
        status, headers, _ = posted(server, second)
        assert status == 429 and headers["retry-after"] == "2"  # sent again: the second error entry
        assert posted(server, second)[2]["content"] == answer["content"]  # and then the reply
        later = second + [{"role": "assistant", "content": answer["content"]}, {"role": "user", "content": "and?"}]
        status, headers, body = posted(server, later)
    assert status == 500 and headers["x-should-retry"] == "false" and body["error"]["type"] == "api_error"


def test_a_thinking_block_without_a_signature_is_given_one():
    thought = next(e for e in EXAMPLES[1:] if any(b["type"] == "thinking" for b in e["content"]))
    assert "signature" not in thought["content"][0]
    reply = FakeModel(parse_script({"replies": [thought]})).create([{"role": "user", "content": "go"}])
    assert isinstance(reply["content"][0]["signature"], str) and reply["content"][0]["signature"]
