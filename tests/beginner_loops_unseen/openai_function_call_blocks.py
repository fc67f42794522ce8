# mistake: openai_tool_calls
# Rewrites the reply's calls in the Responses API's shape (function_call blocks with call_id and arguments)
# before appending it, and answers them with function_call_output blocks.
import json


def as_openai(block):
    if block["type"] != "tool_use":
        return block
    return {"type": "function_call", "call_id": block["id"], "name": block["name"],
            "arguments": json.dumps(block["input"])}


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": [as_openai(b) for b in reply["content"]]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        outputs = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                outputs.append({"type": "function_call_output", "call_id": block["id"], "output": result["content"]})
        messages.append({"role": "user", "content": outputs})
    return f"stopped: no answer after {max_turns} turns"
