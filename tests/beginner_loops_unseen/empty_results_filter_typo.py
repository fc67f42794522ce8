# mistake: empty_results
# A class keeps only the blocks whose type is "tool_results" (a typo): every result is dropped before sending.
import json


class Loop:
    def __init__(self, model, max_turns):
        self.model, self.max_turns = model, max_turns

    def results_for(self, reply, turn):
        out = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                out.append(result)
        return [r for r in out if r["type"] == "tool_results"]

    def run(self, task):
        messages = [{"role": "user", "content": task}]
        for turn in range(1, self.max_turns + 1):
            reply = self.model.create(messages)
            messages.append({"role": "assistant", "content": reply["content"]})
            if reply["stop_reason"] == "end_turn":
                return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            if reply["stop_reason"] != "tool_use":
                return f"stopped: {reply['stop_reason']}"
            messages.append({"role": "user", "content": self.results_for(reply, turn)})
        return f"stopped: no answer after {self.max_turns} turns"


def run_agent(task, model, max_turns):
    return Loop(model, max_turns).run(task)
