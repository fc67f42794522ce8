# mistake: did_not_go_round
# Treats every stop reason but end_turn as a stop, tool_use included: returns "stopped: tool_use".
def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    turn = 0
    while turn < max_turns:
        turn += 1
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        return "stopped: " + reply["stop_reason"]
    return f"stopped: no answer after {max_turns} turns"
