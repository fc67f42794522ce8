def run_agent(task, model, max_turns):
    """Run the agent loop for one task and return what it ends with.

    You are given:
      model.create(messages) -> reply
          Checks the request as the real API would, then returns the next reply
          as a plain dict: {"stop_reason": ..., "content": [blocks]}. A block is
          {"type": "text", "text": ...},
          {"type": "thinking", "thinking": ..., "signature": ...} (send it back as it came) or
          {"type": "tool_use", "id": ..., "name": ..., "input": {...}}.
          A bad request stops the run with "bad request: <reason>".
      run_tool(block) -> result
          Runs one tool_use block and returns the tool_result block that answers
          it: {"type": "tool_result", "tool_use_id": ..., "content": ...}.

    What to write:
      - Start the conversation with the task, as the user's message.
      - Each turn, send the whole conversation, then append the reply's whole
        content as one assistant message.
      - "end_turn": return the text of the reply's text blocks, joined.
      - "tool_use": run every tool call, printing one line for each,
            turn <k>: <name> <json.dumps(input, sort_keys=True)> -> <result content>
        (turns count from 1), then append ONE user message holding all the results.
      - Any other stop_reason: run nothing, return "stopped: <stop_reason>".
      - After max_turns turns, return "stopped: no answer after <max_turns> turns".

    Check it with: python -m agent check-loop this_file.py
    """
