# mistake: own_turn_limit
# A dataclass budget of tool calls (8) stops the loop before max_turns: the runaway ends after 9 turns.
import json
from dataclasses import dataclass


@dataclass
class Budget:
    calls_left: int = 8

    def spend(self):
        self.calls_left -= 1
        return self.calls_left >= 0


def run_agent(task, model, max_turns):
    budget = Budget()
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
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
        if not budget.spend():
            break
    return f"stopped: no answer after {max_turns} turns"
