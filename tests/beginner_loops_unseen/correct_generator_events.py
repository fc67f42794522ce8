# mistake: none
# A generator yields ("line", text) and ("done", answer) events; run_agent prints the lines and returns the end.
import json


def events(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            yield "done", "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            return
        if reply["stop_reason"] != "tool_use":
            yield "done", f"stopped: {reply['stop_reason']}"
            return
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                yield "line", f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}"
                results.append(result)
        messages.append({"role": "user", "content": results})
    yield "done", f"stopped: no answer after {max_turns} turns"


def run_agent(task, model, max_turns):
    for kind, value in events(task, model, max_turns):
        if kind == "line":
            print(value)
        else:
            return value
