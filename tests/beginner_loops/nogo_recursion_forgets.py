# mistake: did_not_go_round
# Recursive: handles a tool turn but returns the result text instead of recursing with the results.
import json


def run_agent(task, model, max_turns):
    return _turn([{"role": "user", "content": task}], model, 1, max_turns)


def _turn(messages, model, turn, max_turns):
    if turn > max_turns:
        return f"stopped: no answer after {max_turns} turns"
    reply = model.create(messages)
    messages.append({"role": "assistant", "content": reply["content"]})
    if reply["stop_reason"] == "end_turn":
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
    if reply["stop_reason"] != "tool_use":
        return f"stopped: {reply['stop_reason']}"
    results = [run_tool(b) for b in reply["content"] if b["type"] == "tool_use"]
    calls = [b for b in reply["content"] if b["type"] == "tool_use"]
    for block, result in zip(calls, results):
        print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
    messages.append({"role": "user", "content": results})
    return results[-1]["content"]
