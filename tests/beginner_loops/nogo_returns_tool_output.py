# mistake: did_not_go_round
# Runs the tool and hands its output back as the answer instead of sending it to the model.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        stop = reply["stop_reason"]
        if stop == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if stop != "tool_use":
            return f"stopped: {stop}"
        outputs = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                outputs.append(result["content"])
        return "\n".join(outputs)
    return f"stopped: no answer after {max_turns} turns"
