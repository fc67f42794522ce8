# mistake: kept_state
# A dataclass conversation created once at module level; run_agent resets the turn but not the messages.
import json
from dataclasses import dataclass, field


@dataclass
class State:
    messages: list = field(default_factory=list)
    turn: int = 0


STATE = State()


def run_agent(task, model, max_turns):
    STATE.turn = 0
    STATE.messages.append({"role": "user", "content": task})
    while STATE.turn < max_turns:
        STATE.turn += 1
        reply = model.create(STATE.messages)
        STATE.messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for b in reply["content"]:
            if b["type"] == "tool_use":
                r = run_tool(b)
                print(f"turn {STATE.turn}: {b['name']} {json.dumps(b['input'], sort_keys=True)} -> {r['content']}")
                results.append(r)
        STATE.messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
