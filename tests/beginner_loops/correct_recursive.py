# mistake: none
# A correct loop written as recursion over the turn number.
import json


def run_agent(task, model, max_turns):
    return _step([{"role": "user", "content": task}], model, 1, max_turns)


def _step(messages, model, turn, max_turns):
    if turn > max_turns:
        return f"stopped: no answer after {max_turns} turns"
    reply = model.create(messages)
    messages.append({"role": "assistant", "content": reply["content"]})
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
    messages.append({"role": "user", "content": results})
    return _step(messages, model, turn + 1, max_turns)
