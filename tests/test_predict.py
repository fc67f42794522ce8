"""Predict, then Step: the questions each turn asks, held to what the loop itself did, on every model.

The right move is worked out from the reply alone (`agent.page.predict.right_move`, the lesson's rule); the loop
decides on its own (`agent.loop.step`). Every built-in script, the toy, replies written by hand and each fault
that leaves a reply are played here, and at every turn the two must agree.
"""

import pytest
from page_support import ROOT, click, full_page, page_text, played, player_shows, run, unescaped
from streamlit.testing.v1 import AppTest

from agent.loop import TurnPath
from agent.page import view
from agent.page.lesson_path import PATH
from agent.page.links import from_query, to_query
from agent.page.names import Layout, ModelKind
from agent.page.predict import MOVE_OF_PATH, MOVES, Ask, Move, count_choices, right_move
from agent.page.sandbox import Sandbox
from agent.page.screen import lesson_parts, screen_of
from agent.scripts import builtin_names
from agent.tools import TOOLS

BUILTIN = view.builtin_scripts()


def predicting_box(script: str = "add_then_answer", model: ModelKind = ModelKind.SCRIPT) -> Sandbox:
    box = Sandbox(BUILTIN)
    box.start_here()
    if model != ModelKind.SCRIPT:
        box.pick_model(model)
    else:
        box.pick_script(script)
    return box


def answer_right(box: Sandbox) -> int:
    """Answer every open question right; how many were asked."""
    asked = 0
    while (question := box.open_question()) is not None:
        assert box.predict(question.right) is None
        asked += 1
    return asked


def check_turn(box: Sandbox) -> None:
    """The questions of the turn just taken agree with the path the loop took."""
    record = box.run.records[-1]
    questions = box.questions()
    if record.reply is None or record.path not in MOVE_OF_PATH:
        assert questions == [], (record.path, questions)
        return
    move = right_move(record.reply, record.turn, box.run.max_turns)
    assert move == MOVE_OF_PATH[record.path], (box.script, record.turn, record.path, move)
    assert [q.ask for q in questions] == ([Ask.MOVE, Ask.COUNT] if move == Move.RUN_AND_ASK else [Ask.MOVE])
    assert questions[0].choices[questions[0].right] == questions[0].choices[MOVES.index(move)]
    if move == Move.RUN_AND_ASK:
        count = questions[1]
        assert int(count.choices[count.right]) == len(box.run.messages)  # what the next request's array holds
        assert len(set(count.choices)) == 4


@pytest.mark.parametrize("name", builtin_names())
def test_every_script_asks_what_its_loop_did(name):
    box = predicting_box(name)
    for _ in range(60):
        if box.run.done:
            break
        box.step()
        check_turn(box)
        answer_right(box)
    right, answered = box.score
    assert right == answered, (name, box.score)


def test_the_toy_and_replies_written_by_hand_ask_too():
    box = predicting_box(model=ModelKind.TOY)
    box.set_task("What is 2 + 3?")
    while not box.run.done:
        box.step()
        check_turn(box)
        answer_right(box)
    assert box.score[1] >= 3  # a tool turn's two questions, then the answer's
    hand = predicting_box()
    hand.hand("tool_use", [{"type": "tool_use", "name": "add", "input": {"a": 1, "b": 2}}])
    check_turn(hand)
    assert [q.ask for q in hand.questions()] == [Ask.MOVE, Ask.COUNT]
    hand.predict(0)  # "the answer": wrong
    verdict = hand.verdicts()[0]
    assert not verdict.right and "Not this time" in verdict.words and "tool_use" in verdict.words


@pytest.mark.parametrize("kind", ["cut_off", "refusal", "tool_raises", "overloaded"])
def test_a_fault_asks_what_the_loop_does_with_the_broken_reply(kind):
    box = predicting_box()
    box.inject_fault(kind)
    check_turn(box)
    record = box.run.records[-1]
    if kind == "cut_off":  # the cut-off call must not run: the loop stops
        assert record.path == TurnPath.STOPPED and box.questions()[0].right == MOVES.index(Move.STOP)
    if kind == "overloaded":  # the 529, then the retry's reply: that reply is the one asked about
        assert box.run.records[0].reply is None and box.open_question().turn == 1


