# mistake: own_turn_limit
# Caps the limit "to save money": min(max_turns, 25) stops the runaway at 25 instead of 40.
import json

BUDGET_TURNS = 25


def run_agent(task, model, max_turns):
    limit = min(max_turns, BUDGET_TURNS)
    messages = [{"role": "user", "content": task}]
    for turn in range(1, limit + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {limit} turns"
