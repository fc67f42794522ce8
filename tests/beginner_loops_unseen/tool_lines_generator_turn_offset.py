# mistake: tool_lines
# A generator yields each reply with its turn number, but enumerate starts at 2 ("the first turn was the task"),
# so every tool line is one turn ahead, on the first script as on every later one.
import json


def replies(model, messages, max_turns):
    for turn, _ in enumerate(range(max_turns), start=2):
        yield turn, model.create(messages)


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn, reply in replies(model, messages, max_turns):
        messages.append({"role": "assistant", "content": reply["content"]})
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
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