def test_the_turn_limit_is_its_own_move():
    box = predicting_box("short_leash")
    for _ in range(3):
        box.step()
        check_turn(box)
        answer_right(box)
    assert box.run.records[-1].path == TurnPath.LIMIT
    assert box.verdicts()[0].question.move == Move.LIMIT


def test_the_screen_waits_for_the_answer_then_shows_the_turn():
    box = predicting_box()
    box.step()
    screen = screen_of(box)
    assert screen.asking is not None and screen.turn == 0 and len(screen.shown.messages) == 1
    assert "what does the loop do now" in screen.status and screen.outcome is None
    box.predict(MOVES.index(Move.ANSWER))  # wrong: it runs the call
    screen = screen_of(box)
    assert screen.question is not None and screen.question.ask == Ask.COUNT and screen.turn == 0
    assert [line.code for line in screen.deciding_lines] == ['if reply["stop_reason"] != "tool_use":']
    box.predict(screen.question.right)
    screen = screen_of(box)
    assert screen.question is None and screen.turn == 1 and len(screen.shown.messages) == 3
    assert screen.score == (1, 2)


def test_the_count_is_said_to_come_from_the_append_of_the_results_and_the_move_from_its_branch():
    box = predicting_box()
    box.step()
    answer_right(box)
    screen = screen_of(box)
    assert [v.question.ask for v in screen.verdicts] == [Ask.MOVE, Ask.COUNT]
    move_line, count_line = screen.deciding_lines
    _, parts = lesson_parts()
    assert (move_line.did, move_line.number) == ("decided it", parts.if_other[0])
    assert (count_line.did, count_line.number) == ("made the count", parts.append_results[0])
    assert count_line.code == 'messages.append({"role": "user", "content": results})'
    assert count_line.number > move_line.number


@pytest.mark.parametrize("script, reason", [("cut_off_reply", "max_tokens"), ("refusal", "refusal")])
def test_a_stop_reason_in_a_verdict_is_quoted_as_the_api_writes_it(script, reason):
    box = predicting_box(script)
    said = []
    while not box.run.done:
        box.step()
        answer_right(box)
        said += [v.words for v in box.verdicts()]
    words = " ".join(said)
    assert f'stop_reason is "{reason}"' in words and "'" + reason + "'" not in words


def test_undo_takes_a_prediction_back_and_a_link_keeps_them():
    box = predicting_box()
    box.step()
    box.predict(1)
    assert box.score == (1, 1)
    box.undo()
    assert box.score == (0, 0) and box.open_question().ask == Ask.MOVE
    box.redo()
    assert box.score == (1, 1) and box.open_question().ask == Ask.COUNT
    query = to_query(box.link())
    assert query["controls"] == "start"
    again = Sandbox(BUILTIN)
    problems = again.open_link(from_query(query, list(BUILTIN), list(TOOLS)))
    assert problems == []
    assert again.layout == Layout.START and again.predicting
    assert again.open_question().ask == Ask.COUNT and again.score == (1, 1)  # a link made mid-prediction


def test_run_to_end_and_all_controls_ask_nothing():
    box = Sandbox(BUILTIN)  # the full page: predicting is off
    box.step()
    assert box.open_question() is None
    on = predicting_box()
    on.step(to_the_end=True)
    assert on.open_question() is None and on.run.done


def test_count_choices_are_four_and_hold_the_right_one():
    for sent in (1, 3, 9):
        for calls in (1, 2, 5):
            choices = count_choices(sent, calls)
            assert len(set(choices)) == 4 and sent + 2 in choices and list(choices) == sorted(choices)


