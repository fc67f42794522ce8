# mistake: duplicate_result_id
# A generator that "caches" the result: it runs the first call and yields that same result for every call.
import json


def results_for(calls):
    result = None
    for call in calls:
        if result is None:
            result = run_tool(call)
        yield call, result


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        results = []
        for call, result in results_for([b for b in reply["content"] if b["type"] == "tool_use"]):
            print(f"turn {turn}: {call['name']} {json.dumps(call['input'], sort_keys=True)} -> {result['content']}")
            results.append(result)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
