# mistake: kept_going
# Knows about pause_turn from the docs and asks again on it, which the exercise's rule does not allow.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        stop = reply["stop_reason"]
        if stop == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if stop == "pause_turn":
            continue
        if stop != "tool_use":
            return f"stopped: {stop}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
