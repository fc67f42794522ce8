# mistake: kept_going
# Calls model.create once to test the stop reason and again to get the reply: each turn uses two replies.
# Where the first reply is max_tokens, refusal or pause_turn, it asks again after it: kept_going, marked on the
# line that asked. Where it throws a tool_use reply away, no listed mistake says why, and none is named.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        if model.create(messages)["stop_reason"] == "end_turn":
            reply = model.create(messages)
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
