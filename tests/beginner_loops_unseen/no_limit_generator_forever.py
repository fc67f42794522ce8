# mistake: no_turn_limit
# A generator that asks the model for ever; the loop over it has no turn limit, and max_turns goes unused
# except in the message it never reaches.
import json


def conversation(model, messages):
    while True:
        yield model.create(messages)


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 0
    for reply in conversation(model, messages):
        turn += 1
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
