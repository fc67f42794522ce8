# mistake: empty_results
# map() gives an iterator: printing the lines uses it up, so list(results) afterwards is empty.
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
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        results = map(run_tool, calls)
        for call, result in zip(calls, results):
            print(f"turn {turn}: {call['name']} {json.dumps(call['input'], sort_keys=True)} -> {result['content']}")
        messages.append({"role": "user", "content": list(results)})
    return f"stopped: no answer after {max_turns} turns"
