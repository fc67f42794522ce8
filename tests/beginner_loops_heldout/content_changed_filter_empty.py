# mistake: content_changed
# Keeps only blocks with text or a tool call before sending the reply back, which drops the thinking.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        kept = [b for b in reply["content"] if b.get("text") or b["type"] == "tool_use"]
        messages.append({"role": "assistant", "content": kept})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in kept if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in kept:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
