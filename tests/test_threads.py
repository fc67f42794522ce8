"""Message threads: the FakeModel and the loop's switch, and the stand-in's store with the rejections the SDK reads."""

import json
import urllib.error
import urllib.request

import anthropic
import pytest

from agent.__main__ import main
from agent.api.requests import RequestRejected
from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.page import view
from agent.real import running_server
from agent.real.threads import ThreadStore
from agent.scripts import load_script
from agent.summary import console_lines
from helpers import fake_run, reply, text, thinking, tool_use

USER = {"role": "user", "content": "What is 2 + 3?"}


def two_turns():
    return reply("tool_use", thinking("add them"), tool_use("toolu_1")), reply("end_turn", text("5"))


# ---- the FakeModel and the loop's switch -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["lesson", "real-api"])
def test_a_run_over_a_thread_sends_only_the_new_messages_and_ends_alike(mode):
    state, model = fake_run(*two_turns(), mode=mode, threads=True)
    assert run_to_end(state, model) == "5"
    first, second = state.records
    assert first.thread == {"type": "create"} and (first.sent_from, first.sent) == (0, 1)
    assert second.thread == {"type": "continue", "previous_message_id": first.reply["id"]}
    assert (second.sent_from, second.sent) == (2, 3) and state.request(second)["messages"] == [state.messages[2]]
    assert "system" not in state.request(second) and "tools" not in state.request(second)
    assert console_lines(state)[-1] == "messages sent each turn: 1, 1"
    plain, model = fake_run(*two_turns(), mode=mode)
    run_to_end(plain, model)
    assert plain.messages == state.messages


def test_a_continue_is_checked_whole_with_what_the_thread_holds():
    state, model = fake_run(*two_turns(), threads=True)
    step(state, model)
    state.messages[2]["content"][0]["tool_use_id"] = "toolu_9"  # the new message answers no call the thread holds
    step(state, model)
    assert state.result.startswith("bad request: messages.2.content.0: unexpected `tool_use_id` found in "
                                   "`tool_result` blocks: toolu_9.")


def test_a_continue_from_a_reply_the_thread_does_not_hold_is_not_found():
    state, model = fake_run(*two_turns())
    with pytest.raises(RequestRejected, match="thread.previous_message_id: No usable Thread state was found for "
                                              "msg_nowhere"):
        model.create([USER], thread={"type": "continue", "previous_message_id": "msg_nowhere"})
    first = model.create([USER], system="Be brief.", thread={"type": "create"})
    with pytest.raises(RequestRejected, match="system: a `continue` takes `system` from the thread"):
        model.create([], system="Be brief.", thread={"type": "continue", "previous_message_id": first["id"]})


def test_the_command_line_run_prints_the_bytes_both_ways(capsys):
    assert main(["run", "three_tool_chain", "--threads"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "messages sent each turn: 1, 1, 1, 1"
    threaded, whole = lines[-1].removeprefix("bytes sent each turn over a thread: ").split(" (the whole array each "
                                                                                          "turn: ")
    threaded, whole = [int(n) for n in threaded.split(", ")], [int(n) for n in whole.rstrip(")").split(", ")]
    assert len(threaded) == len(whole) == 4 and all(t < w for t, w in zip(threaded[1:], whole[1:], strict=True))
    assert whole == sorted(whole) and max(threaded[1:]) < 2 * min(threaded[1:])  # one grows, the other does not


def test_the_page_says_a_threaded_turns_bytes_against_the_whole_arrays():
    state, model = fake_run(*two_turns(), threads=True)
    run_to_end(state, model)
    note = view.thread_note(view.sent_by_turn(state, state.records[1]))
    assert note.startswith("Over a message thread (continue): this turn sent ") and "the whole array" in note
    plain, model = fake_run(*two_turns())
    run_to_end(plain, model)
    assert view.thread_note(view.sent_by_turn(plain, plain.records[1])) is None


def test_a_run_state_with_threads_writes_to_json_and_back():
    state, model = fake_run(*two_turns(), threads=True)
    run_to_end(state, model)
    again = RunState.from_json(state.to_json())
    assert again.threads and again.records[1].thread == state.records[1].thread


# ---- the stand-in's threads ----------------------------------------------------------------------------------------


def post(server, body):
    request = urllib.request.Request(server.base_url + "/v1/messages", data=json.dumps(body).encode(), method="POST",
                                     headers={"x-api-key": "k", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def base(messages, **fields):
    return {"model": "m", "max_tokens": 64, "messages": messages, **fields}


def test_create_then_continue_with_only_the_new_messages():
    script = load_script("add_then_answer")
    with running_server(script) as server:
        status, first = post(server, base([USER], system="Use the tools.", thread={"type": "create"}))
        results = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "5"}]}]
        continued = {"type": "continue", "previous_message_id": first["id"]}
        again_status, again = post(server, base(results, thread=continued))
        twice_status, twice = post(server, base(results, thread=continued))
        lost_status, lost = post(server, base(results, thread={"type": "continue", "previous_message_id": "msg_x"}))
        kept_status, kept = post(server, base(results, system="Other.", thread={
            "type": "continue", "previous_message_id": again["id"]}))
        thinking_status, thinking_on = post(server, base([USER], thread={"type": "create"},
                                                         thinking={"type": "enabled", "budget_tokens": 1024}))
    assert status == again_status == 200 and again["stop_reason"] == "end_turn"
    assert twice_status == 400 and twice["error"]["details"] == {"error_code": "thread_already_continued"}
    assert lost_status == 404 and lost["error"]["type"] == "not_found_error"
    assert lost["error"]["details"] == {"error_code": "thread_not_found"}
    assert lost["error"]["message"] == "thread.previous_message_id: No usable Thread state was found for msg_x"
    assert kept_status == 400 and kept["error"]["message"].startswith("system: a `continue` takes `system`")
    assert thinking_status == 400 and thinking_on["error"]["details"] == {
        "error_code": "thread_unsupported_request", "unsupported": ["thinking"]}


