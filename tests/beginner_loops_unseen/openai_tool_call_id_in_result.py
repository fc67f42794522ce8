# mistake: openai_tool_role
# Builds each result by hand with OpenAI's key, tool_call_id, where a tool_result needs tool_use_id.
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
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                output = run_tool(block)["content"]
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {output}")
                results.append({"type": "tool_result", "tool_call_id": block["id"], "content": output})
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
