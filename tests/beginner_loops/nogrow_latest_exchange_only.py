# mistake: old_messages_dropped
# Sends the task plus only the latest call and its results, to save tokens.
import json


def run_agent(task, model, max_turns):
    first = {"role": "user", "content": task}
    latest = []
    for turn in range(1, max_turns + 1):
        reply = model.create([first] + latest)
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        latest = [{"role": "assistant", "content": reply["content"]}, {"role": "user", "content": results}]
    return f"stopped: no answer after {max_turns} turns"
