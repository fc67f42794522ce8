# mistake: tool_lines
# A dispatch dict on stop_reason and itertools.count() for the turns: count() starts at 0, so the lines say
# turn 0, turn 1, ... (the limit itself is kept right).
import itertools
import json


def _answer(reply, messages, turn):
    return "".join(b["text"] for b in reply["content"] if b["type"] == "text")


def _tools(reply, messages, turn):
    results = []
    for block in reply["content"]:
        if block["type"] == "tool_use":
            result = run_tool(block)
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
    messages.append({"role": "user", "content": results})
    return None


HANDLERS = {"end_turn": _answer, "tool_use": _tools}


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in itertools.count():
        if turn >= max_turns:
            break
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        handler = HANDLERS.get(reply["stop_reason"])
        if handler is None:
            return f"stopped: {reply['stop_reason']}"
        answer = handler(reply, messages, turn)
        if answer is not None:
            return answer
    return f"stopped: no answer after {max_turns} turns"
