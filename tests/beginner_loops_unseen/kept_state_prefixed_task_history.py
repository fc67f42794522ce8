# mistake: kept_state
# One conversation at module level "so the agent remembers", each task added as "Task: ...": a later run's
# first request is a valid continuation of the earlier runs, and is refused only further on.
import json

_conversation = []


def run_agent(task, model, max_turns):
    _conversation.append({"role": "user", "content": f"Task: {task}"})
    for turn in range(1, max_turns + 1):
        reply = model.create(_conversation)
        _conversation.append({"role": "assistant", "content": reply["content"]})
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
        _conversation.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
