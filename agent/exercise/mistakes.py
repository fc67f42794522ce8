"""The classic mistakes of a hand-written agent loop, and how to tell which one a failed check shows.

Each function here reads the evidence of one run (the refused request and its
messages, the reference run, what the loop printed and returned) and names the
mistake it points to, or None when no single mistake fits; the check then
still shows the failure itself, in the API's words or as the first line that
differs.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from agent.exercise.judge import Observation
from agent.loop import RunState

MISTAKES: dict[str, str] = {
    "reply_not_appended": (
        "The model's reply was not added to the conversation. Each turn, append "
        '{"role": "assistant", "content": reply["content"]} before the tool results, or the results answer '
        "calls the model never made as far as the API can see."),
    "one_message_per_result": (
        "Each tool result went into a user message of its own. Run every call of the reply, then append ONE "
        "user message holding all of their results."),
    "wrong_tool_use_id": (
        "A tool result answers an id that the model's latest reply did not use. Answer each call of the latest "
        "reply with its own result: run_tool(block) sets tool_use_id from the block it ran."),
    "call_not_answered": (
        "A tool call went unanswered. Run every tool_use block of the reply, not just the first, and send all "
        "the results in the next message."),
    "results_not_first": (
        "The tool results are not at the start of the user message. The message after a tool call begins with "
        "its tool_result blocks (here it should hold nothing else)."),
    "results_not_appended": (
        "The tool results were not added after the model's tool call. After running the calls, append one user "
        "message with their results before asking again."),
    "content_changed": (
        "The reply's content was changed before it went back: thinking blocks must be sent back exactly as they "
        'came. Append reply["content"] whole.'),
    "whole_reply_appended": (
        'The whole reply was used as the assistant message\'s content. The content is reply["content"], the '
        "list of blocks."),
    "kept_going": (
        "The loop asked the model again after a reply whose stop_reason was not tool_use. On end_turn return "
        "the answer; on any other reason return stopped: <reason>."),
    "ran_stopped_call": (
        "A tool call ran from a reply whose stop_reason was not tool_use (max_tokens, refusal, ...). Such a call "
        "may be cut off half written, or refused: run nothing and return stopped: <reason>. Decide what to do "
        'from reply["stop_reason"], not from whether the reply holds tool_use blocks.'),
    "no_turn_limit": (
        "The loop went on past max_turns turns. Send at most max_turns requests, then return "
        "stopped: no answer after <max_turns> turns."),
    "stopped_early": (
        "The loop gave up before max_turns turns. Turns count from 1 to max_turns, both included."),
    "endless_loop": (
        "The loop never finished. Does every way round it either send a request or return, and does it stop "
        "after max_turns turns?"),
    "thinking_in_answer": (
        "The answer includes the model's thinking. Return only the text blocks of the end_turn reply, joined; "
        "thinking stays in the conversation but never goes into the answer."),
    "answer_text": (
        "The answer is not the reply's text. On end_turn, return the text of its text blocks joined together; "
        'other blocks (thinking, tool_use) have no "text" and are left out.'),
    "wrong_limit_message": (
        "At the turn limit the loop returned the wrong message. Return exactly: "
        "stopped: no answer after <max_turns> turns."),
    "wrong_stop_message": (
        "On a stop reason other than end_turn and tool_use the loop returned the wrong message. Return exactly: "
        "stopped: <stop_reason>."),
    "not_a_string": "run_agent did not return a string. Return the answer's text, or the stopped: ... message.",
    "kept_state": (
        "Your run_agent remembered something from an earlier call: this run did not start from the task alone. "
        "Create the messages list (and any counter) inside run_agent, so that every call starts afresh with "
        "[{\"role\": \"user\", \"content\": task}]."),
    "own_turn_limit": (
        "The loop used a turn limit of its own instead of the max_turns it was given (this script's limit is not "
        "the usual 40). Count turns up to max_turns, the argument."),
    "results_as_assistant": (
        "The tool results were sent with role assistant. They answer the model, so they go in a user message: "
        '{"role": "user", "content": [the tool_result blocks]}.'),
    "reply_appended_twice": (
        "The model's reply was added to the conversation twice. Append it once, right after model.create."),
    "dropped_task": (
        "The task is no longer the first message. The API needs the whole conversation every time, starting with "
        "the user's task: send every message, do not cut old ones off."),
    "reply_as_text": (
        "The reply's content was turned into a string. "
        'Append reply["content"] as it came, the list of blocks: '
        "the tool_use blocks in it are what the next message's tool results answer."),
    "extra_print": (
        "Your loop printed a line the reference does not print. Print only the one line per tool call; put "
        "debugging output on sys.stderr (print(..., file=sys.stderr)), which the check does not compare."),
    "openai_tool_role": (
        'That is OpenAI\'s format: there each tool result is a message of its own with role "tool". The '
        "Messages API has only user and assistant messages: after a tool call, append ONE user message whose "
        'content is a list of tool_result blocks, one per call, each with the tool_use_id it answers.'),
    "openai_system_message": (
        'That is OpenAI\'s format: there the system prompt is a message with role "system". In the Messages API '
        "the system prompt is not a message at all but the separate system parameter of create (the exercise "
        "needs none): the messages are only user and assistant turns."),
    "openai_tool_calls": (
        'That is OpenAI\'s format: there the assistant message carries its calls in "tool_calls". In the Messages '
        'API the calls are tool_use blocks inside the content: append {"role": "assistant", "content": '
        'reply["content"]} as it came.'),
    "tool_lines": (
        "The lines printed for the tool calls differ. Print one line per call, "
        "turn <k>: <name> <json.dumps(input, sort_keys=True)> -> <the result's content>, turns counting from 1."),
}

_INDEX = re.compile(r"^messages\.(\d+)")


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _only_results(message: Any) -> bool:
    blocks = _blocks(message)
    return bool(blocks) and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)


def _blank_text(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return not content.strip()
    return any(isinstance(b, dict) and b.get("type") == "text" and not str(b.get("text") or "").strip()
               for b in _blocks(message))


def offending_index(reason: str, messages: Any) -> int | None:
    """The index of the message a refusal points at: the API's `messages.N`, or for the reasons worded
    without one, the message the rule tripped on."""
    match = _INDEX.match(reason)
    if match:
        return int(match.group(1))
    if not isinstance(messages, list) or not messages:
        return None
    roles = [_role(m) for m in messages]
    if "final message" in reason:
        return len(messages) - 1
    if "first message" in reason:
        return 0
    if "roles must alternate" in reason:
        return next((i for i in range(1, len(roles)) if roles[i] == roles[i - 1]), None)
    if 'role "system"' in reason:
        return roles.index("system") if "system" in roles else None
    if "text content blocks" in reason:
        return next((i for i, m in enumerate(messages) if _blank_text(m)), None)
    if "final block in an assistant message" in reason:
        return next((i for i, m in enumerate(messages) if roles[i] == "assistant" and _blocks(m)
                     and isinstance(_blocks(m)[-1], dict) and _blocks(m)[-1].get("type") == "thinking"), None)
    return None


def starts_with_task(messages: Any, task: str) -> bool:
    """Whether a request's first message is the task, as the user's (a string or one text block)."""
    if not isinstance(messages, list) or not messages or _role(messages[0]) != "user":
        return False
    content = messages[0].get("content")
    return content == task or content == [{"type": "text", "text": task}]


def _openai_shape(messages: list[Any]) -> tuple[str, int] | None:
    """The first message in OpenAI's chat format, and which OpenAI habit it shows."""
    for i, message in enumerate(messages):
        if _role(message) == "tool":
            return "openai_tool_role", i
        if _role(message) == "system":
            return "openai_system_message", i
        if isinstance(message, dict) and ("tool_calls" in message or "function_call" in message):
            return "openai_tool_calls", i
    return None


