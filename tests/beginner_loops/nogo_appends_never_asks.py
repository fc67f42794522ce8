# mistake: did_not_go_round
# Asks the model once, runs the calls, appends the results, and never asks again.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    reply = model.create(messages)
    messages.append({"role": "assistant", "content": reply["content"]})
    if reply["stop_reason"] not in ("end_turn", "tool_use"):
        return f"stopped: {reply['stop_reason']}"
    results = []
    for block in reply["content"]:
        if block["type"] == "tool_use":
            result = run_tool(block)
            print(f"turn 1: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
    if results:
        messages.append({"role": "user", "content": results})
    return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
