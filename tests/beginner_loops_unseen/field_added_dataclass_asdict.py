# mistake: field_added
# Each tool call becomes a dataclass with a status field, and asdict() of it goes back in the reply's place.
import json
from dataclasses import asdict, dataclass


@dataclass
class Call:
    id: str
    name: str
    input: dict
    type: str = "tool_use"
    status: str = "pending"


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        content = [asdict(Call(b["id"], b["name"], b["input"])) if b["type"] == "tool_use" else b
                   for b in reply["content"]]
        messages.append({"role": "assistant", "content": content})
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
