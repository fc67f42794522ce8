"""Every request is checked whole: an in-place edit of a message sent before is judged, as the API judges it.

And `check-loop` fails the loops issue 9 names (extra fields, wrong types, in-place edits, unsigned thinking)
while it passes a loop that keeps its messages in a tuple.
"""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.api.requests import RequestChecker, RequestRejected, check_messages
from agent.exercise import Limits, check_loop
from agent.loop import RunState, reopen, step
from agent.models.fake import FakeModel
from agent.scripts import parse_script
from helpers import reply, text, thinking, tool_use

CORRECT_LOOP = (Path(__file__).resolve().parent.parent / "examples" / "correct_loop.py").read_text()
FAST = Limits(seconds=20.0)


def three_calls():
    replies = [reply("tool_use", thinking(f"step {k}"), tool_use(f"toolu_{k}")) for k in range(1, 4)]
    return FakeModel(parse_script({"replies": [*replies, reply("end_turn", text("done"))]}, name="three"))


def run_with(edit):
    """Play three_calls with a loop that applies `edit(messages)` before each request; the first refusal, or None."""
    model, messages = three_calls(), [{"role": "user", "content": "go"}]
    for _ in range(4):
        edit(messages)
        try:
            answer = model.create(messages)
        except RequestRejected as refused:
            return refused.message
        messages.append({"role": "assistant", "content": answer["content"]})
        if answer["stop_reason"] == "end_turn":
            return None
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"], "content": "5"} for b in answer["content"]
            if b["type"] == "tool_use"]})
    return None


def first_assistant(messages):
    return messages[1] if len(messages) > 3 else None


def test_an_untouched_run_passes():
    assert run_with(lambda messages: None) is None


@pytest.mark.parametrize("edit, expected", [
    # the loop's own message dict gets a new content list: tool calls trimmed out of an old turn
    (lambda m: first_assistant(m) and m[1].update(content=[b for b in m[1]["content"] if b["type"] != "tool_use"]),
     "The final block in an assistant message cannot be `thinking`."),
    # the reply's own list, trimmed in place
    (lambda m: first_assistant(m) and m[1]["content"].pop(),
     "The final block in an assistant message cannot be `thinking`."),
    # ... and both blocks taken out: the results answer nothing
    (lambda m: first_assistant(m) and m[1]["content"].__setitem__(slice(None), [text("I will add them.")]),
     "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` "
     "block must have a corresponding `tool_use` block in the previous message."),
    # a key the block does not have, put into the model's tool_use block after it was sent
    (lambda m: first_assistant(m) and m[1]["content"][1].__setitem__("result", 5),
     "messages.1.content.1.tool_use.result: Extra inputs are not permitted"),
    # old thinking rewritten in place, its signature kept
    (lambda m: first_assistant(m) and m[1]["content"][0].__setitem__("thinking", "something else"),
     "messages.1.content.0: Invalid `signature` in `thinking` block"),
    # an old user message's content list emptied in place
    (lambda m: first_assistant(m) and m[2]["content"].clear(),
     "messages.2: all messages must have non-empty content except for the optional final assistant message"),
])
def test_an_edit_in_place_of_an_earlier_message_is_judged(edit, expected):
    assert run_with(edit) == expected


