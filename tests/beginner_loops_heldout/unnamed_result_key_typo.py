# mistake: unnamed
# Builds the tool_result by hand with "id" where the API wants "tool_use_id" (a wrong result shape).
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
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                content = run_tool(b)["content"]
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {content}")
                results.append({"type": "tool_result", "id": b["id"], "content": content})
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
