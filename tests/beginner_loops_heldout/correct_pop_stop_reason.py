# mistake: none
# Mutates the reply dict (pops stop_reason) but sends its content back untouched.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        why = reply.pop("stop_reason")
        messages.append({"role": "assistant", "content": reply["content"]})
        if why == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if why != "tool_use":
            return f"stopped: {why}"
        outs = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                out = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {out['content']}")
                outs.append(out)
        messages.append({"role": "user", "content": outs})
    return f"stopped: no answer after {max_turns} turns"
