# mistake: did_not_go_round
# A class whose run() takes one step and reports the last reply's text, tool turn or not.
import json


class Agent:
    def __init__(self, model, max_turns):
        self.model = model
        self.max_turns = max_turns
        self.messages = []
        self.turn = 0

    def step(self):
        self.turn += 1
        reply = self.model.create(self.messages)
        self.messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "tool_use":
            results = []
            for block in reply["content"]:
                if block["type"] == "tool_use":
                    result = run_tool(block)
                    shown = json.dumps(block["input"], sort_keys=True)
                    print(f"turn {self.turn}: {block['name']} {shown} -> {result['content']}")
                    results.append(result)
            self.messages.append({"role": "user", "content": results})
        return reply

    def run(self, task):
        self.messages.append({"role": "user", "content": task})
        reply = self.step()
        if reply["stop_reason"] not in ("end_turn", "tool_use"):
            return f"stopped: {reply['stop_reason']}"
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")


def run_agent(task, model, max_turns):
    return Agent(model, max_turns).run(task)
