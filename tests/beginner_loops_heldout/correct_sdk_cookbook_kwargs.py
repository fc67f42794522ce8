# mistake: none
# Copied from an SDK cookbook: model, max_tokens and tools passed to create, a process_tool_call helper.
import json

MODEL_NAME = "claude-sonnet-4-5"


def process_tool_call(tool_use, turn):
    tool_result = run_tool(tool_use)
    print(f"turn {turn}: {tool_use['name']} {json.dumps(tool_use['input'], sort_keys=True)} -> {tool_result['content']}")
    return tool_result


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        response = model.create(model=MODEL_NAME, max_tokens=4096, messages=messages)
        messages.append({"role": "assistant", "content": response["content"]})
        if response["stop_reason"] == "tool_use":
            tool_uses = [c for c in response["content"] if c["type"] == "tool_use"]
            messages.append({"role": "user", "content": [process_tool_call(t, turn) for t in tool_uses]})
            continue
        if response["stop_reason"] == "end_turn":
            final_response = "".join(c["text"] for c in response["content"] if c["type"] == "text")
            return final_response
        return f"stopped: {response['stop_reason']}"
    return f"stopped: no answer after {max_turns} turns"
