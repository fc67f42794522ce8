# mistake: kept_going
# Only two branches: end_turn returns, anything else is treated as a tool round and the loop goes on.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use" and reply["stop_reason"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        if results:
            messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
