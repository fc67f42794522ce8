# mistake: none
# Keeps the conversation as a tuple and rebuilds it each turn; it still grows and is sent whole.
import json


def run_agent(task, model, max_turns):
    convo = ({"role": "user", "content": task},)
    for turn in range(1, max_turns + 1):
        reply = model.create(convo)
        convo += ({"role": "assistant", "content": reply["content"]},)
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
                convo += ({"role": "user", "content": results},)
            case other:
                return f"stopped: {other}"
    return f"stopped: no answer after {max_turns} turns"
