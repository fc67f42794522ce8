# mistake: kept_state
# The history is a class attribute, shared by every Agent made: each run adds its task (as two text blocks)
# to the same list, so a later run starts with the earlier ones' turns.
import json


class Agent:
    history = []

    def __init__(self, model, max_turns):
        self.model, self.max_turns = model, max_turns

    def run(self, task):
        self.history.append({"role": "user", "content": [{"type": "text", "text": "Task:"},
                                                         {"type": "text", "text": task}]})
        for turn in range(1, self.max_turns + 1):
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
                    print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                    results.append(result)
            self.history.append({"role": "user", "content": results})
        return f"stopped: no answer after {self.max_turns} turns"


def run_agent(task, model, max_turns):
    return Agent(model, max_turns).run(task)
