# mistake: did_not_go_round
# A match with no case for tool_use: it falls into the catch-all and returns "stopped: tool_use".
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        match reply["stop_reason"]:
            case "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            case _:
                for block in reply["content"]:
                    if block["type"] == "tool_use" and reply["stop_reason"] == "tool_use":
                        result = run_tool(block)
                        print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> "
                              f"{result['content']}")
                return f"stopped: {reply['stop_reason']}"
    return f"stopped: no answer after {max_turns} turns"
