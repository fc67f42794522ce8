"""The Chat Completions translation: the same conversation in the other wire format, message by message."""

import json

from agent.loop import RunState, run_to_end
from agent.models.toy import ToyModel
from agent.openai_format import (
    DIFFERENCES,
    chat_messages,
    finish_reason,
    left_out,
    left_out_words,
    side_by_side,
)


def parallel_run() -> RunState:
    state = RunState("What is 2 + 3 and 7 + 8?", system="Be brief.")
    run_to_end(state, ToyModel())
    return state


def test_the_system_prompt_is_the_first_message():
    chat = chat_messages(parallel_run().messages, "Be brief.")
    assert chat[0] == {"role": "system", "content": "Be brief."}
    assert chat[1] == {"role": "user", "content": "What is 2 + 3 and 7 + 8?"}
    assert chat_messages([{"role": "user", "content": "hi"}])[0]["role"] == "user"  # no system prompt, no message


def test_tool_calls_carry_arguments_as_a_json_string():
    state = parallel_run()
    assistant = chat_messages(state.messages)[1]
    assert assistant["role"] == "assistant" and assistant["content"] == "I will work out each sum."
    first = assistant["tool_calls"][0]
    assert first["type"] == "function" and first["function"]["name"] == "add"
    assert isinstance(first["function"]["arguments"], str) and json.loads(first["function"]["arguments"]) == {
        "a": 2, "b": 3}
    assert first["id"] == state.messages[1]["content"][1]["id"]


def test_one_user_message_of_results_becomes_one_tool_message_per_result():
    state = parallel_run()
    rows = side_by_side(state.messages, state.system)
    results_row = rows[3]  # system, task, the calls, the results
    assert results_row.index == 2 and results_row.anthropic is state.messages[2]
    assert [m["role"] for m in results_row.openai] == ["tool", "tool"]
    assert [m["tool_call_id"] for m in results_row.openai] == [b["tool_use_id"] for b in state.messages[2]["content"]]
    assert [m["content"] for m in results_row.openai] == ["5", "15"]
    assert len(chat_messages(state.messages, state.system)) == len(state.messages) + 2  # +system, +1 tool message


def test_an_answer_without_calls_has_no_tool_calls_key_and_thinking_is_left_out():
    message = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"},
                                                {"type": "text", "text": "5"}]}
    assert chat_messages([message]) == [{"role": "assistant", "content": "5"}]
    only_calls = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}
    assert chat_messages([only_calls])[0]["content"] is None


def test_stop_reasons_map_to_finish_reasons():
    assert [finish_reason(r) for r in ["end_turn", "tool_use", "max_tokens", "refusal", "pause_turn"]] == [
        "stop", "tool_calls", "length", "content_filter", None]


def test_the_differences_are_named():
    named = " ".join(what for what, _, _ in DIFFERENCES)
    assert all(word in named for word in ["system prompt", "tool calls", "tool results", "why the reply ended"])


def test_what_the_translation_leaves_out_is_named_with_why():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}}
    document = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}}
    user = {"role": "user", "content": [image, {"type": "text", "text": "What is in these?"}, document, image]}
    assert chat_messages([user]) == [{"role": "user", "content": "What is in these?"}]
    assert left_out(user) == ["image", "document"]
    words = left_out_words(left_out(user))
    assert words.startswith("left out: image, document (") and "image_url" in words and "`file`" in words
    thought = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"},
                                                {"type": "redacted_thinking", "data": "x"},
                                                {"type": "text", "text": "5"}]}
    assert left_out(thought) == ["thinking", "redacted_thinking"] and "no thinking blocks" in left_out_words(
        left_out(thought))
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [
        {"type": "text", "text": "a chart:"}, image]}]}
    assert left_out(results) == ["image in a tool_result"]
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}]
    assert [pair.left_out for pair in side_by_side(plain)] == [[], []] and left_out_words([]) == ""
