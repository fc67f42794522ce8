# mistake: old_messages_dropped
# Builds a new request each turn from the task and the latest exchange; nothing older is kept.
import json


def ask(model, task, last_exchange):
    return model.create([{"role": "user", "content": task}] + last_exchange)


def run_agent(task, model, max_turns):
    last_exchange = []
    for turn in range(1, max_turns + 1):
        reply = ask(model, task, last_exchange)
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
        last_exchange = [{"role": "assistant", "content": reply["content"]}, {"role": "user", "content": results}]
    return f"stopped: no answer after {max_turns} turns"
