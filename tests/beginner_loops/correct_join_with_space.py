# mistake: none
# A correct loop in a terse style: a dispatch dict of handlers per stop reason.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        content = reply["content"]
        messages.append({"role": "assistant", "content": content})
        reason = reply["stop_reason"]
        if reason == "end_turn":
            return "".join(part["text"] for part in content if part["type"] == "text")
        if reason != "tool_use":
            return "stopped: %s" % reason
        done = []
        for call in filter(lambda part: part["type"] == "tool_use", content):
            done.append(run_tool(call))
            print("turn {}: {} {} -> {}".format(turn, call["name"], json.dumps(call["input"], sort_keys=True),
                                               done[-1]["content"]))
        messages += [{"role": "user", "content": done}]
    return "stopped: no answer after {} turns".format(max_turns)
