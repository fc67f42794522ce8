# mistake: awaited_plain_call
# An AsyncAnthropic habit: a sync run_agent runs an async helper that awaits model.create(history).
import asyncio
import json


async def agent(task, model, max_turns):
    history = [{"role": "user", "content": task}]
    turn = 0
    while turn < max_turns:
        turn += 1
        response = (await model.create(history))
        history.append({"role": "assistant", "content": response["content"]})
        if response["stop_reason"] == "end_turn":
            return "".join(part["text"] for part in response["content"] if part["type"] == "text")
        if response["stop_reason"] != "tool_use":
            return f"stopped: {response['stop_reason']}"
        outputs = []
        for part in response["content"]:
            if part["type"] == "tool_use":
                output = run_tool(part)
                print(f"turn {turn}: {part['name']} {json.dumps(part['input'], sort_keys=True)} -> {output['content']}")
                outputs.append(output)
        history.append({"role": "user", "content": outputs})
    return f"stopped: no answer after {max_turns} turns"


def run_agent(task, model, max_turns):
    return asyncio.run(agent(task, model, max_turns))
