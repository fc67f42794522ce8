# mistake: none
# A correct while loop with a done flag and the answer set in one place.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    answer = None
    turn = 1
    while answer is None and turn <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        reason = reply["stop_reason"]
        if reason == "tool_use":
            results = []
            for block in reply["content"]:
                if block["type"] != "tool_use":
                    continue
                result = run_tool(block)
                print("turn %d: %s %s -> %s" % (turn, block["name"], json.dumps(block["input"], sort_keys=True),
                                               result["content"]))
                results.append(result)
            messages.append({"role": "user", "content": results})
            turn += 1
        elif reason == "end_turn":
            answer = "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        else:
            answer = "stopped: " + reason
    return answer if answer is not None else "stopped: no answer after %d turns" % max_turns
