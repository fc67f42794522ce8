"""Properties: the checker never crashes, and it accepts every conversation the loop itself builds."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.api.requests import RequestChecker, check_messages
from agent.api.signing import sign
from agent.api.watched import Conversation
from agent.loop import run_to_end
from agent.tools import TOOLS
from helpers import fake_run

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8)
block_types = st.sampled_from(["text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "x"])
blocks = st.fixed_dictionaries(
    {"type": block_types},
    optional={"text": st.text(max_size=4), "id": st.sampled_from(["t1", "t2", "bad id"]) | json_values,
              "tool_use_id": st.sampled_from(["t1", "t2"]) | json_values, "input": json_values,
              "thinking": st.text(max_size=3)})
message = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "tool", None]),
                           "content": st.one_of(st.text(max_size=4), st.lists(blocks | json_values, max_size=4),
                                                json_values)}),
    json_values)
messages = st.lists(message, max_size=6)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages, st.sampled_from(["lesson", "real-api"]))
def test_the_checker_never_crashes_and_answers_in_words(array, mode):
    problems = check_messages(array, mode)
    assert all(isinstance(p, str) and p for p in problems)


@settings(max_examples=200, deadline=None)
@given(st.lists(messages, min_size=1, max_size=4), st.sampled_from(["lesson", "real-api"]))
def test_one_checker_over_many_requests_agrees_with_a_fresh_one(requests, mode):
    checker = RequestChecker(mode)
    for request in requests:
        assert checker.check(request) == check_messages(request, mode)


# How a conversation grows, or is changed, between two requests. The first two are what a loop does; a random
# message is mostly refused; the rest change earlier messages in place. A plain list's cheap proof cannot see an
# edit that keeps every length (docs/request-rules.md says so), so those run only on a run's own watched
# conversation, and only while it holds nothing unwatched.
GROWTH = ["exchange", "answer", "answer with a call", "random message", "append a block", "pop the last"]
SAME_LENGTH = ["plain content", "flip a role", "reuse an old id"]


def grow(conversation, how, k, data):
    """Apply one change `how` (the k-th) to the conversation, drawing what it needs from `data`."""
    where = data.draw(st.integers(0, max(len(conversation) - 1, 0)))
    target = conversation[where] if conversation else None
    content = target.get("content") if isinstance(target, dict) else None
    if how == "exchange":
        ids = [f"toolu_{k}_{j}" for j in range(data.draw(st.integers(1, 2)))]
        lead = [{"type": "thinking", "thinking": "", "signature": sign("")}] if data.draw(st.booleans()) else []
        conversation.append({"role": "assistant", "content": lead + [
            {"type": "tool_use", "id": i, "name": "add", "input": {"a": 1, "b": 2}} for i in ids]})
        conversation.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": i} for i in ids]})
    elif how == "answer":
        conversation.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
        conversation.append({"role": "user", "content": "go on"})
    elif how == "answer with a call":  # the API takes a tool_use block in a user message too
        conversation.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}]})
        conversation.append({"role": "user", "content": [{"type": "text", "text": "I ran:"}, {
            "type": "tool_use", "id": f"toolu_u{k}", "name": "add", "input": {"a": 1, "b": 2}}]})
    elif how == "random message":
        conversation.append(data.draw(message))
    elif how == "append a block" and isinstance(content, list):
        unwatched = [m["content"] for m in conversation if isinstance(m, dict) and type(m.get("content")) is list]
        (data.draw(st.sampled_from(unwatched)) if unwatched else content).append(data.draw(blocks))
    elif how == "pop the last" and len(conversation) > 1:
        conversation.pop()
    elif how == "plain content":  # in a message before the last, which a warm checker would not go over again
        earlier = [m for m in conversation[:-1] if isinstance(m, dict) and isinstance(m.get("content"), list)]
        if earlier:
            swapped = data.draw(st.sampled_from(earlier))
            swapped["content"] = [dict(b) if isinstance(b, dict) else b for b in swapped["content"]]  # unwatched
    elif how == "flip a role" and isinstance(target, dict):
        target["role"] = "assistant" if target.get("role") == "user" else "user"
    elif how == "reuse an old id" and isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") in ("tool_use", "tool_result"):
                block["id" if block["type"] == "tool_use" else "tool_use_id"] = "toolu_1_0"


@settings(max_examples=200, deadline=None)
@given(st.data(), st.sampled_from(["lesson", "real-api"]), st.booleans(), st.booleans())
def test_one_checker_over_a_growing_conversation_agrees_with_a_fresh_one(data, mode, runs_own, thinking_on):
    """Fed one conversation as it grows, refusals and edits included, a warm checker says what a fresh one says."""
    start = [{"role": "user", "content": "go"}]
    conversation = Conversation(start) if runs_own else start
    checker, watched_whole = RequestChecker(mode), runs_own
    for k in range(1, data.draw(st.integers(2, 8))):
        how = data.draw(st.sampled_from(GROWTH + (SAME_LENGTH if watched_whole else [])))
        # A plain list let into the run's messages is no longer watched: from then on, as for a plain list.
        watched_whole = watched_whole and how != "plain content"
        grow(conversation, how, k, data)
        assert checker.check(conversation, thinking=thinking_on) == \
            RequestChecker(mode).check(list(conversation), thinking=thinking_on)


tool_inputs = {
    "add": st.fixed_dictionaries({"a": st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False), "b": st.integers()}),
    "word_count": st.fixed_dictionaries({"text": st.text(max_size=10)}),
    "upper": st.fixed_dictionaries({"text": st.text(max_size=10)}),
    "read_file": st.fixed_dictionaries({"path": st.sampled_from(["notes.txt", "todo.txt", "../x"])}),
    "list_files": st.just({}),
}
calls = st.sampled_from(sorted(TOOLS)).flatmap(
    lambda name: st.tuples(st.just(name), tool_inputs[name] | st.dictionaries(st.text(max_size=3), json_values)))
visible_text = st.text(min_size=1, max_size=8).filter(lambda s: s.strip())


@st.composite
def scripts(draw):
    """A script a real model could have written: tool turns, then any stop."""
    replies, n = [], 0
    for _ in range(draw(st.integers(0, 6))):
        content = [{"type": "thinking", "thinking": draw(st.text(max_size=5))}] if draw(st.booleans()) else []
        if draw(st.booleans()):
            content.append({"type": "text", "text": draw(visible_text)})
        for name, tool_input in draw(st.lists(calls, min_size=1, max_size=3)):
            n += 1
            content.append({"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": tool_input})
        replies.append({"stop_reason": "tool_use", "content": content})
    last_reason = draw(st.sampled_from(["end_turn", "max_tokens", "refusal", "pause_turn", "stop_sequence", "new"]))
    replies.append({"stop_reason": last_reason, "content": [{"type": "text", "text": draw(visible_text)}]})
    return replies


@settings(max_examples=150, deadline=None)
@given(scripts(), st.lists(st.sampled_from(sorted(TOOLS)), unique=True), st.integers(1, 8),
       st.sampled_from(["lesson", "real-api"]))
def test_every_conversation_the_loop_builds_is_accepted(replies, tool_names, max_turns, mode):
    state, model = fake_run(*replies, tools=tool_names, max_turns=max_turns, mode=mode)
    result = run_to_end(state, model)
    assert not result.startswith("bad request"), result
    assert state.done and state.turn <= max_turns
