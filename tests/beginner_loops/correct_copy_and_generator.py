# mistake: none
# A correct loop that copies the reply's blocks and yields the calls from a generator.
import copy
import json


def calls_in(reply):
    for block in reply["content"]:
        if block["type"] == "tool_use":
            yield block


def run_agent(task, model, max_turns):
    messages = [dict(role="user", content=task)]
    for turn in range(1, max_turns + 1):
        reply = model.create(list(messages))
        messages.append(dict(role="assistant", content=copy.deepcopy(reply["content"])))
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        elif reply["stop_reason"] == "tool_use":
            results = [run_tool(call) for call in calls_in(reply)]
            for call, result in zip(calls_in(reply), results):
                print(f"turn {turn}: {call['name']} {json.dumps(call['input'], sort_keys=True)} -> {result['content']}")
            messages.append(dict(role="user", content=results))
        else:
            return f"stopped: {reply['stop_reason']}"
    return f"stopped: no answer after {max_turns} turns"
