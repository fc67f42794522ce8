"""Every sentence true on the layout that shows it, after the action that led there (issue 33's page points)."""

import re

import pytest
from page_support import (
    ROOT,
    answer,
    asking,
    click,
    full_page,
    hand_over,
    look_back,
    page_text,
    pick_script,
    played,
    player_shows,
    run,
    unescaped,
)
from streamlit.testing.v1 import AppTest

from agent.page import view
from agent.page.names import Layout, ModelKind
from agent.page.sandbox import Sandbox

BUILTIN = view.builtin_scripts()


@pytest.fixture
def at(monkeypatch) -> AppTest:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(full_page())


def texts(elements) -> str:
    return " ".join(unescaped(e.value) for e in elements)


# ---- point 1: a Step after the end names a task box only where the layout shows one -----------------------------


@pytest.mark.parametrize("layout, model, box_named", [(Layout.START, ModelKind.SCRIPT, False),
                                                      (Layout.START, ModelKind.TOY, True),
                                                      (Layout.ALL, ModelKind.SCRIPT, True)])
def test_a_step_after_the_end_names_a_task_box_only_where_one_is_shown(layout, model, box_named):
    box = Sandbox(BUILTIN)
    box.set_layout(layout)
    box.pick_model(model)
    if model == ModelKind.TOY:
        box.set_task("add 2 and 3")
    box.step(to_the_end=True)
    notice = box.step()
    assert notice is not None and "nothing left to step" in notice.text
    assert ("typed above" in notice.text) is box_named
    assert box.task_box_shown is box_named


# ---- point 17: a new run started by Run to end says Run to end -------------------------------------------------


def test_run_to_end_after_the_end_with_a_new_task_says_run_to_end():
    box = Sandbox(BUILTIN)
    box.step(to_the_end=True)
    box.set_task("another task")
    notice = box.step(to_the_end=True)
    assert notice is not None and "this Run to end started a new run" in notice.text and "this Step" not in notice.text


# ---- point 25: Reset with no turn is no action, so Undo after it undoes what came before ------------------------


def test_reset_of_a_run_with_no_turn_is_not_recorded():
    box = Sandbox(BUILTIN)
    notice = box.reset()
    assert notice is not None and "nothing to reset" in notice.text
    assert box.history.undo == []
    box.step()
    box.reset()
    assert box.run.turn == 0 and len(box.history.undo) == 2  # a Reset that dropped a turn is an action
    box.reset()
    assert len(box.history.undo) == 2
    box.undo()
    assert box.run.turn == 1


# ---- point 6: a cut-off's words say where the cut landed --------------------------------------------------------


def test_a_cut_off_plain_answer_is_said_to_be_cut_in_its_text():
    box = Sandbox(BUILTIN)
    box.pick_script("add_then_answer")
    box.step()  # turn 1 calls add; turn 2 is the plain answer
    assert box.inject_fault("cut_off") is None
    mark = box.tree.branch.mark_of(box.run.records[-1])
    reply = box.run.records[-1].reply
    assert not any(b["type"] == "tool_use" for b in reply["content"])
    assert mark is not None and "tool call" not in mark.words and mark.words.endswith("in the middle of its text")


def test_a_cut_off_call_is_said_to_be_cut_in_a_tool_call():
    box = Sandbox(BUILTIN)
    box.pick_script("add_then_answer")
    assert box.inject_fault("cut_off") is None
    mark = box.tree.branch.mark_of(box.run.records[-1])
    assert mark is not None and mark.words.endswith("in the middle of a tool call")


def test_the_console_says_where_a_cut_off_landed(at):
    at = click(at, "Step")
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = "Inject a fault"
    at = run(at)
    at = run(at.selectbox(key="fault_kind").set_value("cut_off"))
    at = run(next(b for b in at.button if b.key == "fault_step").click())
    console = next(c.value for c in at.code if "messages sent each turn" in c.value)
    assert "in the middle of its text" in console and "tool call" not in console


# ---- point 7: an injected 529 was retried by the same click -----------------------------------------------------


def test_an_injected_overload_says_the_same_click_retried(at):
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = "Inject a fault"
    at = run(at)
    at = run(at.selectbox(key="fault_kind").set_value("overloaded"))
    at = run(next(b for b in at.button if b.key == "fault_step").click())
    said = page_text(at)
    assert "Attempt at turn 1 failed first" in said
    assert "the same click sent the retry at once" in said and "the next Step tried again" not in said


