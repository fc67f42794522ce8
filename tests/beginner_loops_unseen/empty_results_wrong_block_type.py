# mistake: empty_results
# functools.reduce gathers the results, but looks for blocks of type "tool_call": none match, no tool runs,
# and the results message goes out empty.
import functools
import json


def _run(turn):
    def step(results, block):
        if block["type"] != "tool_call":
            return results
        result = run_tool(block)
        print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
        return results + [result]
    return step


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        messages.append({"role": "user", "content": functools.reduce(_run(turn), reply["content"], [])})
    return f"stopped: no answer after {max_turns} turns"
