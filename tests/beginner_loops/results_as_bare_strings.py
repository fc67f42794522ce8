# mistake: results_as_text
# Keeps only each result's content, so the user message is a list of bare strings.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 0
    while turn < max_turns:
        turn += 1
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        outputs = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                output = run_tool(block)["content"]
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {output}")
                outputs.append(output)
        messages.append({"role": "user", "content": outputs})
    return f"stopped: no answer after {max_turns} turns"
