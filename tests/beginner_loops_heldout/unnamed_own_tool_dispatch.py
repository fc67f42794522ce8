# mistake: unnamed
# Runs the tools itself instead of run_tool, and knows only add: every other tool's result is wrong
# (the printed line's format is right, its result is not).
import json


def my_run_tool(block):
    if block["name"] == "add":
        a, b = block["input"]["a"], block["input"]["b"]
        content = str(a + b)
    else:
        content = f"unknown tool {block['name']}"
    return {"type": "tool_result", "tool_use_id": block["id"], "content": content}


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
                r = my_run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
