# mistake: openai_system_message
# A small class that seeds its history with a system prompt.
import json


class Conversation:
    def __init__(self, task):
        self.messages = [{"role": "system", "content": "Answer with the tools you have."}]
        self.add("user", task)

    def add(self, role, content):
        self.messages.append({"role": role, "content": content})


def run_agent(task, model, max_turns):
    chat = Conversation(task)
    turn = 0
    while True:
        turn += 1
        if turn > max_turns:
            return f"stopped: no answer after {max_turns} turns"
        reply = model.create(chat.messages)
        chat.add("assistant", reply["content"])
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
        chat.add("user", results)
