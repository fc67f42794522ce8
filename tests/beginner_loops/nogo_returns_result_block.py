# mistake: did_not_go_round
# Returns run_tool's result block itself as the answer, straight after the first call.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 1
    while turn <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "tool_use":
            for block in reply["content"]:
                if block["type"] == "tool_use":
                    result = run_tool(block)
                    print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> "
                          f"{result['content']}")
                    return result
        elif reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        else:
            return f"stopped: {reply['stop_reason']}"
        turn += 1
    return f"stopped: no answer after {max_turns} turns"
