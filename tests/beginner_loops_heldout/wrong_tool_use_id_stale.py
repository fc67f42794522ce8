# mistake: wrong_tool_use_id
# Builds each tool_result by hand, but the id comes from a variable set on the first turn only.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    call_id = None
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] != "tool_use":
                continue
            if call_id is None:
                call_id = block["id"]
            output = run_tool(block)["content"]
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {output}")
            results.append({"type": "tool_result", "tool_use_id": call_id, "content": output})
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
