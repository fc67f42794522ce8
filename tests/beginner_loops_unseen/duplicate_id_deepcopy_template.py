# mistake: unnamed
# Deep-copies the first result as a template and fills in each call's content: every copy keeps the first
# call's tool_use_id.
# (Labelled duplicate_result_id before its first run; that mistake now means one result sent twice, the same
# block, and here each copy has its own content under a wrong id: a wrong id, which no mistake names apart.)
import copy
import json


def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(b["text"] for b in reply["content"] if b["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        template = None
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {json.dumps(block['input'], sort_keys=True)} -> {result['content']}")
                if template is None:
                    template = copy.deepcopy(result)
                filled = copy.deepcopy(template)
                filled["content"] = result["content"]
                results.append(filled)
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"