# ---- points 2 and 11: All controls with Predict each turn on ---------------------------------------------------


def answer_all(at: AppTest) -> AppTest:
    while asking(at):
        at = answer(at, at.session_state["sandbox"].open_question().right)
    return at


def test_all_controls_says_where_the_deciding_line_is_lit_and_keeps_the_score(at):
    at = run(at.toggle(key="predicting").set_value(True))
    at = answer_all(click(at, "Step"))
    captions = page_text(at)
    assert "run_agent decided it at" in captions
    assert "lit in the loop below" not in captions and "lit in The loop view" in captions  # the Run view shows
    right, answered = at.session_state["sandbox"].score
    assert answered and f"Predictions: {right} right of {answered}" in captions
    at = run(at.segmented_control(key="tab").set_value("The loop"))
    assert "lit in the loop below" in page_text(at)


# ---- point 4: a tool result with newlines is edited in a box that keeps them -----------------------------------


def test_a_result_with_newlines_is_edited_whole_and_saved_with_its_newlines(at):
    at = pick_script(at, "two_file_search")
    at = click(at, "Step")
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = "Fork and edit"
    at = click(run(at), "Fork here, after turn 1")
    record = at.session_state["sandbox"].run.records[0]
    shown = next(t for t in at.text_area if t.key and t.key.startswith("edit_result_"))
    assert "\n" in record.tool_runs[0].content and shown.value == record.tool_runs[0].content  # every line shown
    shown.set_value("first line\nsecond line")
    at = click(at, "Change it")
    results = at.session_state["sandbox"].run.messages[record.sent + 1]["content"]
    assert results[0]["content"] == "first line\nsecond line"


# ---- point 5: a real model's Base URL is not in a link, and the link's notes say so ----------------------------


def test_copy_link_of_a_real_run_with_a_base_url_says_the_base_url_is_left_out():
    box = Sandbox(BUILTIN)
    box.pick_model(ModelKind.REAL)
    box.base_url = "http://127.0.0.1:8765"
    link = box.link()
    assert "127.0.0.1" not in repr(link)  # never carried: a link must not say where a stranger's key goes
    notes = " ".join(box.link_notes(link))
    assert "The Base URL (http://127.0.0.1:8765) is left out" in notes
    box.base_url = ""
    assert "Base URL" not in " ".join(box.link_notes(box.link()))


# ---- point 12: Start here has Redo (key Y) and Copy link; every key its caption lists presses a button there ------


def test_start_here_has_redo_and_copy_link_and_every_key_it_lists_is_the_players(monkeypatch):
    from agent.page.keys import KEYS, PLAYER_KEYS_CAPTION

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = run(AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30))
    box = at.session_state["sandbox"]
    assert box.layout == Layout.START
    at = played(at)  # what the player hands over: a Step and the right answers
    turn = box.run.turn
    assert turn == 1
    at = hand_over(at, "u")  # the player's Undo and Redo (tests/test_player_page.py clicks them in Chromium)
    assert box.run.turn < turn or box.open_question() is not None
    at = hand_over(at, "y")
    assert box.run.turn == turn and box.open_question() is None
    player_keys = {"S", "E", "R", "Z", "Y", "Space", "←", "→", "1", "4"}  # the player's own, all of them
    listed = {shown for shown, _, _ in KEYS if f"**{shown}**" in PLAYER_KEYS_CAPTION}
    assert listed <= player_keys and {"Z", "Y"} <= listed, listed - player_keys
    assert not any(b.key in ("undo", "redo") for b in at.button)  # one renderer: the player's, not Streamlit's too
    link = player_shows(at).data  # Copy link is the player's here (tests/test_player_page.py opens it in Chromium)
    assert link["query"]["controls"] == "start"  # its link opens Start here again
    assert link["link"]["title"] == "A link to this screen" and link["link"]["notes"] == []
    says = link["link"]["says"]  # what a link replays, as Start here has it: no settings, forks or views there
    assert "every Step and answer" in says and not any(word in says for word in ("fork", "settings", "view"))
    assert not any(b.key == "copy_link" for b in at.button)  # one renderer: the player's


# ---- point 9: while the question is open, the turn card does not say what the loop does -----------------------


