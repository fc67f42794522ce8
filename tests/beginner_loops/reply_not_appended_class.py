# mistake: reply_not_appended
# A class that records the reply in a log of its own, not in the messages it sends.
import json


class Loop:
    def __init__(self, model):
        self.model = model
        self.messages = []
        self.log = []

    def ask(self):
        reply = self.model.create(self.messages)
        self.log.append(reply)
        return reply

    def answer_calls(self, reply, turn):
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        self.messages.append({"role": "user", "content": results})


def run_agent(task, model, max_turns):
    loop = Loop(model)
    loop.messages.append({"role": "user", "content": task})
    for turn in range(1, max_turns + 1):
        reply = loop.ask()
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        loop.answer_calls(reply, turn)
    return f"stopped: no answer after {max_turns} turns"
