"""The real model over message threads: the real SDK's threads beta over real HTTP against the stand-in server.

The server's `on_answer` hears each body as it arrived, so these tests assert what went over the wire.
"""

import re

from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.page import view
from agent.real import AnthropicModel, running_server
from agent.real.threads import ThreadStore
from agent.scripts import load_script
from agent.summary import console_lines

SCRIPT = load_script("three_tool_chain")  # four turns: a thread is created, then continued three times


def threaded_run():
    return RunState(SCRIPT.task, system="Use the tools.", tool_names=SCRIPT.tools, max_turns=SCRIPT.max_turns,
                    threads=True)


def listening(server):
    """The bodies the server answers, with each answer's status, as they come."""
    heard = []
    server.on_answer = lambda endpoint, body, answer: heard.append(
        (body, getattr(answer, "status", 200), getattr(answer, "details", None)))
    return heard


def model_at(server):
    return AnthropicModel("sk-test", base_url=server.base_url, max_retries=0)


def as_the_page_shows(body):
    """A body as the page's request views hold it: `stream` is how the reply comes back, not what was asked."""
    return {key: value for key, value in body.items() if key != "stream"}


def test_after_turn_one_only_the_new_messages_go_over_the_wire():
    state = threaded_run()
    with running_server(SCRIPT) as server:
        heard = listening(server)
        model = model_at(server)
        assert run_to_end(state, model) == "THE SUM IS 3.5 has 4 words."
    bodies = [body for body, status, _ in heard]
    assert [status for _, status, _ in heard] == [200] * 4
    assert bodies[0]["thread"] == {"type": "create"} and bodies[0]["messages"] == state.messages[:1]
    assert bodies[0]["system"] == "Use the tools." and len(bodies[0]["tools"]) == len(SCRIPT.tools)
    for body, record, previous in zip(bodies[1:], state.records[1:], state.records[:-1], strict=True):
        assert body["thread"] == {"type": "continue", "previous_message_id": previous.reply["id"]}
        assert body["messages"] == state.messages[record.sent_from:record.sent] and len(body["messages"]) == 1
        assert "system" not in body and "tools" not in body  # the thread keeps them
    plain = RunState(SCRIPT.task, system="Use the tools.", tool_names=SCRIPT.tools)
    run_to_end(plain, FakeModel(SCRIPT))
    assert state.messages == plain.messages  # the same conversation, sent a quarter of the way
    assert console_lines(state)[-1] == "messages sent each turn: 1, 1, 1, 1"


def test_the_pages_byte_figures_are_the_bodies_that_went_over_the_wire():
    state = threaded_run()
    with running_server(SCRIPT) as server:
        heard = listening(server)
        model = model_at(server)
        run_to_end(state, model)
    for (body, _, _), record in zip(heard, state.records, strict=True):
        shown = view.request_sent(state, record, model.model)
        assert shown == as_the_page_shows(body)  # the request the page shows is the one received, field for field
        note = view.thread_note(view.sent_by_turn(state, record, model.model))
        sent = int(re.search(r"this turn sent \d+ messages?, ([\d,]+) bytes", note)[1].replace(",", ""))
        assert sent == view.request_size(shown)  # the note measures that very body, as the page's JSON writes it
    whole = [int(re.search(r"would have been \d+ messages?, ([\d,]+) bytes",
                           view.thread_note(view.sent_by_turn(state, r, model.model)))[1].replace(",", ""))
             for r in state.records]
    sent = [view.request_size(as_the_page_shows(body)) for body, _, _ in heard]
    assert whole == sorted(whole) and sent[-1] < whole[-1] / 2  # the whole array grows; the thread's turn does not


