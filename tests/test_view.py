"""The page's plain functions: summaries, snapshots, outcomes, the loop's marked source, the HTML pieces."""

import ast
import html
import json
import re
from pathlib import Path

import pytest

from agent import summary
from agent.branches import RunTree
from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.models.toy import ToyModel
from agent.page import real_model, safe_text, view
from agent.page.html_cards import highlight, message_html, messages_html, source_html
from agent.page.lesson_loop import RAISED, RAISED_ELSE, find_parts, lesson_source, loop_caption, shown_record
from agent.page.names import OutcomeKind
from agent.scripts import builtin_names, load_script
from agent.summary import console_lines
from helpers import fake_run, reply, text, thinking, tool_use

ROOT = Path(__file__).resolve().parent.parent


def scripted(name: str, steps: int | None = None) -> tuple[RunState, FakeModel]:
    script = load_script(name)
    state = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    model = FakeModel(script)
    if steps is None:
        while not state.done:
            step(state, model)
    else:
        for _ in range(steps):
            step(state, model)
    return state, model


def test_clip_keeps_short_text_and_cuts_long_text_on_one_line():
    assert summary.clip("a\n b", 10) == "a b"
    assert summary.clip("x" * 30, 10) == "x" * 9 + "…"


def test_block_and_message_lines_say_what_each_block_holds():
    assert summary.block_line(tool_use("toolu_01")) == 'tool_use toolu_01 add {"a": 2, "b": 3}'
    assert summary.block_line(thinking()) == "thinking (empty)"
    assert summary.block_line(text("hi")) == 'text "hi"'
    result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "error: boom", "is_error": True}
    assert summary.block_line(result) == "tool_result toolu_01 (error): error: boom"
    as_blocks = {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "5"}]}
    assert summary.block_line(as_blocks) == "tool_result t: 5"
    assert summary.message_line({"role": "user", "content": "What is 2 + 3?"}) == 'user: "What is 2 + 3?"'
    assert summary.message_line({"role": "assistant", "content": [thinking(), tool_use("toolu_01")]}) == (
        'assistant: thinking (empty) · tool_use toolu_01 add {"a": 2, "b": 3}')
    assert summary.message_line(["not", "a", "dict"]) == 'not a message: ["not", "a", "dict"]'
    assert summary.message_line({"role": "user", "content": 7}) == "user: content 7"
    assert summary.message_line({"role": "user", "content": []}) == "user: (no blocks)"


def test_added_by_turn_is_the_reply_and_the_results():
    state, _ = scripted("add_then_answer")
    assert list(view.added_by_turn(state, 1)) == [1, 2]
    assert list(view.added_by_turn(state, 2)) == [3]
    assert list(view.added_by_turn(state, 3)) == []


@pytest.mark.parametrize("name", ["three_tool_chain", "overloaded_529", "failing_tool", "runaway"])
def test_a_snapshot_is_the_run_as_it_stood_after_that_turn(name):
    finished, _ = scripted(name)
    for turn in range(finished.turn + 1):
        stopped_there, _ = scripted(name, steps=0)
        model = FakeModel(load_script(name))
        while stopped_there.turn < turn:
            step(stopped_there, model)
        shown = view.snapshot(finished, turn)
        assert shown.messages == stopped_there.messages
        assert console_lines(shown) == console_lines(stopped_there)
        assert shown.turn == turn


def test_a_snapshot_never_changes_the_run():
    state, _ = scripted("three_tool_chain")
    before = state.to_json()
    shown = view.snapshot(state, 1)
    shown.messages.append({"role": "user", "content": "x"})
    assert state.to_json() == before
    assert view.snapshot(state, state.turn) is state


