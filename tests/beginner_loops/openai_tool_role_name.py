# mistake: openai_tool_role
# role "tool" with a name field, in a while loop.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 1
    while turn <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        for call in (b for b in reply["content"] if b["type"] == "tool_use"):
            out = run_tool(call)
            print(f"turn {turn}: {call['name']} {json.dumps(call['input'], sort_keys=True)} -> {out['content']}")
            messages.append({"role": "tool", "name": call["name"], "tool_call_id": call["id"],
                             "content": str(out["content"])})
        turn += 1
    return f"stopped: no answer after {max_turns} turns"