def test_a_checker_counts_how_often_it_had_to_start_over():
    checker, messages = RequestChecker(), [{"role": "user", "content": "go"}]
    for k in range(1, 20):
        assert checker.check(messages) == []
        messages += [{"role": "assistant", "content": [tool_use(f"toolu_{k}")]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}"}]}]
    assert (checker.checked, checker.from_start) == (19, 1)
    messages[1] = {"role": "assistant", "content": [tool_use("toolu_1")]}  # an equal copy is the same request
    assert checker.check(messages) == [] and checker.from_start == 1
    messages[1] = {"role": "assistant", "content": [tool_use("toolu_1"), text("and more")]}
    assert checker.check(messages) == [] and checker.from_start == 2


# ---- check-loop: learners' loops ----------------------------------------------------------------------------------


def learner(old, new):
    assert old in CORRECT_LOOP
    return CORRECT_LOOP.replace(old, new)


APPEND = '        messages.append({"role": "assistant", "content": reply["content"]})\n'
RESULT = "                results.append(result)\n"


@pytest.mark.parametrize("source, script, reason", [
    (learner(APPEND, '        messages.append({"role": "assistant", "content": reply["content"], "id": "m1"})\n'),
     "add_then_answer", "messages.1.id: Extra inputs are not permitted"),
    (learner(RESULT, '                results.append({**result, "is_error": "no"})\n'),
     "add_then_answer", "messages.2.content.0.tool_result.is_error: Input should be a valid boolean"),
    (learner(APPEND, APPEND + '        for old in messages[:-1]:\n            if old["role"] == "assistant":\n'
                              '                old["content"] = [b for b in old["content"] if b["type"] == "text"] '
                              'or [{"type": "text", "text": "(trimmed)"}]\n'),
     "three_tool_chain", "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01. "
                         "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
                         "message."),
    (learner(APPEND, '        messages.append({"role": "assistant", "content": [{k: v for k, v in b.items() '
                     'if k != "signature"} for b in reply["content"]]})\n'),
     "thinking_then_answer", "messages.1.content.0.thinking.signature: Field required"),
])
def test_check_loop_fails_the_loops_the_api_would_refuse(source, script, reason):
    [result] = check_loop(source, [script], FAST).scripts
    assert result.verdict == "bad_request", result.summary
    assert result.bad_request.reason == reason


def test_check_loop_passes_a_loop_that_keeps_its_messages_in_a_tuple():
    source = CORRECT_LOOP.replace('messages = [{"role": "user", "content": task}]',
                                  'messages = ({"role": "user", "content": task},)')
    source = source.replace(
        APPEND, '        messages = messages + ({"role": "assistant", "content": reply["content"]},)\n')
    source = source.replace('        messages.append({"role": "user", "content": results})\n',
                            '        messages = messages + ({"role": "user", "content": results},)\n')
    assert "messages.append" not in source
    check = check_loop(source, None, FAST)
    assert check.passed, [c.summary for c in check.scripts if not c.passed]


EDITS = {
    "replace content": lambda m, i: m[i].__setitem__("content", [text("changed")]),
    "pop a block": lambda m, i: m[i]["content"].pop() if isinstance(m[i]["content"], list) and m[i]["content"]
    else None,
    "clear content": lambda m, i: m[i]["content"].clear() if isinstance(m[i]["content"], list) else None,
    "change a reply block": lambda m, i: [b.__setitem__("id", "toolu_changed") for b in m[i]["content"]
                                          if isinstance(b, dict) and b.get("type") == "tool_use"],
    "drop a message": lambda m, i: m.pop(i),
    "insert a message": lambda m, i: m.insert(i, {"role": "user", "content": "hello"}),
}


@settings(max_examples=150, deadline=None)
@given(edit=st.sampled_from(sorted(EDITS)), where=st.integers(min_value=0, max_value=6),
       mode=st.sampled_from(["lesson", "real-api"]))
def test_after_any_such_edit_the_warm_checker_agrees_with_a_fresh_one(edit, where, mode):
    model = FakeModel(parse_script({"replies": [reply("tool_use", thinking(f"step {k}"), tool_use(f"toolu_{k}"))
                                                for k in range(1, 5)]}, name="four"), mode=mode)
    checker, messages = RequestChecker(mode), [{"role": "user", "content": "go"}]
    for k in range(1, 5):
        assert checker.check(messages) == []
        answer = model.create(messages)
        messages.append({"role": "assistant", "content": answer["content"]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}"}]})
    EDITS[edit](messages, min(where, len(messages) - 1))
    assert checker.check(messages) == check_messages(messages, mode)


# Edits that keep every length, to dicts the loop built itself: a plain list's cheap proof cannot see them
# (docs/request-rules.md says so); a run's own watched conversation counts them.
SAME_LENGTH_EDITS = {
    "a result's id": lambda m, i: [b.__setitem__("tool_use_id", "toolu_other") for b in m[i]["content"]
                                   if isinstance(b, dict) and b.get("type") == "tool_result"],
    "a role": lambda m, i: m[i].__setitem__("role", "assistant" if m[i]["role"] == "user" else "user"),
    "a message swapped": lambda m, i: m.__setitem__(i, {"role": m[i]["role"], "content": "swapped"}),
}


@settings(max_examples=150, deadline=None)
@given(edit=st.sampled_from(sorted({**EDITS, **SAME_LENGTH_EDITS})), where=st.integers(min_value=0, max_value=6),
       mode=st.sampled_from(["lesson", "real-api"]))
def test_a_runs_own_conversation_shows_every_edit_to_the_warm_checker(edit, where, mode):
    model = FakeModel(parse_script({"replies": [reply("tool_use", thinking(f"step {k}"), tool_use(f"toolu_{k}"))
                                                for k in range(1, 5)]}, name="four"), mode=mode)
    checker, state = RequestChecker(mode), RunState("go", tool_names=["add"])
    for _ in range(4):
        assert checker.check(state.messages) == []
        step(state, model)
    assert checker.by_watch == 3  # turns 2-4 went over none of the earlier messages
    {**EDITS, **SAME_LENGTH_EDITS}[edit](state.messages, min(where, len(state.messages) - 1))
    assert checker.check(state.messages) == check_messages(list(state.messages), mode)


def test_a_result_id_changed_in_place_in_the_runs_own_messages_is_refused():
    state, model = RunState("go", tool_names=["add"]), three_calls()
    step(state, model)
    step(state, model)
    state.messages[2]["content"][0]["tool_use_id"] = "toolu_9"  # the loop's own tool_result block, same length
    step(state, model)
    assert state.result.startswith("bad request: messages.2.content.0: unexpected `tool_use_id` found in "
                                   "`tool_result` blocks: toolu_9.")


def test_a_plain_list_put_into_the_runs_own_messages_is_not_taken_as_watched():
    # The run's Conversation counts the swap itself, but not later changes inside the plain list it let in.
    state, model = RunState("go", tool_names=["add"]), three_calls()
    step(state, model)
    state.messages[2]["content"] = [dict(block) for block in state.messages[2]["content"]]
    assert step(state, model).path == "tool_use"
    assert step(state, model).path == "tool_use"
    state.messages[2]["content"].append({"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"})
    step(state, model)
    assert state.result.startswith("bad request: messages.2.content.1: unexpected `tool_use_id` found in "
                                   "`tool_result` blocks: toolu_9.")


def test_a_refused_request_sent_again_is_refused_again():
    state, model = RunState("go", tool_names=["add"]), three_calls()
    step(state, model)
    state.messages.append({"role": "assistant", "content": [tool_use("toolu_x")]})  # a call left unanswered
    state.messages.append({"role": "user", "content": "Never mind."})
    state.messages.append({"role": "assistant", "content": "OK."})
    state.messages.append({"role": "user", "content": "Go on."})
    refused = ("bad request: messages.3: `tool_use` ids were found without `tool_result` blocks immediately after: "
               "toolu_x. Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
    step(state, model)
    assert state.result == refused
    reopen(state)  # send the same conversation again, as the page's "send anyway" does
    step(state, model)
    assert state.result == refused


def test_a_run_pickled_and_back_is_the_same_watched_run_and_still_counts_every_edit():
    """The page keeps runs pickled (Undo, what a Step gave): one comes back as it was, its messages watched
    containers and shared objects shared, without counting its own unpickling as a change."""
    import pickle

    from agent.api import watched

    state, model = RunState("go", tool_names=["add"]), three_calls()
    checker = RequestChecker("lesson")
    for _ in range(2):
        step(state, model)
        assert checker.check(state.messages) == []
    before = watched.changes()
    state_back, checker_back = pickle.loads(pickle.dumps((state, checker)))
    assert watched.changes() == before
    assert type(state_back.messages) is type(state.messages) and state_back.messages == state.messages
    assert all(watched.fully_watched(message) for message in state_back.messages)
    assert state_back.messages[1]["content"] is state_back.records[0].reply["content"]  # one object, as before
    assert checker_back.check(state_back.messages) == [] and checker_back.by_watch >= 1
    state_back.messages[2]["content"][0]["tool_use_id"] = "toolu_9"  # an edit of the restored run: counted
    assert checker_back.check(state_back.messages) == check_messages(list(state_back.messages), "lesson") != []
