# mistake: none
# Collects the calls in a dict keyed by tool name, so two calls of the same tool in one reply would become one.
# No script has two calls of one tool in a reply, so the bug never shows: it must pass and name nothing.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        calls = {b["name"]: b for b in reply["content"] if b["type"] == "tool_use"}
        results = []
        for name, call in calls.items():
            result = run_tool(call)
            print(f"turn {turn}: {name} {json.dumps(call['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
