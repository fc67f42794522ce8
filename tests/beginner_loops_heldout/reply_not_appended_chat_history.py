# mistake: reply_not_appended
# LangChain-style naming; the tool results go into chat_history but the model's reply never does.
import json


def run_agent(task, model, max_turns):
    chat_history = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        ai_message = model.create(chat_history)
        if ai_message["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in ai_message["content"] if b["type"] == "text")
        if ai_message["stop_reason"] != "tool_use":
            return f"stopped: {ai_message['stop_reason']}"
        observations = []
        for action in ai_message["content"]:
            if action["type"] == "tool_use":
                observation = run_tool(action)
                print(f"turn {turn}: {action['name']} {json.dumps(action['input'], sort_keys=True)} -> {observation['content']}")
                observations.append(observation)
        chat_history.append({"role": "user", "content": observations})
    return f"stopped: no answer after {max_turns} turns"
