# mistake: none
# Sends a deep copy of the conversation every turn and keeps deep copies of what came back: nothing shared.
import copy
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = copy.deepcopy(model.create(copy.deepcopy(messages)))
        messages = copy.deepcopy(messages) + [{"role": "assistant", "content": reply["content"]}]
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in copy.deepcopy(reply["content"]):
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(copy.deepcopy(result))
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
