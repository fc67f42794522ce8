# mistake: did_not_go_round
# A while loop that breaks out after the tool calls, as if the job were done.
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    answer = f"stopped: no answer after {max_turns} turns"
    turn = 1
    while turn <= max_turns:
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            answer = "".join(b["text"] for b in reply["content"] if b["type"] == "text")
            break
        if reply["stop_reason"] != "tool_use":
            answer = f"stopped: {reply['stop_reason']}"
            break
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                results.append(result)
        messages.append({"role": "user", "content": results})
        answer = "done"
        break
    return answer
