# mistake: own_turn_limit
# Copied the lesson's MAX_TURNS = 40 and loops on it, ignoring the max_turns argument.
import json

MAX_TURNS = 40


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(MAX_TURNS):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        results = [run_tool(b) for b in calls]
        for b, r in zip(calls, results):
            print(f"turn {turn + 1}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {MAX_TURNS} turns"
