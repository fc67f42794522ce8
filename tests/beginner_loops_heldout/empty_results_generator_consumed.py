# mistake: empty_results
# The results are a generator; printing them uses it up, so the message sent has no results at all.
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
        results = (run_tool(c) for c in calls)
        for c, r in zip(calls, results):
            print(f"turn {turn}: {c['name']} {json.dumps(c['input'], sort_keys=True)} -> {r['content']}")
        messages.append({"role": "user", "content": list(results)})
    return f"stopped: no answer after {max_turns} turns"
