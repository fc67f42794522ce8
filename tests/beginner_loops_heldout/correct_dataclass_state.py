# mistake: none
# A dataclass holds the conversation; a fresh one is made on every call.
import json
from dataclasses import dataclass, field


@dataclass
class Conversation:
    task: str
    messages: list = field(default_factory=list)

    def __post_init__(self):
        self.messages.append({"role": "user", "content": self.task})

    def add_reply(self, reply):
        self.messages.append({"role": "assistant", "content": reply["content"]})

    def add_results(self, results):
        self.messages.append({"role": "user", "content": results})


def answer_text(reply):
    return "".join(block["text"] for block in reply["content"] if block["type"] == "text")


def run_agent(task, model, max_turns):
    convo = Conversation(task)
    for turn in range(1, max_turns + 1):
        reply = model.create(convo.messages)
        convo.add_reply(reply)
        stop = reply["stop_reason"]
        if stop == "end_turn":
            return answer_text(reply)
        if stop != "tool_use":
            return f"stopped: {stop}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        convo.add_results(results)
    return f"stopped: no answer after {max_turns} turns"