def history_mistake(seen: Observation, task: str) -> tuple[str, int | None, int] | None:
    """A mistake the whole run shows, whatever the first refusal said: (name, message index, request number)."""
    for number, messages in enumerate(seen.requests, 1):
        if not isinstance(messages, list) or not messages:
            continue
        if number == 1 and seen.earlier_scripts and len(messages) > 1:
            return "kept_state", 0, number
        openai = _openai_shape(messages)
        if openai:
            return openai[0], openai[1], number
        if not starts_with_task(messages, task):
            return ("kept_state" if number == 1 and seen.earlier_scripts else "dropped_task"), 0, number
    return None


def bad_request_mistake(reason: str, messages: Any, index: int | None, stop_reasons: list[Any],
                        request: int) -> tuple[str | None, int | None]:
    """The mistake behind a refused request, and the index of the message that is really wrong."""
    previous = stop_reasons[request - 2] if 2 <= request <= len(stop_reasons) + 1 else None
    if previous is not None and previous != "tool_use":
        return "kept_going", index
    if not isinstance(messages, list):
        return None, index
    texts = [i for i, m in enumerate(messages) if _role(m) == "assistant" and isinstance(m.get("content"), str)]
    if texts and index is not None and (index in texts or index - 1 in texts):
        return "reply_as_text", index if index in texts else index - 1
    if "roles must alternate" in reason and index is not None:
        if _role(messages[index]) == "user":
            return ("one_message_per_result" if _only_results(messages[index - 1]) else "reply_not_appended"), index
        if messages[index] == messages[index - 1]:
            return "reply_appended_twice", index
        if _only_results(messages[index]):
            return "results_as_assistant", index
    if "unexpected `tool_use_id`" in reason:
        return "wrong_tool_use_id", index
    if "without `tool_result` blocks immediately after" in reason:
        return "call_not_answered", index
    if "Did not find" in reason and "`tool_result` block(s) at the beginning" in reason:
        return "results_not_first", index
    if "final message must use" in reason:
        if index is not None and _only_results(messages[index]):
            return "results_as_assistant", index
        return "results_not_appended", index
    if "cannot be modified" in reason or "Invalid `signature`" in reason or "signature: Field required" in reason:
        return "content_changed", index
    if "Input should be a valid" in reason and index is not None \
            and isinstance(messages[index], dict) and isinstance(messages[index].get("content"), dict):
        return "whole_reply_appended", index
    return None, index


