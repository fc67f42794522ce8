"""The classic mistakes of a hand-written agent loop, and how to tell which one a failed check shows.

Each function here reads the evidence of one run (the refused request and its
messages, the reference run, what the loop printed and returned) and names the
mistake it points to, or None when no single mistake fits; the check then
still shows the failure itself, in the API's words or as the first line that
differs. A mistake is named only on its own evidence in what the judge saw:
a wrong name sends the learner to fix code that is right, which is worse than
none (tests/beginner_loops/, tests/beginner_loops_heldout/ and
tests/beginner_loops_unseen/ are the labelled corpora that hold this). The
shapes of messages it reads are `message_shapes.py`'s; a run the time limit
stopped is `timing.py`'s.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.exercise.judge import Observation
from agent.exercise.message_shapes import (
    blocks_of,
    carried_reply,
    duplicate_result,
    earlier_task,
    offending_index,
    only_results,
    openai_shape,
    output_lines,
    role_of,
    starts_with_task,
    typed_blocks,
)
from agent.loop import RunState, TurnPath

__all__ = ["bad_request_mistake", "exception_mistake", "history_mistake", "offending_index", "output_lines",
           "output_mistake", "starts_with_task"]


def history_mistake(seen: Observation, task: str, replies: list[dict[str, Any]]) -> tuple[str, int | None, int] | None:
    """A mistake the whole run shows, whatever the first refusal said: (name, message index, request number).
    Each is named only on its own evidence in the requests: an OpenAI-format message; an earlier script's task,
    or a reply an earlier script was given, in the first request (state kept between calls); the task gone from
    a later request that once began with it; two results with one call's id; a tool call sent back with another
    input than the reply gave it (`replies`: the script's); a message already sent that changed since, into a
    copy of a later one (one object appended twice); a later request no longer than the one before it: still
    the task and the latest call with its results, older messages left out (old messages dropped), or without
    that latest call (the conversation not kept)."""
    previous: Any = None
    inputs = _call_inputs(replies)
    for number, messages in enumerate(seen.requests, 1):
        if not isinstance(messages, list) or not messages:
            continue
        openai = openai_shape(messages)
        if openai:
            return openai[0], openai[1], number
        if number == 1 and seen.earlier_scripts:
            old = earlier_task(messages, seen.earlier_tasks, task)
            carried = carried_reply(messages, seen.earlier_replies) if old is None else old
            if carried is not None:
                return "kept_state", carried, number
        if not starts_with_task(messages, task):
            return ("dropped_task", 0, number) if starts_with_task(seen.requests[0], task) else None
        duplicate = duplicate_result(messages)
        if duplicate is not None:
            return "duplicate_result_id", duplicate, number
        changed_input = _changed_input(messages, inputs)
        if changed_input is not None:
            return "tool_input_changed", changed_input, number
        aliased = _aliased(messages, previous)
        if aliased is not None:
            return "sent_message_changed", aliased, number
        # It ran the calls of the reply before (so it meant to go round), yet sent no more than last time.
        went_round = seen.stop_reasons[number - 2:number - 1] == ["tool_use"] and number - 1 in seen.tool_call_replies
        if went_round and isinstance(previous, list) and len(messages) <= len(previous):
            if _window_of(messages, previous):
                return "old_messages_dropped", 1, number
            if not _new_calls(messages, previous):
                return "conversation_not_kept", len(messages) - 1, number
        previous = messages
    return None


def _call_ids(messages: list[Any]) -> list[Any]:
    """The ids of the tool calls the assistant messages of a request carry (any JSON value: a list, not a set)."""
    return [block.get("id") for message in messages if role_of(message) == "assistant"
            for block in typed_blocks(message, "tool_use")]


def _new_calls(messages: list[Any], previous: list[Any]) -> list[Any]:
    """The tool calls a request sends back that the request before it did not: the latest reply's."""
    before = _call_ids(previous)
    return [i for i in _call_ids(messages) if i not in before]


def _window_of(messages: list[Any], previous: list[Any]) -> bool:
    """Whether a request no longer than the one before it is a window of the conversation: the task, then only
    messages the request before sent, in their order, then the reply just given (tool calls none of those
    carried) and one user message answering its calls. Older messages were left out, not the latest exchange."""
    if len(messages) < 3 or role_of(messages[-2]) != "assistant" or role_of(messages[-1]) != "user":
        return False
    calls = [block.get("id") for block in typed_blocks(messages[-2], "tool_use")]
    answered = [block.get("tool_use_id") for block in typed_blocks(messages[-1], "tool_result")]
    if not calls or calls != _new_calls(messages, previous) or any(i not in answered for i in calls):
        return False
    kept = iter(previous[1:])
    return all(any(message == earlier for earlier in kept) for message in messages[1:-2])


def _call_inputs(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """Each tool call's input as the script's replies give it, by the call's id."""
    return {block["id"]: block.get("input") for reply in replies for block in reply.get("content") or []
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str)}


def _changed_input(messages: list[Any], inputs: dict[str, Any]) -> int | None:
    """The index of an assistant message holding one of the script's tool calls with another input than the
    reply gave it (as a value: `2` sent back as `2.0` is a change in JSON too)."""
    for i, message in enumerate(messages):
        if role_of(message) != "assistant":
            continue
        for block in typed_blocks(message, "tool_use"):
            given = inputs.get(str(block.get("id")), block.get("input"))
            if json.dumps(block.get("input"), sort_keys=True) != json.dumps(given, sort_keys=True):
                return i
    return None


def _aliased(messages: list[Any], previous: Any) -> int | None:
    """The index of a message the previous request sent otherwise and that is now the same as a later message
    of this request: one list or dict appended twice and changed in between (`results = []` made once before
    the loop, one assistant dict reused), so what was sent before changed under it."""
    if not isinstance(previous, list) or len(messages) <= len(previous):
        return None
    for i, (before, now) in enumerate(zip(previous, messages, strict=False)):
        if before != now and any(now == later for later in messages[i + 1:]):
            return i
    return None


def bad_request_mistake(reason: str, messages: Any, index: int | None, stop_reasons: list[Any],
                        request: int) -> tuple[str | None, int | None]:
    """The mistake behind a refused request, and the index of the message that is really wrong."""
    previous = stop_reasons[request - 2] if 2 <= request <= len(stop_reasons) + 1 else None
    if previous is not None and previous != "tool_use":
        return "kept_going", index
    if not isinstance(messages, list):
        return None, index
    texts = [i for i, m in enumerate(messages) if role_of(m) == "assistant" and isinstance(m.get("content"), str)]
    if texts and index is not None and (index in texts or index - 1 in texts):
        return "reply_as_text", index if index in texts else index - 1
    if "roles must alternate" in reason and index is not None:
        if role_of(messages[index]) == "user":
            return _user_twice(messages, index), index
        if messages[index] == messages[index - 1]:
            return "reply_appended_twice", index
        if only_results(messages[index]):
            return "results_as_assistant", index
    if "must have non-empty content" in reason and index is not None and 0 < index < len(messages) \
            and role_of(messages[index]) == "user" and messages[index].get("content") == [] \
            and typed_blocks(messages[index - 1], "tool_use"):
        return "empty_results", index  # the results message after a tool call, with nothing in it
    if "unexpected `tool_use_id`" in reason:
        # Only in the message just added: an earlier one refused now changed after it was sent (aliasing).
        return ("wrong_tool_use_id" if index == len(messages) - 1 else None), index
    if "without `tool_result` blocks immediately after" in reason:
        return _unanswered(messages, index)
    if "Did not find" in reason and "`tool_result` block(s) at the beginning" in reason:
        return "results_not_first", index
    if "final message must use" in reason:
        if index is not None and typed_blocks(messages[index], "tool_result"):
            return "results_as_assistant", index
        return "results_not_appended", index
    if "cannot be modified" in reason or "Invalid `signature`" in reason or "signature: Field required" in reason:
        return "content_changed", index
    content = messages[index].get("content") if index is not None and isinstance(messages[index], dict) else None
    if "Input should be a valid" in reason and isinstance(content, dict) and "stop_reason" in content:
        return "whole_reply_appended", index
    return _changed_block(reason, messages), index


def _user_twice(messages: list[Any], index: int) -> str | None:
    """Two user messages in a row: each holding only results (one message per result); results followed by
    the very reply whose calls they answer (the reply appended after its results); or results after a message
    that is not the reply they answer, with no reply anywhere later (the reply not appended)."""
    if only_results(messages[index - 1]) and only_results(messages[index]):
        return "one_message_per_result"
    results = typed_blocks(messages[index], "tool_result")
    answered = {b.get("tool_use_id") for b in results}
    after = messages[index + 1] if index + 1 < len(messages) else None
    if answered and role_of(after) == "assistant" \
            and answered <= {b.get("id") for b in typed_blocks(after, "tool_use")}:
        return "reply_after_results"
    if results and not any(role_of(m) == "assistant" for m in messages[index + 1:]):
        return "reply_not_appended"
    return None


def _unanswered(messages: list[Any], index: int | None) -> tuple[str | None, int | None]:
    """Calls left without results: some results sent but not all (a call not answered), or none, the
    outputs sent as text instead (results as text)."""
    after = messages[index + 1] if index is not None and index + 1 < len(messages) else None
    if role_of(after) != "user":
        return None, index
    assert index is not None and after is not None  # a user's message came after the one at `index`
    results, blocks = typed_blocks(after, "tool_result"), blocks_of(after)
    if duplicate_result(messages, index + 1) == index + 1:
        return "duplicate_result_id", index + 1
    if results:  # with as many results as calls, they answer the wrong ones: no single mistake says which
        return ("call_not_answered", index) if len(results) < len(typed_blocks(messages[index], "tool_use")) \
            else (None, index)
    texts = isinstance(after.get("content"), str) or bool(blocks) and len(typed_blocks(after, "text")) == len(blocks)
    return ("results_as_text", index + 1) if texts else (None, index)


_BLOCK_FIELD = re.compile(r"^messages\.(\d+)\.content\.(\d+)(\.tool_use\.input|\.tool_result\.content|)(?:\.\d+)?"
                          r"(?:\.type)?: ")


_EXTRA_FIELD = re.compile(r"^messages\.(\d+)\.content\.(\d+)\.(tool_use|text|thinking)\.(\w+): Extra inputs are "
                          r"not permitted")


def _added_field(reason: str, messages: list[Any]) -> bool:
    """Whether the refusal is a field the API does not know, on a block of a reply the model gave (an
    assistant message), the block's own fields all there: a field added to it, not a block made up."""
    match = _EXTRA_FIELD.match(reason)
    if not match:
        return False
    index, position, kind = int(match.group(1)), int(match.group(2)), match.group(3)
    blocks = blocks_of(messages[index]) if index < len(messages) and role_of(messages[index]) == "assistant" else []
    block = blocks[position] if position < len(blocks) else None
    own = {"tool_use": ("id", "name", "input"), "text": ("text",), "thinking": ("thinking",)}[kind]
    return isinstance(block, dict) and all(name in block for name in own)


def _changed_block(reason: str, messages: list[Any]) -> str | None:
    """A block refused for its type or one field's: a tool call's input made a string in place (tool input
    changed), a whole tool_result put inside another's content (result wrapped), or a tool's output put in the
    results as a bare string (results as text)."""
    if _added_field(reason, messages):
        return "field_added"
    match = _BLOCK_FIELD.match(reason)
    if not match:
        return None
    index, position, where = int(match.group(1)), int(match.group(2)), match.group(3)
    blocks = blocks_of(messages[index]) if index < len(messages) else []
    block = blocks[position] if position < len(blocks) else None
    if where == "" and isinstance(block, str) and role_of(messages[index]) == "user" and index > 0 \
            and typed_blocks(messages[index - 1], "tool_use"):
        return "results_as_text"  # a bare string where a block goes, after a tool call: an output as it came
    if not isinstance(block, dict):
        return None
    if where == ".tool_use.input" and isinstance(block.get("input"), str):
        return "tool_input_changed"
    inner = block.get("content")
    inner_blocks = inner if isinstance(inner, list) else [inner]
    if where == ".tool_result.content" and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                               for b in inner_blocks):
        return "result_wrapped"
    return None


