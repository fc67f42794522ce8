# mistake: ran_stopped_call
# Decides from whether the reply holds tool calls, not from stop_reason.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        if not calls:
            if reply["stop_reason"] == "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in calls:
            result = run_tool(block)
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
