# mistake: openai_tool_role
# Straight from the tinyagents lesson: one {"role": "tool", "tool_call_id": ...} message per result.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        msg = model.create(messages)
        messages.append({"role": "assistant", "content": msg["content"]})
        if msg["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in msg["content"] if b["type"] == "text")
        if msg["stop_reason"] != "tool_use":
            return f"stopped: {msg['stop_reason']}"
        for tc in msg["content"]:
            if tc["type"] != "tool_use":
                continue
            result = run_tool(tc)
            print(f"turn {turn}: {tc['name']} {json.dumps(tc['input'], sort_keys=True)} -> {result['content']}")
            messages.append({"role": "tool", "tool_call_id": tc["id"], "content": str(result["content"])})
    return f"stopped: no answer after {max_turns} turns"
