# mistake: kept_state
# A module-level dataclass "memory" holds the messages; each task goes in with a note about the earlier ones,
# so the first request of a later run carries the earlier runs' replies.
import json
from dataclasses import dataclass, field


@dataclass
class Memory:
    messages: list = field(default_factory=list)


MEMORY = Memory()


def run_agent(task, model, max_turns):
    note = "New task" if MEMORY.messages else "Task"
    MEMORY.messages.append({"role": "user", "content": f"{note}: {task}"})
    for turn in range(1, max_turns + 1):
        reply = model.create(MEMORY.messages)
        MEMORY.messages.append({"role": "assistant", "content": reply["content"]})
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
        MEMORY.messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
