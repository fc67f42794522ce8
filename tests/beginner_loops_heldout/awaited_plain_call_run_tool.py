# mistake: awaited_plain_call
# Made the whole loop async and awaited every helper: model.create is called as it is, run_tool is awaited.
import json


async def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = await run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