@pytest.mark.parametrize("name, kind, headline", [
    ("add_then_answer", "answer", "2 + 3 is 5."),
    ("cut_off_reply", "stopped", "stopped: max_tokens"),
    ("refusal", "stopped", "stopped: refusal"),
    ("pause_turn", "stopped", "stopped: pause_turn"),
    ("unknown_stop_reason", "stopped", None),
    ("runaway", "limit", "stopped: no answer after 40 turns"),
])
def test_every_ending_is_said_in_words(name, kind, headline):
    state, _ = scripted(name)
    outcome = view.outcome(state)
    assert outcome.kind is OutcomeKind(kind)
    assert outcome.headline == (headline or state.result)
    assert outcome.note
    if name == "unknown_stop_reason":
        assert outcome.note == view.UNKNOWN_STOP_NOTE
    if name == "cut_off_reply":
        assert "half written" in outcome.note


def test_a_failed_attempt_is_an_outcome_that_lets_the_run_go_on():
    state, _ = scripted("overloaded_529", steps=2)
    outcome = view.outcome(state)
    assert outcome.kind is OutcomeKind.MODEL_ERROR
    assert outcome.headline == "529 overloaded_error: Overloaded"
    assert "Step tries turn 2 again" in outcome.note
    assert view.outcome(scripted("add_then_answer", steps=1)[0]) is None


def test_a_bad_request_is_its_own_outcome():
    duplicate = [reply("tool_use", tool_use("toolu_01")), reply("tool_use", tool_use("toolu_01")),
                 reply("end_turn", text("done"))]
    state, model = fake_run(*duplicate)
    run_to_end(state, model)
    outcome = view.outcome(state)
    assert outcome.kind is OutcomeKind.BAD_REQUEST
    assert outcome.headline.startswith("bad request: ")
    assert "unique" in outcome.headline


def test_request_size_is_the_bytes_of_the_json_body():
    state, _ = scripted("add_then_answer")
    request = state.request(state.records[1])
    assert view.request_size(request) == len(json.dumps(request).encode())
    assert len(request["messages"]) == 3


def test_usage_line_counts_every_input_figure():
    usage = {"input_tokens": 400, "cache_read_input_tokens": 12, "output_tokens": 9}
    line = view.usage_line(usage)
    assert line.startswith("412 input tokens · 9 output tokens")
    assert view.usage_line({}) == "no usage reported"


LESSON = (ROOT / "examples" / "correct_loop.py").read_text()


def lit_of(state: RunState, turn: int) -> tuple[list[str], dict[str, str]]:
    """The lesson's lines lit for a turn (stripped), and the notes beside them by line."""
    record = shown_record(state, turn)
    ended = record is not None and state.done and record is state.records[-1]
    source = lesson_source(record, state.result if ended else None)
    return ([source.lines[i].strip() for i in sorted(source.marked)],
            {source.lines[i].strip(): note for i, note in source.notes.items()})


def test_the_lesson_loop_is_the_example_file_itself():
    source = lesson_source(None)
    assert "\n".join(source.lines) == LESSON.rstrip("\n") and source.first_line == 1
    assert [line.strip() for line in (source.lines[i] for i in source.marked)] == [
        'messages = [{"role": "user", "content": task}]']


@pytest.mark.parametrize(("name", "turn", "passes", "skips", "said"), [
    ("add_then_answer", 1, ["reply = model.create(messages)", "result = run_tool(block)",
                            'messages.append({"role": "user", "content": results})'],
     ['return "".join'], {"result = run_tool(block)": "ran 1 call: add"}),
    ("add_then_answer", 2, ['if reply["stop_reason"] == "end_turn":', 'return "".join'],
     ["result = run_tool(block)", 'messages = [{"role"'], {}),
    ("refusal", 1, ['if reply["stop_reason"] != "tool_use":', "return f\"stopped: {reply['stop_reason']}\""],
     ["results = []", 'return "".join'], {}),
    ("runaway", 40, ["result = run_tool(block)", 'return f"stopped: no answer after {max_turns} turns"'],
     ['return "".join'], {}),
    ("two_calls_one_reply", 1, ["result = run_tool(block)"], [],
     {"result = run_tool(block)": "ran 2 calls: add, upper"}),
])
def test_a_turn_lights_the_lessons_lines_of_its_path(name, turn, passes, skips, said):
    state, _ = scripted(name)
    lit, notes = lit_of(state, turn)
    for line in passes:
        assert any(lit_line.startswith(line) for lit_line in lit), line
    for line in skips:
        assert not any(lit_line.startswith(line) for lit_line in lit), line
    for line, note in said.items():
        assert notes[line] == note
    assert notes["for turn in range(1, max_turns + 1):"] == f"turn = {turn}"


