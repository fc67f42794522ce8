# mistake: none
# A correct loop as a small class, with debugging on stderr.
import json
import sys


class AgentLoop:
    def __init__(self, model, max_turns):
        self.model = model
        self.max_turns = max_turns

    def run(self, task):
        self.messages = [{"role": "user", "content": task}]
        for turn in range(1, self.max_turns + 1):
            reply = self.model.create(self.messages)
            print(f"[debug] turn {turn}: {reply['stop_reason']}", file=sys.stderr)
            self.messages.append({"role": "assistant", "content": reply["content"]})
            if reply["stop_reason"] == "end_turn":
                return self.text_of(reply)
            if reply["stop_reason"] != "tool_use":
                return f"stopped: {reply['stop_reason']}"
            self.messages.append({"role": "user", "content": self.run_calls(reply, turn)})
        return f"stopped: no answer after {self.max_turns} turns"

    @staticmethod
    def text_of(reply):
        return "".join(b["text"] for b in reply["content"] if b["type"] == "text")

    @staticmethod
    def run_calls(reply, turn):
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        return results


def run_agent(task, model, max_turns):
    return AgentLoop(model, max_turns).run(task)
