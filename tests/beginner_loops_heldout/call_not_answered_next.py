# mistake: call_not_answered
# Takes the first tool_use block with next(), as in a single-tool tutorial.
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
        tool_call = next(b for b in reply["content"] if b["type"] == "tool_use")
        result = run_tool(tool_call)
        print(f"turn {turn}: {tool_call['name']} {json.dumps(tool_call['input'], sort_keys=True)} -> {result['content']}")
        messages.append({"role": "user", "content": [result]})
    return f"stopped: no answer after {max_turns} turns"