def test_the_values_beside_the_lines_are_the_turns_own():
    state, _ = scripted("three_tool_chain")
    _, notes = lit_of(state, 2)
    sent = view.record_of_turn(state, 2).sent
    assert notes["reply = model.create(messages)"] == f"sends {sent} messages"
    assert notes['messages.append({"role": "assistant", "content": reply["content"]})'] == f"len(messages) = {sent + 1}"
    assert notes['if reply["stop_reason"] == "end_turn":'] == 'stop_reason = "tool_use"'
    assert notes['messages.append({"role": "user", "content": results})'] == f"len(messages) = {sent + 2}"


def test_a_call_that_raised_lights_the_call_and_nothing_after_it():
    state, model = scripted("overloaded_529", steps=2)  # turn 2's first attempt failed
    lit, notes = lit_of(state, state.turn)
    assert lit[-1] == "reply = model.create(messages)"
    said = notes["reply = model.create(messages)"]
    assert said.startswith("sends 3 messages → the call failed: run_agent would raise here (the exception leaves it)")
    assert said.endswith("the sandbox keeps the run, and the next Step tries again")
    state, _ = scripted("runaway")
    state.max_turns = 60
    state.result = None
    step(state, FakeModel(load_script("runaway"), calls=40))  # the script has run out
    lit, notes = lit_of(state, state.turn)
    assert state.records[-1].path == "no_reply"
    assert notes[lit[-1]].endswith("→ no reply to give: run_agent would raise here (the exception leaves it); "
                                   "the sandbox catches it and ends the run")


def test_the_lesson_loop_has_no_handler_so_no_note_on_a_raised_call_says_it_carries_on():
    """run_agent catches nothing: every note on a call that raised says the exception leaves it, and only the
    sandbox's words speak of what comes after."""
    assert not any(isinstance(node, ast.Try) for node in ast.walk(ast.parse(LESSON)))
    for branch, said in RAISED.items():
        loop_part, sandbox_part = said.split("; ")
        assert loop_part.endswith("run_agent would raise here (the exception leaves it)"), branch
        assert sandbox_part.startswith("the sandbox "), branch
    assert RAISED_ELSE.endswith("run_agent would raise here (the exception leaves it)")


def test_the_loop_caption_says_what_is_lit_in_plain_english():
    before = loop_caption(None)
    assert "with the lines that run before the first turn lit, and the value they set beside them." in before
    assert "went through" not in before and "the same turn" not in before
    state, _ = scripted("overloaded_529", steps=2)
    assert "with the lines turn 1 went through lit" in loop_caption(view.record_of_turn(state, 1))
    failed = loop_caption(shown_record(state, state.turn))
    assert "with the lines the failed attempt at turn 2 went through lit" in failed
    assert "Below it, the failed attempt at turn 2 round the loop's cycle" in failed
    assert "dashed grey is the sandbox's own harness around run_agent" in failed


def test_an_example_of_another_shape_is_shown_plain():
    source = lesson_source(None, source="def run_agent(task, model, max_turns):\n    return model.create(task)\n")
    assert source.lines[0].startswith("def run_agent") and not source.marked and not source.notes


def test_the_parts_are_found_by_their_syntax_not_their_line_numbers():
    shifted = "# a comment\n\n\n" + LESSON
    assert find_parts(shifted).send[0] == find_parts(LESSON).send[0] + 3


