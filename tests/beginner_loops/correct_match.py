# mistake: none
# A correct loop that matches on stop_reason.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 0
    while turn < max_turns:
        turn += 1
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        match reply["stop_reason"]:
            case "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            case "tool_use":
                results = []
                for block in (b for b in reply["content"] if b["type"] == "tool_use"):
                    result = run_tool(block)
                    line = json.dumps(block["input"], sort_keys=True)
                    print(f"turn {turn}: {block['name']} {line} -> {result['content']}")
                    results.append(result)
                messages.append({"role": "user", "content": results})
            case reason:
                return f"stopped: {reason}"
    return f"stopped: no answer after {max_turns} turns"