_SDK_ATTRIBUTE = re.compile(r"^'dict' object has no attribute '(content|stop_reason|type|text|input|id|name|"
                            r"thinking|usage|role)'$")


_AWAITED_DICT = "object dict can't be used in 'await' expression"
_AWAITS_PLAIN_CALL = re.compile(r"\bawait\s+\(?\s*[\w.]*\b(create|run_tool)\s*\(")


def exception_mistake(error: dict[str, Any], seen: Observation) -> str | None:
    """The mistake behind what run_agent raised: `await` on model.create or run_tool, which return a dict
    here (the line raising awaits one of them); the SDK's attributes read from a plain dict; the answer
    built from every block of the end_turn reply (thinking has no "text"); or an error the loop raised itself
    (a `raise` or `assert` line of its own) right after a reply that stopped for another reason than end_turn
    or tool_use, where the lesson's loop returns stopped: <reason>, for a reason it never heard of too."""
    if error["type"] == "TypeError" and error["message"] == _AWAITED_DICT \
            and _AWAITS_PLAIN_CALL.search(str(error.get("code") or "")):
        return "awaited_plain_call"
    if error["type"] == "AttributeError" and _SDK_ATTRIBUTE.match(error["message"]):
        return "reply_is_a_dict"
    if error["type"] == "KeyError" and error["message"] == "'text'" and seen.stop_reasons[-1:] == ["end_turn"]:
        return "answer_text"
    last = seen.stop_reasons[-1] if seen.stop_reasons else None
    raised_here = re.match(r"(raise|assert)\b", str(error.get("code") or "").strip()) is not None
    # Raised after that reply, with no request since: the stop reason is what it raised on.
    if raised_here and last not in (None, "end_turn", "tool_use") and len(seen.requests) == len(seen.stop_reasons):
        return "wrong_stop_message"
    return None


