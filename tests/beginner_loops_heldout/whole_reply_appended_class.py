# mistake: whole_reply_appended
# A class-based agent that appends the whole reply dict as the assistant's content.
import json


class Agent:
    def __init__(self, model, max_turns):
        self.model = model
        self.max_turns = max_turns
        self.messages = []

    def run(self, task):
        self.messages.append({"role": "user", "content": task})
        for turn in range(1, self.max_turns + 1):
            reply = self.model.create(self.messages)
            self.messages.append({"role": "assistant", "content": reply})
            if reply["stop_reason"] == "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            if reply["stop_reason"] != "tool_use":
                return f"stopped: {reply['stop_reason']}"
            self.messages.append({"role": "user", "content": self.run_tools(reply, turn)})
        return f"stopped: no answer after {self.max_turns} turns"

    def run_tools(self, reply, turn):
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        return results


def run_agent(task, model, max_turns):
    return Agent(model, max_turns).run(task)
