# mistake: none
# A dataclass holds one run's state, made fresh inside run_agent; methods do one step each.
import json
from dataclasses import dataclass, field


@dataclass
class Run:
    model: object
    max_turns: int
    messages: list = field(default_factory=list)
    turn: int = 0

    def step(self):
        self.turn += 1
        reply = self.model.create(self.messages)
        self.messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {self.turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        self.messages.append({"role": "user", "content": results})
        return None


def run_agent(task, model, max_turns):
    run = Run(model, max_turns, [{"role": "user", "content": task}])
    while run.turn < run.max_turns:
        outcome = run.step()
        if outcome is not None:
            return outcome
    return f"stopped: no answer after {max_turns} turns"
