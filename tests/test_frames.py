"""Frames: a run's every screen as data, held to what the page's own Screen says after the same Steps."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from agent.openai_format import side_by_side
from agent.page import NotPlayable, frames_of, play, run_page, sandbox_for
from agent.page.graph import loop_diagram, run_graph
from agent.page.html_cards import chat_pairs_html
from agent.page.lesson_loop import shown_record
from agent.page.names import Layout
from agent.page.player_html import frames_to_export
from agent.page.predict import questions_for
from agent.page.safe_text import literal, marked_spans, with_code
from agent.page.sandbox import Sandbox
from agent.page.screen import screen_of
from agent.page.turn_details import details_of, first_card, loop_view_caption, messages_caption
from agent.page.view import builtin_scripts, latest_stop_reason

ROOT = Path(__file__).resolve().parent.parent
PLAYER = ROOT / "agent" / "page" / "player"
SCRIPTS = list(builtin_scripts())


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_frame_is_what_the_page_shows_after_as_many_steps(name):
    box = sandbox_for(name)
    frames = frames_of(box)
    page = Sandbox(builtin=box.builtin)
    page.pick_script(name)
    for number, frame in enumerate(frames.frames):
        if number:
            page.step()
        screen = screen_of(page)
        assert (frame.turn, frame.status, frame.progress) == (screen.turn, screen.status, screen.progress)
        assert frame.console == screen.console
        assert frame.messages == len(page.run.messages)
        assert frames.messages[:frame.messages] == page.run.messages  # appended only: a prefix of the whole run
        assert (frame.outcome or {}).get("headline") == (screen.outcome.headline if screen.outcome else None)
        # All controls' views, in the words views/run_tabs.py draws where the server steps
        assert frame.details == details_of(screen)
        assert (frame.loop_caption, frame.messages_caption, frame.first_card) == (
            loop_view_caption(screen), messages_caption(screen.shown, screen.turn), first_card(screen))
        lit = shown_record(screen.shown, screen.turn)
        assert frames.diagrams[frame.path] == loop_diagram(lit.path if lit else None).source
        # Every turn of the run graph: the lines it shares with the last frame's, then its own
        for (kept, own), next_step in ((frame.graph_whole, not page.run.done), (frame.graph_whole_back, False)):
            assert "\n".join([*frames.graph_lines[:kept], *own]) == run_graph(page.run, None, next_step).source
            assert len(own) <= 12 or number == 0, "a frame holds the lines of its own turn, not the whole graph"
        # Chat Completions beside the messages: the rows of the frame's messages and its finish row, unmarked
        rows = [(re.search(r'data-row="([^"]+)"', row)[1], row) for row in frames.chat_rows]
        held = [row for index, row in rows if index in ("head", "system") or int(index) < frame.messages]
        assert f'<div class="ls-chat-pairs">{"".join(held)}{frame.chat_finish}</div>' == chat_pairs_html(
            side_by_side(page.run.messages, page.run.system), range(0), latest_stop_reason(screen.shown))
    assert page.run.done, "the last frame is where the run ends"
    if page.run.records:  # looked back at from the end, the state before turn 1 is said as what it was
        page.look_at(0)
        assert frames.start_looked_back == details_of(screen_of(page)).said
        assert frames.start_looked_back.startswith("The state before turn 1: `messages` held the task")
    assert box.run.records == [], "working out the frames steps a copy, not the Sandbox it was given"


def test_a_frame_says_the_request_as_sent_its_messages_a_slice_of_the_run():
    frames = frames_of(sandbox_for("three_tool_chain"))
    second = frames.frames[2]
    start, stop = second.request["messages"]
    assert (start, stop) == (0, 3)
    assert second.request["model"] == "fake" and second.request["max_tokens"] > 0
    assert second.reply["stop_reason"] in ("tool_use", "end_turn")
    assert frames.frames[0].request is None and frames.frames[0].card.reply is None


def test_the_questions_are_the_pages_with_a_verdict_for_every_choice():
    box = sandbox_for("add_then_answer", predict=True)
    frames = frames_of(box)
    assert frames.predict
    turn_one = frames.frames[1]
    page = Sandbox(builtin=box.builtin)
    page.step()
    asked = questions_for(page.run.records[-1], "", page.run.max_turns)
    assert [q.prompt for q in turn_one.questions] == [q.prompt for q in asked]
    assert [q.right for q in turn_one.questions] == [q.right for q in asked]
    for question in turn_one.questions:
        assert len(question.verdicts) == len(question.choices)
        assert question.verdicts[question.right].startswith("Right.")
        assert all(v.startswith("Not this time.") for i, v in enumerate(question.verdicts) if i != question.right)
    assert turn_one.asking_status.startswith("turn 1 of ")
    assert "ls-lit" in turn_one.asking_loop
    move, count = turn_one.questions
    assert (move.did, count.did) == ("decided it", "made the count")
    assert move.line.startswith("line ") and count.line.startswith("line ") and move.line != count.line


def test_a_stop_reason_is_not_explained_while_its_question_is_open():
    for name in ("cut_off_reply", "refusal", "unknown_stop_reason"):
        frame = frames_of(sandbox_for(name, predict=True)).frames[1]
        assert frame.questions, name
        assert not any("stops" in term for term in frame.asking_terms), name
        assert any("stops" in term for term in frame.card.terms), name


def test_the_toy_plays_a_typed_task():
    frames = frames_of(sandbox_for("toy", "What is 2 + 3 and 10 + 20?"))
    assert frames.model == "Toy" and frames.task == "What is 2 + 3 and 10 + 20?"
    last = frames.frames[-1]
    assert last.outcome["kind"] == "answer"
    assert "5" in last.outcome["headline"] and "30" in last.outcome["headline"]


def test_two_learners_files_of_one_name_are_two_runs_to_the_frames():
    from agent.page.frames import frames_key, frames_sent

    said = []
    for answer in ("four", "five"):
        box = Sandbox(builtin_scripts())
        script = {"title": "Mine", "task": "Add 2 and 2", "tools": ["add"], "replies": [
            {"stop_reason": "end_turn", "content": [{"type": "text", "text": f"It is {answer}."}]}]}
        assert box.load_script(json.dumps(script).encode(), "mine.json") is None
        sent = frames_sent(box, frames_key(box))
        assert sent is not None
        said.append(json.loads(sent)["messages"][-1])
    assert [s["content"][0]["text"] for s in said] == ["It is four.", "It is five."]


def test_a_run_that_cannot_be_known_ahead_is_refused_in_words(monkeypatch):
    box = Sandbox(builtin=builtin_scripts())
    box.step()
    box.fork(1)
    with pytest.raises(NotPlayable, match="forks, edits, faults"):
        frames_of(box)
    monkeypatch.setattr("agent.page.frames.FRAMES_LIMIT", 10)
    box = sandbox_for("runaway")
    with pytest.raises(NotPlayable, match="lower its turn limit"):
        frames_of(box)


def test_the_frames_go_inside_a_script_element_safely():
    box = sandbox_for("toy", "How many words are in </script><script>alert(1)</script>?")
    page = run_page(frames_of(box))
    assert "</script><script>alert(1)" not in page  # only `</script` could end the element early
    data = page.split('<script type="application/json"', 1)[1].split(">", 1)[1].split("</script>", 1)[0]
    assert json.loads(data)["task"].startswith("How many words are in </script>")


def test_a_run_page_needs_no_network_and_stays_small():
    page = run_page(frames_of(sandbox_for("add_then_answer")))
    assert len(page.encode()) < 3_000_000
    assert "default-src 'none'" in page
    for needle in ("http://", "https://"):
        outside = [line for line in page.splitlines() if needle in line and "xmlns" not in line and
                   "graphviz.org" not in line and "libexpat" not in line]
        assert all(len(line) > 10_000 for line in outside), outside  # only inside the minified Graphviz build


def test_play_shows_in_a_notebook_and_saves_a_page(tmp_path):
    played = play("two_file_search")
    fragment = played._repr_html_()
    assert 'type="module"' in fragment and "mount(" in fragment
    saved = played.save(tmp_path / "run.html")
    assert saved.read_text(encoding="utf-8").startswith("<!doctype html>")


def test_the_vendored_graphviz_is_the_recorded_build():
    record = json.loads((PLAYER / "VENDOR.json").read_text())["viz-global.js"]
    assert record["package"] == "@viz-js/viz" and record["version"] == "3.31.0"
    assert hashlib.sha256((PLAYER / "viz-global.js").read_bytes()).hexdigest() == record["sha256"]
    assert "Viz.js " + record["version"] in (PLAYER / "viz-global.js").read_text()[:200]
    assert "MIT" in record["licence"]


def test_start_here_layout_is_no_part_of_the_frames():
    box = sandbox_for("add_then_answer")
    box.layout = Layout.START
    assert frames_of(box).frames == frames_of(sandbox_for("add_then_answer")).frames


def test_a_run_with_a_fork_exports_as_it_happened():
    box = Sandbox(builtin=builtin_scripts())
    box.step()
    box.fork(1)
    box.step()
    frames, caveat = frames_to_export(box)
    assert caveat is None and frames.title.endswith("the run as it happened")
    assert frames.frames[-1].outcome["headline"] == box.run.result
    assert frames.messages == box.run.messages
    assert frames.lines[1].startswith("[1] assistant: ")


def test_a_run_with_an_edited_result_says_its_tools_run_again():
    box = Sandbox(builtin=builtin_scripts())
    box.step()
    box.fork(1)
    box.edit_result(0, "7", False)
    _, caveat = frames_to_export(box)
    assert caveat is not None and "tool gives it" in caveat


def test_a_scenario_on_the_lesson_path_says_its_place_and_what_to_watch():
    frames = frames_of(sandbox_for("two_calls_one_reply"))
    assert frames.scenario == "Scenario 2 of 9: Two tool calls in one reply."
    assert "ONE user message" in frames.watch
    assert frames_of(sandbox_for("toy", "What is 2 + 3?")).scenario == ""


def test_a_failed_attempt_is_said_in_the_run_views_words_in_its_frames():
    frames = frames_of(sandbox_for("overloaded_529")).frames
    failed, retried = frames[2], frames[3]
    assert failed.details.failures == "The request for turn 2 has failed 1 time so far."
    assert failed.path == "model_error"
    assert retried.details.attempts == ["Attempt at turn 2 failed first: 529 overloaded_error: Overloaded. It was not "
                                        "counted; the next Step tried again."]
    assert retried.details.came_back == ("**The reply came back** with stop_reason `end_turn`, and the loop returned "
                                         "the answer.")
    assert frames[0].messages_caption.startswith("Before the first turn, `messages` holds one message: the task.")


def test_a_strangers_backticks_and_backslashes_stay_text_in_a_page_sentence():
    stranger = "a `tick` and a \\ back\\`slash"
    sentence = f"**Lead** with `code` and {literal(stranger)} after"
    spans = marked_spans(sentence[len("**Lead**"):])
    assert spans == [(False, " with "), (True, "code"), (False, f" and {stranger} after")]
    drawn = with_code(sentence)
    assert drawn.startswith("**Lead**") and "`code`" in drawn and "\\`tick\\`" in drawn  # escaped, not code
