# mistake: result_wrapped
# Builds the tool_result by hand around what run_tool returned (already a tool_result).
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
                output = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {output['content']}")
                results.append({"type": "tool_result", "tool_use_id": b["id"], "content": [output]})
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
