# mistake: did_not_go_round
# match on stop_reason: the tool_use case runs the calls, then falls out of the match to a return.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        match reply["stop_reason"]:
            case "end_turn":
                pass
            case "tool_use":
                results = []
                for block in reply["content"]:
                    if block["type"] == "tool_use":
                        result = run_tool(block)
                        print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> "
                              f"{result['content']}")
                        results.append(result)
                messages.append({"role": "user", "content": results})
            case other:
                return f"stopped: {other}"
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
    return f"stopped: no answer after {max_turns} turns"