def test_the_store_is_bounded_in_number_and_in_age():
    now = [0.0]
    store = ThreadStore(limit=2, max_age=10, clock=lambda: now[0])
    for k in range(3):
        store.close({"thread": {"type": "create"}, "messages": [USER]}, None,
                    {"id": f"msg_{k}", "content": [{"type": "text", "text": "hi"}]})
    assert len(store) == 2 and store.held("msg_0") is None and store.held("msg_2") is not None
    now[0] = 11.0
    store.close({"thread": {"type": "create"}, "messages": [USER]}, None,
                {"id": "msg_new", "content": [{"type": "text", "text": "hi"}]})
    assert len(store) == 1 and store.held("msg_new") == [USER, {"role": "assistant", "content": [
        {"type": "text", "text": "hi"}]}]


def test_the_sdk_tool_runner_recovers_when_the_stand_in_has_lost_its_threads():
    from anthropic import beta_tool

    @beta_tool
    def add(a: float, b: float) -> str:
        """Add two numbers."""
        return str(a + b)

    with running_server(load_script("three_tool_chain")) as server:
        server.threads = ThreadStore(limit=0)  # holds nothing: every continue is a thread_not_found
        lines = []
        server.log = lines.append

        @beta_tool
        def upper(text: str) -> str:
            """Upper case."""
            return text.upper()

        @beta_tool
        def word_count(text: str) -> str:
            """Count words."""
            return str(len(text.split()))

        client = anthropic.Anthropic(api_key="k", base_url=server.base_url, max_retries=0)
        final = None
        for message in client.beta.messages.tool_runner(
                model="m", max_tokens=256, tools=[add, upper, word_count],
                messages=[{"role": "user", "content": load_script("three_tool_chain").task}]):
            final = message
    assert [b.text for b in final.content if b.type == "text"] == ["THE SUM IS 3.5 has 4 words."]
    assert any("404 not_found_error" in line for line in lines)  # it was told, and sent the whole history again


def test_a_failed_turn_on_a_thread_is_tried_again_with_the_same_thread():
    overloaded = {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}
    first, answer = two_turns()
    state, model = fake_run(first, overloaded, answer, threads=True)
    assert run_to_end(state, model) == "5"
    assert [r.path for r in state.records] == ["tool_use", "model_error", "answer"]
    assert state.records[2].thread == state.records[1].thread  # the same continue, sent again


def test_a_tools_list_edited_in_place_is_checked_again():
    state, model = fake_run(*two_turns())
    tools = [{"name": "add", "description": "Add.", "input_schema": {"type": "object"}}]
    model.create([USER], tools=tools)
    tools[0]["strict"] = "yes"
    with pytest.raises(RequestRejected, match=r"^tools\.0\.strict: Input should be a valid boolean$"):
        model.create([USER], tools=tools)


@pytest.mark.parametrize("path", ["/v1/messages", "/v1/messages/count_tokens"])
@pytest.mark.parametrize(("payload", "words"), [([USER], "a JSON array"), ("hello", "a string"), (5, "a number"),
                                               (None, "null")])