def test_the_path_runs_from_the_first_scenario_to_the_last():
    box = predicting_box(PATH[0].script)
    seen = [box.script]
    while (notice := box.next_scenario()) is None or "started a new run" in notice.text:
        seen.append(box.script)
        box.step(to_the_end=True)
        assert box.run.done, box.script
    assert seen == [scenario.script for scenario in PATH]
    assert "last scenario" in notice.text
    assert all(s.script in BUILTIN for s in PATH)


def test_a_first_visit_opens_start_here_and_a_newcomer_reaches_the_answer(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = run(AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30))
    assert at.toggle(key="all_controls").value is False and at.toggle(key="predicting").value is True
    assert not [r for r in at.radio if r.key == "model_choice"]  # the Model switch is one switch away
    assert not [b for b in at.button if b.label == "Step"]  # Step is the player's, in the browser
    at = played(at, until_done=True)  # what the player hands over (Chromium: tests/test_browser_start_here.py)
    box = at.session_state["sandbox"]
    assert box.run.done and box.run.result == "2 + 3 is 5." and box.score == (3, 3)
    at = run(at.toggle(key="all_controls").set_value(True))
    assert [r for r in at.radio if r.key == "model_choice"]  # every control, the run kept
    assert at.session_state["sandbox"].run.done
    assert "2 + 3 is 5." in page_text(at).splitlines()  # the answer, said as the outcome
    at = run(at.toggle(key="all_controls").set_value(False))
    assert at.session_state["sandbox"].run.done and at.session_state["sandbox"].layout == Layout.START


def test_start_here_says_under_each_verdict_the_line_that_settled_it():
    from agent.page.frames import frames_of

    box = Sandbox(BUILTIN)
    box.start_here()
    first = frames_of(box).frames[1]  # the player draws a verdict's line under it, from the frame's question
    _, parts = lesson_parts()
    said = [f"run_agent {q.did} at {q.line}".replace("`", "") for q in first.questions]
    assert [line.split(":")[0] for line in said] == [f"run_agent decided it at line {parts.if_other[0]}",
                                                     f"run_agent made the count at line {parts.append_results[0]}"]


def test_all_controls_with_predicting_on_ask_too_and_a_cut_off_call_is_not_run(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = run(full_page())
    assert at.toggle(key="predicting").value is False  # off on the full page until switched on
    at = run(at.toggle(key="predicting").set_value(True))
    at = click(at, "Step")  # the player's: it asks, and takes no Step or Run to end until answered
    shows = player_shows(at)
    assert shows.asking and len(shows.latest["questions"][0]["choices"]) == 4
    assert shows.action("Step") == shows.action("Run to end") == ""
    at.session_state["change_the_past"] = True  # with the panel open the page draws the run, and asks the same
    at.session_state["past_tab"] = "Inject a fault"
    at = run(at)
    choices = [b for b in at.button if b.key and b.key.startswith("choice_")]
    assert len(choices) == 4 and not [s for s in at.slider if s.key == "look_back"]  # the turn waits
    for label in ("Step", "Run to end"):  # for its answer, as in the player: said, and nothing taken
        at = run(next(b for b in at.button if b.label == label).click())
        assert at.session_state["sandbox"].run.turn == 1
        assert any("Answer the question first" in i.value for i in at.info)
    choices = [b for b in at.button if b.key and b.key.startswith("choice_")]
    at = run(choices[1].click())
    at = run(next(b for b in at.button if b.key == "choice_2").click())
    assert at.session_state["sandbox"].score == (2, 2)
    at = run(at.selectbox(key="fault_kind").set_value("cut_off"))
    at = run(next(b for b in at.button if b.key == "fault_step").click())
    question = at.session_state["sandbox"].open_question()
    assert question is not None and question.move == Move.STOP  # the cut-off call must not run
    at = run(next(b for b in at.button if b.key == f"choice_{MOVES.index(Move.RUN_AND_ASK)}").click())
    said = " ".join(unescaped(w.value) for w in at.warning)
    assert "Not this time" in said and "half-written call" in said