def test_live_reply_shows_text_and_tool_input_as_they_stream():
    live = real_model.LiveReply()
    for event in [{"type": "text", "text": "Let me "}, {"type": "text", "text": "add."},
                  {"type": "input_json", "partial_json": '{"a": 2', "name": "add"},
                  {"type": "input_json", "partial_json": ', "b": 3}', "name": "add"}]:
        live.add(event)
    assert live.text() == 'Let me add.\ntool_use add {"a": 2, "b": 3}'


def test_scrub_blanks_the_key_and_md_escape_keeps_text_as_written():
    assert safe_text.scrub("bad key sk-ant-123456 refused", "sk-ant-123456") == "bad key ••• refused"
    assert safe_text.scrub("nothing here", "") == "nothing here"
    assert safe_text.md_escape("2 + 3 is *5*.") == "2 \\+ 3 is \\*5\\*\\."


def test_a_web_address_in_a_message_is_shown_as_code_not_a_broken_link():
    said = safe_text.md_escape("APIConnectionError: Connection error to http://127.0.0.1:9. Try (https://a.b/c_d)")
    assert "`http://127.0.0.1:9`\\." in said and "`https://a.b/c_d`\\)" in said
    assert "127\\." not in said


def test_an_address_in_capitals_or_an_e_mail_is_code_too():
    said = safe_text.md_escape("SHOUT [X](HTTP://EXAMPLE.COM) AND WWW.FOO.ORG, MAIL A@B.COM.")
    assert said == "SHOUT \\[X\\]\\(`HTTP://EXAMPLE.COM`\\) AND `WWW.FOO.ORG`, MAIL `A@B.COM`\\."


def test_settings_of_a_run_are_what_it_started_with():
    state = RunState("t", system="s", tool_names=["add"], max_turns=3, max_tokens=99)
    assert view.settings_of(state) == {"task": "t", "system": "s", "tool_names": ["add"], "max_turns": 3,
                                       "max_tokens": 99, "threads": False}


def test_run_summary_counts_turns_messages_and_calls():
    state, _ = scripted("failing_tool")
    assert view.run_summary(state) == "turn 4 of 40 · 8 messages · 3 tool calls · 1 failed"


def test_a_request_that_got_no_reply_is_not_counted_as_a_turn_taken():
    state, _ = scripted("runaway")
    state.max_turns, state.result = 41, None
    model = FakeModel(load_script("runaway"), calls=40)
    step(state, model)  # the 41st request: the script has no reply left
    assert state.records[-1].path == "no_reply" and view.turns_taken(state) == 40
    assert view.run_summary(state) == ("turn 40 of 41 · the request for turn 41 got no reply · 81 messages · "
                                       "40 tool calls")
    state, model = fake_run(reply("tool_use", tool_use("toolu_01")), reply("tool_use", tool_use("toolu_01")))
    run_to_end(state, model)  # the request for turn 3 carries turn 2's reuse of the id: refused
    assert state.records[-1].path == "bad_request" and view.turns_taken(state) == 2
    assert view.run_summary(state).startswith("turn 2 of 40 · the request for turn 3 was refused · 5 messages")
    state, _ = scripted("overloaded_529", steps=2)  # a failed attempt is pending: turn 1 is all that was taken
    assert view.turns_taken(state) == 1 and view.run_summary(state).startswith("turn 1 of ")


@pytest.mark.parametrize("limit", [1, 39, 40, 41, 42, 500])
def test_the_turn_limit_note_says_what_stops_the_run_first(limit):
    """runaway has 40 replies, each calling a tool: the note's words are held against the run itself."""
    script = load_script("runaway")
    state = RunState(script.task, tool_names=script.tools, max_turns=limit)
    run_to_end(state, FakeModel(script))
    note = view.turn_limit_note(script, limit)
    if limit <= 40:  # the limit is reached, at turn `limit`, before the replies run out
        assert note is None and state.records[-1].path == "limit" and view.turns_taken(state) == limit
        return
    assert state.records[-1].path == "no_reply" and state.records[-1].turn == 41 and view.turns_taken(state) == 40
    assert note == (f"This script has 40 replies, each asking for a tool, so the replies run out before the turn "
                    f"limit of {limit:,} is reached: the request for turn 41 gets no reply, and the run stops there "
                    f"after 40 turns. A limit of 40 or less is reached first.")