def test_a_thread_the_stand_in_forgot_falls_back_to_the_whole_array_for_that_turn():
    state = threaded_run()
    with running_server(SCRIPT) as server:
        heard = listening(server)
        model = model_at(server)
        step(state, model)
        server.threads = ThreadStore()  # the stand-in forgets every thread, as a restart does
        lost = step(state, model)
        after = step(state, model)
    (_, first, _), (refused, status, details), (again, second, _), (continued, third, _) = heard
    assert (first, status, details, second, third) == (200, 404, {"error_code": "thread_not_found"}, 200, 200)
    assert refused["thread"]["type"] == "continue" and len(refused["messages"]) == 1
    assert again["thread"] == {"type": "create"} and again["messages"] == state.messages[:3]  # the whole array
    assert again["system"] == "Use the tools."
    assert lost.path == "tool_use" and lost.thread == {"type": "create"} and (lost.sent_from, lost.sent) == (0, 3)
    assert lost.thread_lost.startswith("404 not_found_error: thread.previous_message_id: No usable Thread state was "
                                       "found for msg_")
    assert continued["thread"] == {"type": "continue", "previous_message_id": lost.reply["id"]}
    assert len(continued["messages"]) == 1 and after.thread_lost is None
    said = [line for line in console_lines(state) if "could not be continued" in line]
    assert said == [f"turn 2: the thread could not be continued ({lost.thread_lost}): sent the whole array, "
                    "3 messages, under a new thread"]
    assert view.thread_note(view.sent_by_turn(state, lost)).startswith(
        "The thread could not be continued (404 not_found_error: ")
    assert console_lines(state)[-1] == "messages sent each turn: 1, 3, 1"


def test_a_fork_that_continues_a_reply_already_continued_falls_back():
    state = threaded_run()
    with running_server(SCRIPT) as server:
        heard = listening(server)
        model = model_at(server)
        step(state, model)
        fork = RunState.from_json(state.to_json())  # both go on from turn 1's reply: only one may continue it
        step(state, model)
        forked = step(fork, model)
    assert heard[2][1:] == (400, {"error_code": "thread_already_continued"})
    assert forked.thread_lost.startswith("400 invalid_request_error: thread.previous_message_id: the response msg_")
    assert forked.thread == {"type": "create"} and fork.messages == state.messages


def test_a_model_that_did_not_receive_the_reply_sends_the_whole_array_without_asking():
    state = threaded_run()
    with running_server(SCRIPT) as server:
        heard = listening(server)
        step(state, model_at(server))
        lost = step(state, model_at(server))  # a new client holds no conversation to check a continue with
    assert [body["thread"]["type"] for body, _, _ in heard] == ["create", "create"]
    assert lost.thread_lost.startswith("thread.previous_message_id: this client holds no conversation up to msg_")


def test_a_continue_is_checked_whole_before_it_is_sent():
    state = threaded_run()
    with running_server(SCRIPT) as server:
        heard = listening(server)
        model = model_at(server)
        step(state, model)
        state.messages[2]["content"][0]["tool_use_id"] = "toolu_nowhere"  # answers no call the thread holds
        refused = step(state, model)
    assert len(heard) == 1 and refused.path == "bad_request" and refused.refused_unsent
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_nowhere" in refused.error


def test_the_page_runs_the_real_model_over_a_thread_and_says_when_it_fell_back(monkeypatch):
    from page_support import choose_real, click, console, open_sandbox

    at = open_sandbox(monkeypatch)
    with running_server(load_script("add_then_answer")) as server:
        heard = listening(server)
        at.toggle(key="threads").set_value(True).run()
        choose_real(at, server.base_url)
        click(at, "Step")
        server.threads = ThreadStore()  # forgotten between the turns
        click(at, "Step")
    assert not at.exception, [e.value for e in at.exception]
    run = at.session_state["sandbox"].run
    assert run.result == "2 + 3 is 5." and run.records[1].thread_lost.startswith("404 not_found_error")
    assert [body["thread"]["type"] for body, _, _ in heard] == ["create", "continue", "create"]
    captions = [c.value for c in at.caption]
    assert any(c.startswith("The thread could not be continued (404 not_found_error: ") for c in captions)
    assert any("could not be continued" in line for line in console(at))
