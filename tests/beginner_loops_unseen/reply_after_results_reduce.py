# mistake: reply_after_results
# functools.reduce folds each turn into the conversation, adding the results message before the reply.
import functools
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
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
        turn_messages = [{"role": "user", "content": results}, {"role": "assistant", "content": reply["content"]}]
        messages = functools.reduce(lambda acc, m: acc + [m], turn_messages, messages)
    return f"stopped: no answer after {max_turns} turns"
