# mistake: none
# A while loop with the walrus operator counting turns; answer built with a list comprehension.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 0
    while (turn := turn + 1) <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if (reason := reply["stop_reason"]) == "end_turn":
            return "".join([b["text"] for b in reply["content"] if b["type"] == "text"])
        if reason != "tool_use":
            return f"stopped: {reason}"
        results = []
        for b in reply["content"]:
            if b["type"] != "tool_use":
                continue
            r = run_tool(b)
            print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
            results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
