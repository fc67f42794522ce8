# mistake: did_not_go_round
# mini before this lesson: one round of tools, then whatever the second reply says is the answer.
import json


def text_of(reply):
    return "".join(b["text"] for b in reply["content"] if b["type"] == "text")


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    reply = model.create(messages)
    messages.append({"role": "assistant", "content": reply["content"]})
    if reply["stop_reason"] == "tool_use":
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn 1: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
        reply = model.create(messages)
    if reply["stop_reason"] in ("end_turn", "tool_use"):
        return text_of(reply)
    return f"stopped: {reply['stop_reason']}"
