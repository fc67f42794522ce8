# mistake: kept_state
# The history is a class attribute, so every Agent shares one list.
import json


class Agent:
    history = []

    def __init__(self, model):
        self.model = model

    def run(self, task, max_turns):
        self.history.append({"role": "user", "content": task})
        for turn in range(1, max_turns + 1):
            reply = self.model.create(self.history)
            self.history.append({"role": "assistant", "content": reply["content"]})
            if reply["stop_reason"] == "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            if reply["stop_reason"] != "tool_use":
                return f"stopped: {reply['stop_reason']}"
            results = []
            for block in reply["content"]:
                if block["type"] == "tool_use":
                    result = run_tool(block)
                    print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> "
                          f"{result['content']}")
                    results.append(result)
            self.history.append({"role": "user", "content": results})
        return f"stopped: no answer after {max_turns} turns"


def run_agent(task, model, max_turns):
    return Agent(model).run(task, max_turns)