def _visible(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_highlight_colours_the_code_without_changing_a_character():
    source = lesson_source(None)
    lines = highlight(source.lines)
    assert [_visible(line) for line in lines] == source.lines
    defining = next(line for line in lines if "run_agent" in line)
    assert '<span class="ls-kw">def</span>' in defining and '<span class="ls-def">run_agent</span>' in defining


def test_source_html_lights_the_lines_and_sets_each_value_beside_its_line():
    state, _ = scripted("add_then_answer")
    source = lesson_source(shown_record(state, 2), state.result)
    markup = source_html(source, "")
    assert markup.count("ls-lit") == len(source.marked)
    assert markup.count('class="ls-here"') == len(source.notes) and "◀ returns &quot;2 + 3 is 5.&quot;" in markup
    legacy = source_html(view.LoopSource(["a", "b"], 7, frozenset({1}), 1), "here")  # the exercise's use
    assert "◀ here" in legacy and legacy.count("ls-anchor") == 1 and ">8<" in legacy


def test_message_cards_escape_what_the_model_wrote():
    message = {"role": "assistant", "content": [text("<script>alert(1)</script>"),
                                                tool_use("toolu_01", "add", {"a": "<b>"})]}
    markup = message_html(message, 3, "new in turn 1")
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert "<b>" not in markup.replace("<b>add</b>", "")
    assert "messages[3]" in markup and "new in turn 1" in markup


def test_message_cards_show_every_kind_of_block():
    blocks = [thinking(), {"type": "redacted_thinking", "data": "xyz"}, text("hello"), tool_use("toolu_01")]
    markup = message_html({"role": "assistant", "content": blocks}, 1)
    for kind in ("thinking", "redacted_thinking", "text", "tool_use"):
        assert f">{kind}<" in markup
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                           "content": "error: no", "is_error": True}]}
    assert "is_error: true" in message_html(result, 2)
    assert ">string<" in message_html({"role": "user", "content": "What is 2 + 3?"}, 0)


def test_messages_html_marks_only_the_new_ones():
    state, _ = scripted("add_then_answer", steps=1)
    markup = messages_html(state.messages, 0, view.added_by_turn(state, 1), "new in turn 1")
    assert markup.count("new in turn 1") == 2
    assert markup.count('class="ls-msg') == 3


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_script_can_be_summarised(name):
    state, _ = scripted(name)
    for message in state.messages:
        assert summary.message_line(message)
        assert message_html(message, 0)
    assert view.outcome(state) is not None or not state.done


def test_builtin_scripts_are_all_there_with_the_reference_first_to_hand():
    scripts = view.builtin_scripts()
    assert sorted(scripts) == sorted(builtin_names())
    assert list(scripts)[0] == view.REFERENCE_SCRIPT and scripts[view.REFERENCE_SCRIPT].task == "What is 2 + 3?"
    titles = [script.title.lower() for script in scripts.values()][1:]
    assert titles == sorted(titles)  # the rest by title, as a person reads the list
    assert all(script.title != name for name, script in scripts.items())  # a title is words, not a file name


def test_a_broken_builtin_script_is_left_out(tmp_path, monkeypatch):
    from agent import scripts as scripts_module
    (tmp_path / "good.json").write_text(json.dumps({"replies": [{"stop_reason": "end_turn", "content": []}]}))
    (tmp_path / "broken.json").write_text("{")
    monkeypatch.setattr(scripts_module, "builtin_dir", lambda: tmp_path)
    assert list(view.builtin_scripts()) == ["good"]


