# mistake: none
# Sends a deep copy each turn, appends through an alias of the list, strips the answer: all harmless here.
# (Written after reading the naming code, as a probe of its rules.)
import copy
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    history = messages
    for turn in range(1, max_turns + 1):
        reply = model.create(copy.deepcopy(messages))
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text").strip()
        history.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}", flush=True)
                results.append(r)
        history.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
