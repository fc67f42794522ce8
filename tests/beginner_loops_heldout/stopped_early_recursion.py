# mistake: stopped_early
# Recursion that checks the limit with == before sending, so turn max_turns is never sent.
import json


def go(model, messages, turn, max_turns):
    if turn == max_turns:
        return f"stopped: no answer after {max_turns} turns"
    reply = model.create(messages)
    messages.append({"role": "assistant", "content": reply["content"]})
    if reply["stop_reason"] == "end_turn":
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
    if reply["stop_reason"] != "tool_use":
        return f"stopped: {reply['stop_reason']}"
    results = []
    for b in reply["content"]:
        if b["type"] == "tool_use":
            r = run_tool(b)
            print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
            results.append(r)
    messages.append({"role": "user", "content": results})
    return go(model, messages, turn + 1, max_turns)


def run_agent(task, model, max_turns):
    return go(model, [{"role": "user", "content": task}], 1, max_turns)
