# mistake: wrong_stop_message
# Handles the stop reasons it knows and raises on any other one, instead of returning stopped: <reason>.
import json

KNOWN_STOPS = ("max_tokens", "refusal", "pause_turn", "stop_sequence")


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] in KNOWN_STOPS:
            return f"stopped: {reply['stop_reason']}"
        if reply["stop_reason"] != "tool_use":
            raise ValueError(f"unknown stop_reason: {reply['stop_reason']}")
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
