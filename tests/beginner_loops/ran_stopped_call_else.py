# mistake: ran_stopped_call
# Anything that is not end_turn is treated as a tool turn.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 1
    while turn <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        if not results:
            return f"stopped: {reply['stop_reason']}"
        messages.append({"role": "user", "content": results})
        turn += 1
    return f"stopped: no answer after {max_turns} turns"
