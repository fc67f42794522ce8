# mistake: none
# Stop reasons dispatch through a dict of small functions; unknown ones fall to a default.
import json


def on_end(reply, turn, messages):
    return "".join(b["text"] for b in reply["content"] if b["type"] == "text")


def on_tools(reply, turn, messages):
    results = []
    for block in reply["content"]:
        if block["type"] == "tool_use":
            result = run_tool(block)
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
    messages.append({"role": "user", "content": results})
    return None


def on_other(reply, turn, messages):
    return f"stopped: {reply['stop_reason']}"


DISPATCH = {"end_turn": on_end, "tool_use": on_tools}


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        outcome = DISPATCH.get(reply["stop_reason"], on_other)(reply, turn, messages)
        if outcome is not None:
            return outcome
    return f"stopped: no answer after {max_turns} turns"
