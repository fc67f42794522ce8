# mistake: too_slow
# A throttle class keeps requests at least 0.45 s apart: the loop is right but the runaway outlasts the limit.
import json
import time


class Throttled:
    def __init__(self, model, gap):
        self.model, self.gap, self.last = model, gap, 0.0

    def create(self, messages):
        wait = self.last + self.gap - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.last = time.monotonic()
        return self.model.create(messages)


def run_agent(task, model, max_turns):
    client = Throttled(model, 0.45)
    client.last = time.monotonic()
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = client.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
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
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
