# mistake: tool_lines
# Prints each line before running its call, with the result variable still holding the previous call's result.
# (Written after reading the naming code, as a probe of its rules.)
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    result = {"content": ""}
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
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {result['content']}")
                result = run_tool(b)
                results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
