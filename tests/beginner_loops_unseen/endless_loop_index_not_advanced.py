# mistake: endless_loop
# Walks the blocks with an index, but `continue` on a block that is not a tool call skips `i += 1`: the
# first thinking or text block spins for ever.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        blocks = reply["content"]
        results = []
        i = 0
        while i < len(blocks):
            if blocks[i]["type"] != "tool_use":
                continue
            if reply["stop_reason"] == "tool_use":
                result = run_tool(blocks[i])
                print(f"turn {turn}: {blocks[i]['name']} {json.dumps(blocks[i]['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
            i += 1
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in blocks if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
