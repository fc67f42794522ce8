# mistake: none
# functools.reduce over the turn numbers, carrying (messages, answer); once answered, later turns pass it on.
import functools
import json


def run_agent(task, model, max_turns):
    def step(carried, turn):
        messages, answer = carried
        if answer is not None:
            return carried
        reply = model.create(messages)
        messages = messages + [{"role": "assistant", "content": reply["content"]}]
        if reply["stop_reason"] == "end_turn":
            return messages, "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return messages, f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        return messages + [{"role": "user", "content": results}], None

    _, answer = functools.reduce(step, range(1, max_turns + 1), ([{"role": "user", "content": task}], None))
    return answer if answer is not None else f"stopped: no answer after {max_turns} turns"