def _subsequence(short: list[str], long: list[str]) -> bool:
    """Whether every line of `short` appears in `long`, in order (other lines in between)."""
    lines = iter(long)
    return all(any(line == other for other in lines) for line in short)


def output_mistake(state: RunState, seen: Observation, expected: list[str], actual: list[str],
                   line: int) -> str | None:
    """The mistake behind output that differs from the reference (no refused request, nothing raised).
    Each is named only when the run shows it: the loop returned where the reference did, with other words;
    or it went on to the same end but printed other lines; or it stopped where the reference went on."""
    returned = seen.returned
    if returned is None:
        return None
    final, sent = state.records[-1], len(seen.requests)
    last = seen.stop_reasons[-1] if seen.stop_reasons else None
    if last == "tool_use" and sent < len(state.records):  # it stopped while the model waited for results
        if sent == 1:  # whatever it returned: the tool's output, a dict, "stopped: tool_use", the limit message
            return "did_not_go_round"
        if seen.tool_call_replies and sent not in seen.tool_call_replies \
                and "no answer after" not in str(returned.get("text")):  # not a limit, its own or one short
            # It ran calls before but none of the last reply's: it went round a fixed number of times and
            # returned the next tool_use reply as it came.
            return "did_not_go_round"
        return "stopped_early" if final.path == TurnPath.LIMIT else None
    if returned["type"] != "str":
        return "not_a_string"
    result_line = next((i for i, x in enumerate(expected) if x.startswith("result: ")), len(expected))
    # The extra lines must be ones the loop printed, not an answer holding a newline (a result line in two).
    if len(actual) > len(expected) and _subsequence(expected, actual) \
            and len(output_lines(seen.printed)) > result_line:
        return "extra_print"
    if sent != len(state.records) or last != (final.reply or {}).get("stop_reason"):
        return None  # it ended somewhere else than the reference: no mistake of the ending fits
    text = returned["text"]
    if text != state.result:
        if final.path == TurnPath.LIMIT:
            return "wrong_limit_message"
        if final.path == TurnPath.STOPPED:
            return _stop_mistake(text, str(last), final.reply or {}, seen)
        if final.path == TurnPath.ANSWER:
            return "thinking_in_answer" if _answer_with_thinking(text, state.result or "", final.reply or {}) \
                else "answer_text"
        return None
    ran_the_same = len(seen.tool_calls) == _results_sent(state.messages)  # else the calls differ, not the lines
    # `<`, not `<=`: at the result line itself, with the right answer, the loop printed a line more than the
    # reference, which extra_print names above unless its requests differ as well (a second bug).
    if line < result_line and ran_the_same and not seen.printed_cut:  # past the cut the loop's lines are missing
        # A counter kept from an earlier run shows on this run's first line already, further on than any offset
        # the earlier runs' first lines showed (a fixed offset shows on every run alike: a wrong line).
        offset = _turn_offset(expected[0], actual[0]) if line == 0 < len(actual) else None
        if offset is None or offset <= 0 or not seen.earlier_scripts:
            return "tool_lines"
        if not seen.earlier_turns:
            return None  # no earlier line to tell a counter carried over from a fixed offset
        return "kept_state" if offset > max(turn - 1 for turn in seen.earlier_turns) else "tool_lines"
    return None


