# mistake: tool_lines
# The number printed counts tool calls, not turns, so two calls in one turn show as turns 1 and 2.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    step = 0
    for _ in range(max_turns):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                step += 1
                r = run_tool(b)
                print(f"turn {step}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
