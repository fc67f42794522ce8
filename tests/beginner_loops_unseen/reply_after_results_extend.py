# mistake: reply_after_results
# One extend per turn, with the two messages in the wrong order: results first, reply second.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 1
    while turn <= max_turns:
        reply = model.create(messages)
        stop = reply["stop_reason"]
        if stop == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if stop != "tool_use":
            return f"stopped: {stop}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        messages.extend([{"role": "user", "content": results}, {"role": "assistant", "content": reply["content"]}])
        turn += 1
    return f"stopped: no answer after {max_turns} turns"