@pytest.mark.parametrize("script", ["cut_off_reply", "refusal", "unknown_stop_reason"])
def test_the_turn_card_keeps_what_the_loop_does_until_the_question_is_answered(script):
    from agent.page.frames import frames_of
    from agent.page.terms import TERMS

    gives_away = TERMS["other_stop"]
    # Start here: the player draws a frame's asking terms while the question is open, its card's terms after.
    box = Sandbox(BUILTIN)
    box.start_here()
    box.pick_script(script)
    frames = frames_of(box).frames
    asked = [f for f in frames if f.questions]
    assert asked and all(gives_away not in f.asking_terms for f in asked)
    assert gives_away in frames[-1].card.terms  # said once answered


# ---- point 23: a reply with no call is not offered "Run the call" ---------------------------------------------


def test_the_choices_for_a_reply_with_no_call_name_no_call():
    from agent.page.predict import calls_in

    box = Sandbox(BUILTIN)
    box.start_here()
    box.pick_script("add_then_answer")
    seen = 0
    while not box.run.done:
        box.step()
        question = box.open_question()
        reply = box.run.records[-1].reply
        if question is not None and calls_in(reply) == 0:
            seen += 1
            assert not any(re.search(r"Run the (call|\d+ calls)\b", choice) for choice in question.choices)
        while (question := box.open_question()) is not None:
            box.predict(question.right)
    assert seen  # the end_turn reply was asked about


# ---- low points: a count of one, a sentence's capital, the form's own name for a call, one wording for a fork -----


def test_compare_says_one_message_in_the_singular(at):
    at = click(at, "Step")
    at.session_state["change_the_past"] = True
    at.session_state["past_tab"] = "Fork and edit"
    at = look_back(at, 0)
    at = click(at, "Fork here, after turn 0")
    at.session_state["compare_box"] = True
    at = run(at)
    said = page_text(at)
    assert "the first 1 messages" not in said and "the first 1 message is the same in both" in said


def test_a_loaded_tree_s_notice_starts_each_sentence_with_a_capital():
    box = Sandbox(BUILTIN)
    box.step()
    box.step()
    data = box.tree.to_json()
    notice = box.load_tree(data)
    assert notice is not None and "A run of 2 turns went with the old run" in notice.text
    assert not re.search(r"[.”]\s+[a-z]", notice.text), notice.text


def test_be_the_model_names_a_bad_call_as_its_form_does():
    box = Sandbox(BUILTIN)
    box.pick_script("add_then_answer")
    notice = box.hand("tool_use", [{"type": "text", "text": "Let me add."},
                                   {"type": "tool_use", "name": "add", "input": {"a": "two"}}])
    assert notice is not None and notice.kind == "error" and "(Tool 1)" in notice.text  # the form's label


def test_a_fork_s_origin_reads_the_same_on_the_page_and_in_its_doc():
    from agent.page.branches_view import where_it_left

    box = Sandbox(BUILTIN)
    box.pick_script("three_tool_chain")
    box.step()
    box.step()
    box.fork(2)
    assert box.edit_result(0, "35", False) is None
    words = where_it_left(box.tree.branch)
    assert words == "after turn 2, turn 2 edited"
    assert f'"{words}"' in (ROOT / "docs" / "page.md").read_text()  # Change the past, as docs/page.md tells it


# ---- point 24: a cost only where someone pays Anthropic's price ------------------------------------------------


@pytest.mark.parametrize("base_url, priced", [("", True), ("https://api.anthropic.com", True),
                                              ("http://127.0.0.1:8765", False), ("https://llm.example.org/v1", False)])
def test_a_real_run_is_priced_only_when_its_requests_go_to_anthropic(base_url, priced):
    from agent.page.screen import screen_of

    box = Sandbox(BUILTIN)
    box.pick_model(ModelKind.REAL)
    box.base_url = base_url
    shown = screen_of(box)
    assert (shown.priced_model == shown.model_name) is priced and (shown.priced_model == "") is not priced


# ---- point 22: a console line run_agent never prints is said to be the page's note -----------------------------


def test_a_console_line_the_loop_never_printed_is_said_to_be_the_page_s():
    from agent.page.screen import screen_of
    from agent.summary import console_lines

    box = Sandbox(BUILTIN)
    box.pick_script("add_then_answer")
    box.step()
    box.hand("end_turn", [{"type": "text", "text": "Done."}])
    own = console_lines(box.run, returned=False, readable=True)  # what run_agent prints, without the page's notes
    for line in screen_of(box).console:
        if line not in own and not any(line.startswith(printed + "   <- ") for printed in own):
            assert line.startswith("<- ") and "a note of the page's" in line, line


