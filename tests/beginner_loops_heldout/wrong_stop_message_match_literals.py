# mistake: wrong_stop_message
# match with a case per known reason, each with its own wording; refusal says "refused".
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        match reply["stop_reason"]:
            case "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            case "tool_use":
                results = []
                for b in reply["content"]:
                    if b["type"] == "tool_use":
                        r = run_tool(b)
                        print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                        results.append(r)
                messages.append({"role": "user", "content": results})
            case "refusal":
                return "stopped: refused"
            case reason:
                return f"stopped: {reason}"
    return f"stopped: no answer after {max_turns} turns"
