# mistake: one_message_per_result
# A list comprehension turns each result into a user message of its own.
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
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        results = [run_tool(c) for c in calls]
        for c, r in zip(calls, results):
            print(f"turn {turn}: {c['name']} {json.dumps(c['input'], sort_keys=True)} -> {r['content']}")
        messages.extend([{"role": "user", "content": [r]} for r in results])
    return f"stopped: no answer after {max_turns} turns"
