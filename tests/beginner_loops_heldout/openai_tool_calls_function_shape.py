# mistake: openai_tool_calls
# Rebuilds the assistant message in OpenAI's shape: text content plus a tool_calls list.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        text = "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        assistant = {"role": "assistant", "content": text or None}
        if calls:
            assistant["tool_calls"] = [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c["input"])}}
                for c in calls
            ]
        messages.append(assistant)
        if reply["stop_reason"] == "end_turn":
            return text
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for c in calls:
            r = run_tool(c)
            print(f"turn {turn}: {c['name']} {json.dumps(c['input'], sort_keys=True)} -> {r['content']}")
            results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
