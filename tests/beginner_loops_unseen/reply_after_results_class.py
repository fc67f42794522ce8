# mistake: reply_after_results
# A class records each turn as "what the tools said, then what the model said": the reply lands after its results.
import json


class Transcript:
    def __init__(self, task):
        self.messages = [{"role": "user", "content": task}]

    def record(self, reply, results):
        self.messages.append({"role": "user", "content": results})
        self.messages.append({"role": "assistant", "content": reply["content"]})


def run_agent(task, model, max_turns):
    transcript = Transcript(task)
    for turn in range(1, max_turns + 1):
        reply = model.create(transcript.messages)
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
        transcript.record(reply, results)
    return f"stopped: no answer after {max_turns} turns"