def test_first_card_is_where_the_latest_turns_begin():
    state, _ = scripted("runaway")
    assert view.first_card(state, 40, 3) == view.record_of_turn(state, 38).sent == 75
    assert view.first_card(state, 3, 3) == 1  # few turns: every message is a card
    assert view.first_card(state, 10, 3) == view.record_of_turn(state, 8).sent


def test_real_model_needs_a_key_or_a_local_server():
    model, problem = real_model.for_settings("", "", "", None)
    assert model is None and "needs an API key" in problem


def test_real_model_is_built_from_the_settings_with_the_key_kept_out_of_sight():
    model, problem = real_model.for_settings("sk-ant-secret-123456", " claude-haiku-4-5 ", "http://127.0.0.1:9", None,
                                     send_anyway=True)
    assert problem is None
    assert model.model == "claude-haiku-4-5" and model.base_url == "http://127.0.0.1:9" and model.send_anyway
    assert "secret" not in repr(model)


def test_the_runs_total_usage_sums_every_reply_and_says_how_many_reported_it():
    state, _ = scripted("thinking_then_answer")  # two replies; only the second carries usage
    assert view.run_usage_line(state) == ("In total, over the 1 of 2 replies that reported usage: 230 input tokens "
                                          "· 12 output tokens")
    priced = view.run_usage_line(state, "claude-haiku-4-5")
    assert priced.endswith("230 input tokens · 12 output tokens · about $0.0003")
    toy = RunState("What is 2 + 3?")
    run_to_end(toy, ToyModel())
    assert view.run_usage_line(toy).startswith("In total, over 2 replies: ")
    fresh, _ = scripted("add_then_answer", steps=1)  # the first reply carries no usage
    assert view.run_usage_line(fresh) is None


def test_the_api_key_comes_from_the_field_then_the_environment_then_secrets():
    secrets = {"ANTHROPIC_API_KEY": "from-secrets"}
    assert real_model.find_api_key(" typed ", {"ANTHROPIC_API_KEY": "env"}, secrets) == ("typed", "the field above")
    assert real_model.find_api_key("", {"ANTHROPIC_API_KEY": "env"}, secrets) == ("env", "ANTHROPIC_API_KEY")
    assert real_model.find_api_key("", {}, secrets) == ("from-secrets", "st.secrets")
    assert real_model.find_api_key("", {}, {}) == ("", "")


def test_a_recorded_script_says_where_it_came_from_in_words():
    state, _ = scripted("add_then_answer")
    assert view.recorded_about(state, "the script “Add two numbers, then answer”", 2) == (
        "Recorded on the page from a run of the script “Add two numbers, then answer”: 2 entries, and it answered.")
    state, _ = scripted("add_then_answer", steps=1)
    assert view.recorded_about(state, "the toy model", 1).endswith("1 entry, and it stopped after turn 1.")


def test_an_edited_run_that_ended_in_a_bad_request_is_said_to_be_one():
    tree = RunTree.start(scripted("add_then_answer", steps=1)[0])
    tree.fork(1)
    blocks = [dict(b, thinking="changed") if b["type"] == "thinking" else b
              for b in tree.branch.state.messages[1]["content"]]
    tree.edit_reply("tool_use", blocks)
    tree.step(FakeModel(load_script("add_then_answer"), calls=1))  # a changed thinking block: refused
    state = tree.branch.state
    assert state.records[-1].path == "bad_request"
    about = view.recorded_about(state, "the script “Add two numbers, then answer”", 2, edited=1)
    assert about == ("Recorded on the page from a run of the script “Add two numbers, then answer”, 1 turn edited at a "
                     "fork: 2 entries, and it ended in a bad request.")


def test_the_outcome_says_who_refused_a_request_and_when_a_script_ran_out():
    state, model = fake_run(reply("tool_use", tool_use("toolu_1")))
    run_to_end(state, model)
    assert state.records[-1].path == "no_reply"
    said = view.outcome(state)
    assert said.kind == "stopped" and said.headline.startswith("stopped: the script 'test' has 1 reply")
    assert "the run ends here" in said.note