# ---- issue 35, point 7: one function draws the notice, in both layouts, the API key blanked ----------------------


@pytest.mark.parametrize("layout", [Layout.START, Layout.ALL])
def test_a_notice_that_quotes_the_api_key_shows_no_key_in_either_layout(monkeypatch, layout):
    from agent.page.sandbox import Notice

    secret = "sk-ant-api03-NEVER-SHOW-THIS-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)  # the key in use, though the run is a script's
    at = full_page() if layout == Layout.ALL else AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30)
    at = run(at)
    assert at.session_state["sandbox"].layout == layout
    at.session_state["sandbox"].notice = Notice.error(f"The service said: invalid x-api-key {secret}")
    at = run(at)
    said = [unescaped(e.value) for e in at.error]
    assert "The service said: invalid x-api-key •••" in said, said
    shown = [e.value for kind in (at.error, at.warning, at.info, at.success, at.markdown, at.caption) for e in kind]
    assert not any(secret in text for text in shown)


def test_a_run_too_long_for_the_player_steps_on_the_server_on_start_here(monkeypatch, request):
    from agent.page import frames
    from agent.page.links import Link, to_query

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr(frames, "FRAMES_LIMIT", 5)  # the runaway's 40 turns: too long to play in the browser
    frames.FRAMES_SENT.clear()  # the process's frames, worked out under the usual limit
    request.addfinalizer(frames.FRAMES_SENT.clear)  # ... and none worked out under this one outlives the test
    at = AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=60)
    for name, value in to_query(Link(script="runaway", layout=Layout.START, predicting=False)).items():
        at.query_params[name] = value
    at = run(at)
    at = click(at, "Step")  # no player: the page's own Step, and no exception box
    assert at.session_state["sandbox"].run.turn == 1


def test_an_empty_task_is_asked_for_where_the_layout_has_its_box():
    box = Sandbox(BUILTIN)
    box.set_task("")  # on All controls, then the beginner's page, which shows a script's task but no box for it
    box.set_layout(Layout.START)
    said = box.step(None)
    assert said is not None and "the Task box under All controls" in said.text
    box.set_layout(Layout.ALL)
    said = box.step(None)
    assert said is not None and "in the Task box, then Step" in said.text


def test_graphviz_and_the_frames_are_drawn_once_a_page_until_the_run_changes(monkeypatch):
    from agent.page.links import Link, to_query
    from views import player_view

    drawn: list[str] = []
    for name in ("VIZ", "FRAMES"):
        real = getattr(player_view, name)
        monkeypatch.setattr(player_view, name, lambda *a, _real=real, _name=name, **k: (drawn.append(_name),
                                                                                          _real(*a, **k))[1])
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30)
    for name, value in to_query(Link(script="runaway", layout=Layout.START, predicting=False)).items():
        at.query_params[name] = value
    at = played(run(at), steps=2)
    at = hand_over(at, "u")  # server runs: where the run stands, not 2 MB again
    at = hand_over(at, "y")
    assert drawn == ["VIZ", "FRAMES"]
    at = run(at.toggle(key="predicting").set_value(True))  # other frames (each turn asks): those, not Graphviz
    assert drawn == ["VIZ", "FRAMES", "FRAMES"]


# ---- the turn's card: the same words whether the player or the server draws it ----------------------------------


def test_start_here_draws_the_turns_card_in_the_players_words_when_the_server_steps_the_run(monkeypatch):
    from agent.page import frames_of, sandbox_for
    from agent.page.links import Link, to_query

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    at = AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=30)
    for name, value in to_query(Link(script="add_then_answer", layout=Layout.START, predicting=False)).items():
        at.query_params[name] = value
    at = played(run(at))  # turn 1, in the player
    box = at.session_state["sandbox"]
    box.fork(1)  # a run with a fork: the server steps it, and draws its card
    at = click(run(at), "Step")  # the server's own Step button: the player is not drawn for this run
    assert box.run.turn == 2
    card = frames_of(sandbox_for("add_then_answer")).frames[2].card  # what the player draws at turn 2
    shown = [unescaped(m.value).replace("`", "") for m in at.markdown]
    for words in (f"**Sent:** {card.sent}", f"**Came back:** {card.came_back}", card.appended):
        assert words.replace("`", "") in shown, (words, shown)
