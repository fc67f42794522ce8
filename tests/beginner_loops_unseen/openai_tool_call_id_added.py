# mistake: openai_tool_role
# Adds tool_call_id beside tool_use_id to each result "for compatibility", a key the Messages API refuses.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 0
    while turn < max_turns:
        turn += 1
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                result["tool_call_id"] = block["id"]
                results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
