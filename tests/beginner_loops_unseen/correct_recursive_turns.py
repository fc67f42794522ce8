# mistake: none
# One turn per call, recursing with the next turn number and the grown conversation (a new list each time).
import json


def take_turn(model, messages, turn, max_turns):
    if turn > max_turns:
        return f"stopped: no answer after {max_turns} turns"
    reply = model.create(messages)
    messages = [*messages, {"role": "assistant", "content": reply["content"]}]
    if reply["stop_reason"] == "end_turn":
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
    if reply["stop_reason"] != "tool_use":
        return f"stopped: {reply['stop_reason']}"
    results = []
    for block in reply["content"]:
        if block["type"] == "tool_use":
            result = run_tool(block)
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
    return take_turn(model, [*messages, {"role": "user", "content": results}], turn + 1, max_turns)


def run_agent(task, model, max_turns):
    return take_turn(model, [{"role": "user", "content": task}], 1, max_turns)