def test_a_body_that_is_not_an_object_is_a_400_in_words(path, payload, words):
    with running_server(load_script("add_then_answer")) as server:
        request = urllib.request.Request(server.base_url + path, data=json.dumps(payload).encode(), method="POST",
                                         headers={"x-api-key": "k", "content-type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 400
    assert json.loads(caught.value.read())["error"]["message"] == f"body: a JSON object is expected, not {words}"


def test_the_pages_switch_runs_over_a_thread_and_says_the_bytes_both_ways(monkeypatch):
    from pathlib import Path

    from page_support import click, page_text
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "sandbox_app.py"), default_timeout=30)
    at.query_params["controls"] = "all"  # the full page: a bare first visit is Start here
    at = at.run()
    at.toggle(key="threads").set_value(True).run()
    for _ in range(2):
        at = click(at, "Step")  # the player's Step, handed over as the player hands it
    assert not at.exception, [e.value for e in at.exception]
    run = at.session_state["sandbox"].run
    assert run.threads and run.result == "2 + 3 is 5." and run.records[1].thread["type"] == "continue"
    assert "Over a message thread (continue): this turn sent " in page_text(at)


def test_a_fork_of_a_threaded_run_falls_back_to_the_whole_array_on_its_first_turn():
    from agent.models.fake import FakeModel

    script = load_script("three_tool_chain")
    state = RunState(script.task, system=script.system, tool_names=script.tools, threads=True)
    model = FakeModel(script)
    step(state, model)
    step(state, model)
    fork = RunState.from_dict({**state.to_dict(), "records": state.to_dict()["records"][:1],
                               "messages": state.to_dict()["messages"][:3]})
    forks_model = FakeModel(script, calls=1)  # as the page forks: a FakeModel that holds no thread yet
    first = step(fork, forks_model)
    assert first.path == "tool_use" and first.thread == {"type": "create"} and first.sent_from == 0
    assert first.thread_lost == ("404 not_found_error: thread.previous_message_id: No usable Thread state was found "
                                 f"for {state.records[0].reply['id']}")
    assert run_to_end(fork, forks_model) == "THE SUM IS 3.5 has 4 words."
    assert [r.thread["type"] for r in fork.records] == ["create", "create", "continue", "continue"]


class ServerWithoutThreads(FakeModel):
    """A FakeModel that answers every `continue` with `failure`."""

    failure: Exception

    def create(self, messages, **options):
        if (options.get("thread") or {}).get("type") == "continue":
            raise self.failure
        return super().create(messages, **options)


def test_a_bare_404_to_a_continue_falls_back_and_other_failures_do_not():
    """A server without the threads beta may answer a continue with a 404 that names no error_code."""
    first, answer = two_turns()
    state, played = fake_run(first, answer, threads=True)
    model = ServerWithoutThreads(played.script)
    model.failure = type("NotFoundError", (Exception,), {"status_code": 404, "type": "not_found_error"})("Not Found")
    assert run_to_end(state, model) == "5"
    assert state.records[1].thread_lost == "404 not_found_error: Not Found" and state.records[1].sent_from == 0
    state, played = fake_run(first, answer, threads=True)
    model = ServerWithoutThreads(played.script)
    model.failure = type("BadRequestError", (Exception,), {"status_code": 400, "type": "invalid_request_error"})(
        "thread: Extra inputs are not permitted")
    step(state, model)
    assert step(state, model).path == "bad_request" and state.records[1].thread_lost is None


def test_a_thread_lost_by_its_error_code_falls_back_and_the_console_says_so():
    first, answer = two_turns()
    state, played = fake_run(first, answer, threads=True)
    model = ServerWithoutThreads(played.script)
    model.failure = type("BadRequestError", (Exception,), {"status_code": 400, "type": "invalid_request_error",
                                                           "error_code": "thread_not_found"})("thread: no such thread")
    assert run_to_end(state, model) == "5"
    lost = "400 invalid_request_error: thread: no such thread"
    assert state.records[1].thread_lost == lost and state.records[1].sent_from == 0
    assert console_lines(state)[1] == (f"turn 2: the thread could not be continued ({lost}): sent the whole array, "
                                       "3 messages, under a new thread")


def test_the_pages_console_says_what_a_thread_sent_beside_the_whole_array():
    first, answer = two_turns()
    state, played = fake_run(first, answer, threads=True)
    assert run_to_end(state, played) == "5"
    assert console_lines(state)[-1] == "messages sent each turn: 1, 1"
    assert console_lines(state, readable=True)[-1] == \
        "messages sent each turn: 1, 1 over a message thread (the whole array each turn: 1, 3)"
