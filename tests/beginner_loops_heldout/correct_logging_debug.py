# mistake: none
# Debug output through the logging module, which writes to stderr by default, so it does not count.
import json
import logging

logging.basicConfig(level=logging.DEBUG)
log = logging.getLogger("agent")


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        log.debug("turn %d: sending %d messages", turn, len(messages))
        reply = model.create(messages)
        log.debug("stop_reason=%s", reply["stop_reason"])
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return "stopped: " + reply["stop_reason"]
        tool_results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                log.info("result %r", result)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                tool_results.append(result)
        messages.append({"role": "user", "content": tool_results})
    return f"stopped: no answer after {max_turns} turns"
