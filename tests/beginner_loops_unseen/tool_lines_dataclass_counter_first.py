# mistake: tool_lines
# Fresh dataclass state each call, but the turn counter is bumped before the first line is printed as well
# as at the top of the turn: every line is one turn ahead.
import json
from dataclasses import dataclass, field


@dataclass
class State:
    messages: list = field(default_factory=list)
    turn: int = 0


def run_agent(task, model, max_turns):
    state = State(messages=[{"role": "user", "content": task}])
    while state.turn < max_turns:
        state.turn += 1
        reply = model.create(state.messages)
        state.messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        shown = state.turn + 1
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {shown}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        state.messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
