# mistake: kept_state
# One Agent object made at import time and reused by every call, so its history carries over.
import json


class Agent:
    def __init__(self):
        self.history = []

    def ask(self, model, task, max_turns):
        self.history.append({"role": "user", "content": task})
        for turn in range(1, max_turns + 1):
            reply = model.create(self.history)
            self.history.append({"role": "assistant", "content": reply["content"]})
            if reply["stop_reason"] == "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            if reply["stop_reason"] != "tool_use":
                return f"stopped: {reply['stop_reason']}"
            results = []
            for b in reply["content"]:
                if b["type"] == "tool_use":
                    r = run_tool(b)
                    print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                    results.append(r)
            self.history.append({"role": "user", "content": results})
        return f"stopped: no answer after {max_turns} turns"


agent = Agent()


def run_agent(task, model, max_turns):
    return agent.ask(model, task, max_turns)
