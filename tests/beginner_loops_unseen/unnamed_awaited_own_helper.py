# mistake: unnamed
# Awaits a helper of its own that returns the reply's blocks, a list: not model.create or run_tool awaited.
import json


def blocks_of(reply):
    return reply["content"]


async def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        content = await blocks_of(reply)
        messages.append({"role": "assistant", "content": content})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in content if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in content:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
