# mistake: openai_tool_calls
# Puts the calls in an OpenAI-style tool_calls field of the assistant message.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        text = "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] == "end_turn":
            return text
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        messages.append({"role": "assistant", "content": text, "tool_calls": calls})
        results = []
        for block in calls:
            result = run_tool(block)
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
