# mistake: conversation_not_kept
# Sends messages + the new turn each time but never stores it: every request is the task alone.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    pending = []
    for turn in range(1, max_turns + 1):
        reply = model.create(messages + pending)
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
        messages + [{"role": "assistant", "content": reply["content"]}, {"role": "user", "content": results}]
    return f"stopped: no answer after {max_turns} turns"
