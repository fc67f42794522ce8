"""The classic mistakes of a hand-written agent loop, in the words a learner is shown: each name, what went wrong and
what to write instead. `mistakes.py` decides which one a failed check shows.
"""

MISTAKES: dict[str, str] = {
    "reply_not_appended": (
        "The model's reply was not added to the conversation. Each turn, append "
        '{"role": "assistant", "content": reply["content"]} before the tool results, or the results answer '
        "calls the model never made as far as the API can see."),
    "one_message_per_result": (
        "Each tool result went into a user message of its own. Run every call of the reply, then append ONE "
        "user message holding all of their results."),
    "wrong_tool_use_id": (
        "A tool result answers an id that the model's latest reply did not use. Answer each call of the latest "
        "reply with its own result: run_tool(block) sets tool_use_id from the block it ran."),
    "call_not_answered": (
        "A tool call went unanswered. Run every tool_use block of the reply, not just the first, and send all "
        "the results in the next message."),
    "results_not_first": (
        "The tool results are not at the start of the user message. The message after a tool call must begin "
        "with its tool_result blocks, one for each call; anything else you add (a text block, say) may only "
        "come after them."),
    "results_not_appended": (
        "The tool results were not added after the model's tool call. After running the calls, append one user "
        "message with their results before asking again."),
    "content_changed": (
        "The reply's content was changed before it went back: thinking blocks must be sent back exactly as they "
        'came. Append reply["content"] whole.'),
    "whole_reply_appended": (
        'The whole reply was used as the assistant message\'s content. The content is reply["content"], the '
        "list of blocks."),
    "kept_going": (
        "The loop asked the model again after a reply whose stop_reason was not tool_use. On end_turn return "
        "the answer; on any other reason return stopped: <reason>."),
    "ran_stopped_call": (
        "A tool call ran from a reply whose stop_reason was not tool_use (max_tokens, refusal, ...). Such a call "
        "may be cut off half written, or refused: run nothing and return stopped: <reason>. Decide what to do "
        'from reply["stop_reason"], not from whether the reply holds tool_use blocks.'),
    "no_turn_limit": (
        "The loop went on past max_turns turns. Send at most max_turns requests, then return "
        "stopped: no answer after <max_turns> turns."),
    "stopped_early": (
        "The loop gave up before max_turns turns. Turns count from 1 to max_turns, both included."),
    "too_slow": (
        "The loop was right as far as it got, but too slow: it waited before its requests (a time.sleep, a "
        "throttle, a backoff), and this script's turns add up past the time limit. The FakeModel answers at "
        "once and has no rate limit: take the waiting out (with a real model, the SDK retries and backs off "
        "for you)."),
    "endless_loop": (
        "The loop never finished. Does every way round it either send a request or return, and does it stop "
        "after max_turns turns?"),
    "thinking_in_answer": (
        "The answer includes the model's thinking. Return only the text blocks of the end_turn reply, joined; "
        "thinking stays in the conversation but never goes into the answer."),
    "answer_text": (
        "The answer is not the reply's text. On end_turn, return the text of its text blocks joined together; "
        'other blocks (thinking, tool_use) have no "text" and are left out.'),
    "wrong_limit_message": (
        "At the turn limit the loop returned the wrong message. Return exactly: "
        "stopped: no answer after <max_turns> turns."),
    "wrong_stop_message": (
        "On a stop reason other than end_turn and tool_use the loop did not return the stop message. Only "
        "end_turn carries an answer (a pause_turn or max_tokens reply's text is not one), and every other "
        "reason, even one your loop has never heard of, means the same: run nothing and return exactly "
        "stopped: <stop_reason> (not other words, and not an error raised)."),
    "not_a_string": "run_agent did not return a string. Return the answer's text, or the stopped: ... message.",
    "kept_state": (
        "Your run_agent remembered something from an earlier call: this run did not start from the task alone. "
        "Create the messages list (and any counter) inside run_agent, so that every call starts afresh with "
        "[{\"role\": \"user\", \"content\": task}]."),
    "own_turn_limit": (
        "The loop used a turn limit of its own instead of the max_turns it was given (a number in the code, "
        "a min() with one, a budget of calls): it stopped while the model was still calling tools. Count turns "
        "up to max_turns, the argument, and only that: each run may give another (short_leash gives 3)."),
    "results_as_assistant": (
        "The tool results were sent with role assistant. They answer the model, so they go in a user message: "
        '{"role": "user", "content": [the tool_result blocks]}.'),
    "reply_appended_twice": (
        "The model's reply was added to the conversation twice. Append it once, right after model.create."),
    "dropped_task": (
        "The task is no longer the first message. The API needs the whole conversation every time, starting with "
        "the user's task: send every message, do not cut old ones off."),
    "reply_as_text": (
        "The reply's content was turned into a string. "
        'Append reply["content"] as it came, the list of blocks: '
        "the tool_use blocks in it are what the next message's tool results answer."),
    "extra_print": (
        "Your loop printed a line the reference does not print. Print only the one line per tool call; put "
        "debugging output on sys.stderr (print(..., file=sys.stderr)), which the check does not compare."),
    "openai_tool_role": (
        'That is OpenAI\'s format: there each tool result is a message of its own with role "tool" (or the older '
        '"function"), naming its call in tool_call_id. The Messages API has only user and assistant messages: after '
        "a tool call, append ONE user message whose content is a list of tool_result blocks, one per call, each "
        "with the tool_use_id it answers, as run_tool returns them."),
    "openai_system_message": (
        'That is OpenAI\'s format: there the system prompt is a message with role "system". In the Messages API '
        "the system prompt is not a message at all but the separate system parameter of create (the exercise "
        "needs none): the messages are only user and assistant turns."),
    "openai_tool_calls": (
        'That is OpenAI\'s format: there the assistant message carries its calls in "tool_calls" (or as '
        '"function_call" items). In the Messages API the calls are tool_use blocks inside the content: append '
        '{"role": "assistant", "content": reply["content"]} as it came.'),
    "tool_lines": (
        "The lines printed for the tool calls differ. Print one line per call, "
        "turn <k>: <name> <json.dumps(input, sort_keys=True)> -> <the result's content>, turns counting from 1."),
    "did_not_go_round": (
        "The loop returned right after a tool_use reply, without sending the results back. tool_use means the "
        "model is waiting for them: append the results as one user message and go round, asking the model "
        "again; only end_turn (or another stop reason, or the turn limit) ends the loop."),
    "conversation_not_kept": (
        "The conversation did not grow: after the loop ran the model's calls, the next request carried no more "
        "messages than the one before it, and not that reply with its results, so the model never saw what its "
        "latest calls returned. Keep ONE messages list for the whole run, append each reply and each round of "
        "results to it, and send all of it every time."),
    "old_messages_dropped": (
        "Older messages were dropped from the conversation: a later request still carried the task and the "
        "model's latest call with its results, but left out messages the request before it had sent: the model "
        "no longer saw those calls of its own and what they returned. The API needs the whole conversation "
        "every time: keep every message and send all of them, however long the list gets."),
    "tool_input_changed": (
        "A tool call's input was changed before the reply went back: it is no longer the object the model "
        'wrote. Keep json.dumps(block["input"], sort_keys=True) in a variable of its own for the printed line, '
        "and leave the blocks of reply[\"content\"] as they came."),
    "sent_message_changed": (
        "A message the loop had already sent changed afterwards: one list or dict was appended to the "
        "conversation twice (a results = [] made once before the loop, one assistant dict reused), so adding to "
        "it changed the earlier message too. Make a new one for each message, inside the loop: results = [] "
        'each turn, and a new {"role": ..., "content": ...} for every append.'),
    "result_wrapped": (
        "A tool_result was wrapped in another tool_result. run_tool(block) already returns the whole "
        "tool_result block, with its tool_use_id: put it in the list of results as it is."),
    "results_as_text": (
        "The tool results were sent as ordinary text. The model only takes them as tool_result blocks, each "
        "with the tool_use_id of the call it answers: append ONE user message whose content is the list of "
        "blocks run_tool returned."),
    "reply_is_a_dict": (
        'Here the reply and its blocks are plain dicts, as the docstring says: reply["content"], '
        'block["type"], block["input"]. Attributes such as reply.content are the SDK\'s objects, not these.'),
    "awaited_plain_call": (
        "model.create and run_tool are plain functions here, not coroutines: each returns a dict at once, and a "
        "dict cannot be awaited. Call them without await: reply = model.create(messages), result = "
        "run_tool(block). Your run_agent may still be an async def; only these calls lose their await."),
    "empty_results": (
        "The message after the tool call held no results at all: every result was dropped on the way, or no "
        'block was run because the loop looked for another type than "tool_use". Run each block whose type is '
        '"tool_use" and put every block run_tool returns in the list you send.'),
    "duplicate_result_id": (
        "The same tool result went back twice: one call was run (or its result added) twice, and another call "
        "got none. Each result must come from running its own block: run_tool(block) once for each tool_use "
        "block, inside the loop over them, and send the block it returns as it is."),
    "reply_after_results": (
        "The tool results were appended before the reply that asked for them. The order is: the model's reply "
        "(the assistant message with the tool_use blocks) first, then ONE user message with their results."),
    "field_added": (
        "A field was added to a block of the model's reply before it went back, and the API refuses fields it "
        "does not know. Keep your own notes (a result, a turn number) in variables of your own, and append "
        'reply["content"] as it came.'),
}
