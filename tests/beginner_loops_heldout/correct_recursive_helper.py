# mistake: none
# Recursion: one call of step per turn, the turn number passed down.
import json


def step(model, messages, turn, max_turns):
    if turn > max_turns:
        return f"stopped: no answer after {max_turns} turns"
    reply = model.create(messages)
    messages = messages + [{"role": "assistant", "content": reply["content"]}]
    if reply["stop_reason"] == "end_turn":
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
    if reply["stop_reason"] != "tool_use":
        return f"stopped: {reply['stop_reason']}"
    results = []
    for b in reply["content"]:
        if b["type"] == "tool_use":
            res = run_tool(b)
            print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {res['content']}")
            results.append(res)
    return step(model, messages + [{"role": "user", "content": results}], turn + 1, max_turns)


def run_agent(task, model, max_turns):
    return step(model, [{"role": "user", "content": task}], 1, max_turns)
