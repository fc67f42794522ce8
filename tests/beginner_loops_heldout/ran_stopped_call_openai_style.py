# mistake: ran_stopped_call
# OpenAI habit: "if there are tool calls, run them", checked before stop_reason.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        tool_calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        if tool_calls:
            results = []
            for call in tool_calls:
                r = run_tool(call)
                print(f"turn {turn}: {call['name']} {json.dumps(call['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
            messages.append({"role": "user", "content": results})
            continue
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        return f"stopped: {reply['stop_reason']}"
    return f"stopped: no answer after {max_turns} turns"
