# mistake: wrong_stop_message
# A dispatch dict from stop_reason to handler maps pause_turn to the answer handler.
import json


def answer(reply, messages, turn):
    return "".join(b["text"] for b in reply["content"] if b["type"] == "text")


def use_tools(reply, messages, turn):
    results = []
    for block in reply["content"]:
        if block["type"] == "tool_use":
            result = run_tool(block)
            print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
    messages.append({"role": "user", "content": results})


ON_STOP = {"end_turn": answer, "pause_turn": answer, "tool_use": use_tools}


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        handler = ON_STOP.get(reply["stop_reason"])
        if handler is None:
            return f"stopped: {reply['stop_reason']}"
        done = handler(reply, messages, turn)
        if done is not None:
            return done
    return f"stopped: no answer after {max_turns} turns"
