# mistake: tool_input_changed
# A while loop that formats the input in place before running the call.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 1
    while turn <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        stop = reply["stop_reason"]
        if stop == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if stop != "tool_use":
            return f"stopped: {stop}"
        results = []
        for block in [b for b in reply["content"] if b["type"] == "tool_use"]:
            result = run_tool(block)
            block["input"] = json.dumps(block["input"], sort_keys=True)
            results.append(result)
            print("turn %d: %s %s -> %s" % (turn, block["name"], block["input"], result["content"]))
        messages.append({"role": "user", "content": results})
        turn += 1
    return f"stopped: no answer after {max_turns} turns"
