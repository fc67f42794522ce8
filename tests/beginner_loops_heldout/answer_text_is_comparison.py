# mistake: answer_text
# Compares the stop reason with "is": a string read from JSON is not the same object, so end_turn is missed
# and the answer comes back as "stopped: end_turn" (the evidence of end_turn_typo in tests/beginner_loops/).
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        reason = reply["stop_reason"]
        if reason == "tool_use":
            results = []
            for b in reply["content"]:
                if b["type"] == "tool_use":
                    r = run_tool(b)
                    print(f"turn {turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                    results.append(r)
            messages.append({"role": "user", "content": results})
            continue
        if reason is "end_turn":  # noqa: F632
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        return f"stopped: {reason}"
    return f"stopped: no answer after {max_turns} turns"