def _stop_mistake(text: str, stop_reason: str, reply: dict[str, Any], seen: Observation) -> str | None:
    """The returned text where the reference returned stopped: <reason>: its own words for the stop; or the
    reply's text taken for an answer on that stop reason, unless the loop also returned right after a tool_use
    reply earlier in this process (it ends on any reply with text: a branch on the content, not this reason)."""
    if stop_reason in text or text.lower().startswith("stop"):
        return "wrong_stop_message"
    said = "".join(b.get("text") or "" for b in reply.get("content") or [] if b.get("type") == "text")
    if said.strip() and text.strip() == said.strip() and not seen.earlier_returns_on_tool_use:
        return "wrong_stop_message"
    return None


def _results_sent(messages: list[dict[str, Any]]) -> int:
    """How many tool results a conversation carries: how many calls its loop ran."""
    return sum(1 for message in messages if message["role"] == "user" for block in blocks_of(message)
               if isinstance(block, dict) and block.get("type") == "tool_result")


def _answer_with_thinking(text: str, answer: str, reply: dict[str, Any]) -> bool:
    """Whether the returned text is the answer with the reply's (non-empty) thinking put in, and nothing else
    but whitespace."""
    thoughts = [b["thinking"] for b in reply["content"] if b.get("type") == "thinking" and b["thinking"]]
    if not any(thought in text for thought in thoughts):
        return False
    for thought in thoughts:
        text = text.replace(thought, "")
    return "".join(text.split()) == "".join(answer.split())


def _turn_offset(expected: str, actual: str) -> int | None:
    """How many turns further on than the reference's a tool line counts its turn; None if either is no tool line."""
    want, got = re.match(r"turn (\d+):", expected), re.match(r"turn (\d+):", actual)
    return int(got.group(1)) - int(want.group(1)) if want and got else None