def reads_max_turns(source: str) -> bool | None:
    """Whether run_agent reads its third parameter (max_turns); None when that cannot be told."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    function = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                     and node.name == "run_agent"), None)
    if function is None or len(function.args.args) < 3:
        return None
    name = function.args.args[2].arg
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(function))


def decision_line(source: str, ran: list[int]) -> int | None:
    """Of the learner's lines that ran after the model's last reply, the one that decided to ask again: the
    first `if` or `while` test, else the last line (the call to model.create)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ran[-1] if ran else None
    tests = {node.lineno for node in ast.walk(tree) if isinstance(node, ast.If | ast.While)}
    return next((line for line in ran if line in tests), ran[-1] if ran else None)


_CONSOLE = ("turn ", "result: ", "messages sent each turn: ")


def output_mistake(state: RunState, seen: Observation, expected: list[str], actual: list[str],
                   line: int) -> str | None:
    """The mistake behind output that differs from the reference (no refused request, nothing raised)."""
    returned = seen.returned
    if returned is None:
        return None
    if returned["type"] != "str":
        return "not_a_string"
    if len(actual) > len(expected) and [x for x in actual if x.startswith(_CONSOLE)] == expected:
        return "extra_print"
    final = state.records[-1]
    if final.branch == "limit" and len(seen.requests) < state.max_turns:
        return "stopped_early"
    text = returned["text"]
    if text != state.result:
        if final.branch == "limit":
            return "wrong_limit_message"
        if final.branch == "stopped":
            return "wrong_stop_message"
        if final.branch == "answer":
            thoughts = [b["thinking"] for b in final.reply["content"] if b.get("type") == "thinking" and b["thinking"]]
            return "thinking_in_answer" if any(thought in text for thought in thoughts) else "answer_text"
        return None
    result_line = next((i for i, x in enumerate(expected) if x.startswith("result: ")), len(expected))
    if line < result_line:
        later = line < len(actual) and _later_turn(expected[line], actual[line])
        return "kept_state" if seen.earlier_scripts and later else "tool_lines"
    return None


def _later_turn(expected: str, actual: str) -> bool:
    """Whether a tool line counts its turn from further on than the reference's: a counter kept from before."""
    want, got = re.match(r"turn (\d+):", expected), re.match(r"turn (\d+):", actual)
    return bool(want and got) and int(got.group(1)) > int(want.group(1))
