# mistake: none
# SDK-cookbook style: keyword arguments, max_tokens, a helper per tool call, text blocks for the answer.
import json


def handle_tool_call(block, turn):
    result = run_tool(block)
    args = json.dumps(block["input"], sort_keys=True)
    print(f"turn {turn}: {block['name']} {args} -> {result['content']}")
    return result


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": [{"type": "text", "text": task}]}]
    for turn in range(1, max_turns + 1):
        response = model.create(messages=messages, max_tokens=1024)
        messages.append({"role": "assistant", "content": response["content"]})
        if response["stop_reason"] == "tool_use":
            tool_results = [handle_tool_call(block, turn) for block in response["content"]
                            if block["type"] == "tool_use"]
            messages.append({"role": "user", "content": tool_results})
            continue
        if response["stop_reason"] == "end_turn":
            return "".join(block["text"] for block in response["content"] if block["type"] == "text")
        return f"stopped: {response['stop_reason']}"
    return f"stopped: no answer after {max_turns} turns"
