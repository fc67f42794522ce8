# mistake: reply_is_a_dict
# SDK-cookbook code: response.stop_reason, block.type, block.input.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        response = model.create(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason == "end_turn":
            return "".join(b.text for b in response.content if b.type == "text")
        if response.stop_reason != "tool_use":
            return f"stopped: {response.stop_reason}"
        results = []
        for block in response.content:
            if block.type == "tool_use":
                r = run_tool(block)
                print(f"turn {turn}: {block.name} {json.dumps(block.input, sort_keys=True)} -> {r['content']}")
                results.append(r)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
