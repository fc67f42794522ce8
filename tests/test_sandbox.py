"""The Sandbox, the page's one state: each learner action as a method, undo and redo, and what the page says.

These drive `agent.page.sandbox.Sandbox` directly (no Streamlit): the sequences learners clicked that lost
work or said false things, each held to what must be true.
"""

from __future__ import annotations

import json

import pytest

from agent.branches import RunTree
from agent.page import view
from agent.page.branches_view import branch_caption
from agent.page.sandbox import ModelKind, Sandbox
from agent.page.screen import screen_of
from agent.page.shared_work import REPLAYED, STEPPED
from agent.summary import console_lines


@pytest.fixture
def box() -> Sandbox:
    return Sandbox(view.builtin_scripts())


def screen(box: Sandbox) -> tuple:
    """What the page shows of the run: the branch, the status line, the console, the turn and the settings."""
    from agent.summary import console_lines

    return (box.branch_name, list(box.tree.branches), view.run_summary(box.run), console_lines(box.run),
            box.turn_shown, box.settings.of_run(), box.model.value, box.script)


def test_picking_main_keeps_every_branch_when_main_has_no_turn_yet(box):
    # 0a: fork after turn 0, step the branch, change a setting, pick main: branch 1 must still be there.
    box.fork(0)
    box.step()
    box.change_setting("max_turns", 7)
    box.pick_branch("main")
    assert list(box.tree.branches) == ["main", "branch 1"]
    assert box.tree.branches["branch 1"].state.turn == 1
    assert box.branch_name == "main" and box.run.turn == 0


def test_a_fault_that_met_no_reply_is_not_credited(box):
    # 0b: the script's own 529 is the script's; "the tool raises" had nothing to act on.
    box.pick_script("overloaded_529")
    box.step()
    notice = box.inject_fault("tool_raises", "add")
    record = box.run.records[-1]
    assert record.path == "model_error"
    assert box.tree.branch.mark_of(record) is None
    assert notice is not None and "not applied" in notice.text and "called no tool" not in notice.text
    box.undo()
    box.inject_fault("refusal")
    assert box.tree.branch.mark_of(box.run.records[-1]) is None


def test_a_fault_that_happened_is_marked(box):
    box.inject_fault("tool_raises", "add")
    record = box.run.records[-1]
    assert record.tool_runs and record.tool_runs[0].is_error
    assert box.tree.branch.mark_of(record).kind == "injected"


@pytest.mark.parametrize("drop", ["reset", "model", "script", "example"])
def test_an_action_that_drops_work_says_so_and_undo_brings_it_back(box, drop):
    box.step()
    box.fork(1)
    box.step()
    before = screen(box)
    if drop == "reset":
        said = box.reset()
    elif drop == "model":
        said = box.pick_model("Toy")
    elif drop == "script":
        said = box.pick_script("runaway")
    else:
        box.pick_model("Toy")
        box.undo()
        said = box.set_task("What is 2 + 3?", start=True)
    assert said is not None and "1 branch" in said.text and "Undo brings it back" in said.text
    assert box.run.turn == 0 and list(box.tree.branches) == ["main"]
    box.undo()
    assert screen(box) == before
    box.redo()
    assert box.run.turn == 0 and list(box.tree.branches) == ["main"]


def test_undo_then_redo_returns_the_same_screen_at_each_step(box):
    shown = [screen(box)]
    for action in (box.step, lambda: box.fork(1), lambda: box.inject_fault("refusal"),
                   lambda: box.pick_branch("main"), lambda: box.change_setting("max_turns", 3), box.step):
        action()
        shown.append(screen(box))
    for expected in reversed(shown[:-1]):
        box.undo()
        assert screen(box) == expected
    assert box.undo().text == "Nothing to undo."
    for expected in shown[1:]:
        box.redo()
        assert screen(box) == expected


def whole(box: Sandbox) -> tuple:
    """Everything Undo brings back, as data."""
    return (box.tree.to_json(), box.log, box.looked_at, box.settings.of_run(), box.model, box.script,
            box.predictions.answers, box.predictions.asked, box.score, box.open_question())


@pytest.mark.parametrize("predicting", [False, True])
def test_undo_in_another_session_takes_the_shared_replay_and_lands_where_a_replay_lands(predicting, monkeypatch):
    first, second = Sandbox(view.builtin_scripts()), Sandbox(view.builtin_scripts())
    for box in (first, second):
        box.set_predicting(predicting)
        box.pick_script("three_tool_chain")
        for _ in range(3):
            box.step()
            while (question := box.open_question()) is not None:
                box.predict(question.right)
        box.fork(1)
        box.step()
    first.undo()  # replayed, and kept for the process
    calls = []
    monkeypatch.setattr(second, "replay", lambda actions: calls.append(actions))
    second.undo()  # the same place: taken from what the first replay gave
    assert calls == [] and whole(second) == whole(first)
    first.redo(), second.redo()
    assert whole(second) == whole(first) and second.run.turn == 2


def test_a_run_of_a_script_from_a_file_is_replayed_for_its_own_session_only(box):
    script = {"title": "Mine", "task": "Add", "tools": ["add"], "replies": [
        {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}]}
    assert box.load_script(json.dumps(script).encode(), "mine.json") is None
    box.step()
    box.undo()
    assert box.run.turn == 0 and REPLAYED.get(box._replay_key(box._mark())) is None
    assert box._replay_key(box._mark()) is None  # a file's script is its learner's own


@pytest.mark.parametrize("predicting", [False, True])
def test_a_step_in_another_session_takes_the_shared_outcome_and_lands_where_its_own_step_lands(predicting,
                                                                                                 monkeypatch):
    first, second = Sandbox(view.builtin_scripts()), Sandbox(view.builtin_scripts())
    for box in (first, second):
        box.set_predicting(predicting)
        box.pick_script("three_tool_chain")
    for _ in range(3):
        first.step()  # stepped, and kept for the process
        while (question := first.open_question()) is not None:
            first.predict(question.right)
    stepped = []
    monkeypatch.setattr(RunTree, "step", lambda tree, model: stepped.append(model))
    for _ in range(3):
        second.step()  # the same places: taken from what the first session's Steps gave
        while (question := second.open_question()) is not None:
            second.predict(question.right)
    assert stepped == [] and whole(second) == whole(first) and second.run.turn == 3
    monkeypatch.undo()
    first.undo(), second.undo()
    assert whole(second) == whole(first)
    first.redo(), second.redo()
    assert whole(second) == whole(first) and second.run.turn == 3


def test_a_step_from_a_place_no_session_stepped_from_is_the_sessions_own(box, monkeypatch):
    Sandbox(view.builtin_scripts()).step()  # another session's first Step of the reference script
    stepped, step = [], RunTree.step
    monkeypatch.setattr(RunTree, "step", lambda tree, model: stepped.append(tree.current) or step(tree, model))
    box.step()  # the same place: the other session's outcome
    box.step()  # a place no session stepped from: stepped here, and kept
    assert stepped == ["main"] and box.run.turn == 2 and len(STEPPED) == 2


def test_a_run_of_a_script_from_a_file_steps_for_its_own_session_only(box):
    script = {"title": "Mine", "task": "Add", "tools": ["add"], "replies": [
        {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}]}
    assert box.load_script(json.dumps(script).encode(), "mine.json") is None
    box.step()
    assert box.run.done and len(STEPPED) == 0


def test_an_action_after_undo_starts_a_new_future(box):
    box.step()
    box.undo()
    box.fork(0)
    assert box.redo().text == "Nothing to redo."


def test_a_refused_action_leaves_nothing_to_undo(box):
    assert box.fork(5) is not None
    assert box.pick_branch("nope") is not None
    assert box.history.undo == []


def test_an_apply_that_changes_nothing_is_not_recorded_as_an_edit(box):
    box.step()
    box.fork(1)
    said = box.edit_reply("tool_use", box.run.messages[1]["content"])
    assert said is not None and "nothing to apply" in said.text
    assert not box.tree.branch.marks
    assert branch_caption(box.tree, "branch 1").startswith("branch 1: from main after turn 1 ·")


def test_a_branch_with_an_edited_fork_turn_is_named_by_the_turn_it_was_forked_after(box):
    box.step()
    box.fork(1)
    blocks = [dict(b, text="Let me add them up.") if b["type"] == "text" else b for b in box.run.messages[1]["content"]]
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": "Let me add them up."})
    assert box.edit_reply("tool_use", blocks) is None
    assert "after turn 1, turn 1 edited" in branch_caption(box.tree, "branch 1")


def test_an_edit_over_threads_goes_out_whole_under_a_new_thread(box):
    box.change_setting("threads", True)
    box.step()
    box.fork(1)
    blocks = [{"type": "text", "text": ""} if b["type"] == "text" else b for b in box.run.messages[1]["content"]]
    if not any(b["type"] == "text" for b in blocks):
        blocks.insert(0, {"type": "text", "text": ""})
    box.edit_reply("tool_use", blocks)
    box.step()
    record = box.run.records[-1]
    # The whole array is sent and checked: the empty text block is refused in the API's words.
    assert record.thread == {"type": "create"} and record.sent_from == 0
    assert record.thread_lost and "edited" in record.thread_lost
    assert record.path == "bad_request" and "text content blocks must be non-empty" in record.error
    sent = view.sent_by_turn(box.run, record)
    assert "The server holds the rest" not in (view.thread_note(sent) or "")


def test_a_good_edit_over_threads_makes_a_new_thread_and_the_next_turn_continues_it(box):
    box.change_setting("threads", True)
    box.step()
    box.fork(1)
    blocks = [{"type": "text", "text": "Adding."}] + [b for b in box.run.messages[1]["content"] if b["type"] != "text"]
    assert box.edit_reply("tool_use", blocks) is None
    box.step()
    assert box.run.records[-1].thread == {"type": "create"}
    assert box.run.new_thread is None


def test_a_run_tree_downloaded_as_json_loads_back(box):
    box.step()
    box.fork(1)
    box.inject_fault("refusal")
    saved = box.tree.to_json()
    shown = screen(box)
    other = Sandbox(view.builtin_scripts())
    assert other.load_tree(saved.encode()).kind == "info"
    assert screen(other)[:5] == shown[:5]
    other.pick_branch("main")
    other.step()  # main goes on with the script from where its records say it had got
    assert other.run.result == "2 + 3 is 5."


@pytest.mark.parametrize("data", [b"not json", b"[]", b'{"branches": 3}', json.dumps({"branches": [{}]}).encode(),
                                  b'{"current": "x", "branches": []}'])
def test_a_bad_run_tree_is_refused_in_words_and_loses_nothing(box, data):
    box.step()
    before = screen(box)
    said = box.load_tree(data)
    assert said.kind == "error" and said.text.startswith("The run tree could not be loaded")
    assert screen(box) == before


def test_a_link_replays_through_the_same_actions(box):
    box.step()
    box.fork(1)
    box.inject_fault("cut_off")
    link = box.link()
    other = Sandbox(view.builtin_scripts())
    assert other.open_link(link) == []
    assert screen(other) == screen(box)


def test_the_model_names_are_one_word_each(box):
    assert [kind.value for kind in ModelKind] == ["Script", "Toy", "Real"]
    assert box.link().model == "Script"


def test_an_edit_over_threads_never_reaches_the_real_model_as_a_continue_of_the_old_reply():
    """Point 2: the real SDK over HTTP to the stand-in: after an edit, the history goes out whole, checked."""
    from agent.real import AnthropicModel, running_server
    from agent.scripts import load_script

    script = load_script("add_then_answer")
    with running_server(script) as server:
        heard = []
        server.on_answer = lambda endpoint, body, answer: heard.append(body)
        model = AnthropicModel("sk-test", base_url=server.base_url, max_retries=0)
        box = Sandbox(view.builtin_scripts())
        box.pick_model("Real")
        box.change_setting("threads", True)
        box.step(real=model)
        box.fork(1)
        edited = [{"type": "text", "text": ""}] + [b for b in box.run.messages[1]["content"] if b["type"] != "text"]
        box.edit_reply("tool_use", edited)
        box.step(real=model)
        record = box.run.records[-1]
        assert len(heard) == 1  # the edited history was refused before it left: the server saw only turn 1
        assert record.refused_unsent and "text content blocks must be non-empty" in record.error
        assert record.thread == {"type": "create"} and "edited" in record.thread_lost
        shown = screen_of(box)  # point 3: a request refused before it left is not said to be sent
        assert shown.turn_sent.line.startswith("**Turn 2 was refused before sending: it held** 3 messages")
        assert console_lines(box.run, readable=True)[-1].startswith(
            "messages sent each turn: 1, 3 (refused before sending)")
        box.undo()  # the refused Step taken back (a real model's run is kept whole for Undo)
        good = [{"type": "text", "text": "Adding."}] + edited[1:]
        box.edit_reply("tool_use", good)
        box.step(real=model)
        assert heard[-1]["thread"] == {"type": "create"} and heard[-1]["messages"] == box.run.messages[:3]
        assert box.run.records[-1].reply is not None


def test_a_link_that_cannot_replay_its_run_names_no_turn_of_it(box):
    """A real model's run and a loaded tree are not in their links: each opens a fresh run, with no turn to show
    (the turn looked at was a turn the opened page could only refuse)."""
    from agent.real import AnthropicModel, running_server
    from agent.scripts import load_script

    box.pick_model("Real")
    with running_server(load_script("three_tool_chain")) as server:
        model = AnthropicModel("sk-test", base_url=server.base_url, max_retries=0)
        box.step(real=model)
        box.step(real=model)
    loaded = Sandbox(view.builtin_scripts())
    loaded.step(to_the_end=True)
    loaded.load_tree(loaded.tree.to_json())
    for shown in (box, loaded):
        shown.look_at(1)
        link = shown.link()
        assert link.actions == [] and link.turn is None
        opened = Sandbox(view.builtin_scripts())
        assert opened.open_link(link) == [] and opened.untouched


def test_over_a_thread_the_turn_heading_lists_no_tools_it_did_not_send(box):
    box.pick_script("three_tool_chain")
    box.change_setting("threads", True)
    box.step()
    box.step()
    first, second = screen_of(box).turn_sent, None
    box.look_at(1)
    second, first = first, screen_of(box).turn_sent
    assert "tools: " + ", ".join(box.run.tool_names) in first.line  # the thread's create carries them
    assert second.line.endswith("tools: kept by the thread") and "tools" not in second.request


def test_the_screen_s_figures_agree_with_each_other_at_every_turn_looked_at(box):
    box.pick_script("overloaded_529")
    box.step(to_the_end=True)
    box.fork(1)
    box.inject_fault("tool_raises")
    for turn in range(box.run.turn + 1):
        box.look_at(turn)
        shown = screen_of(box)
        sizes = shown.console[-1].removeprefix("messages sent each turn: ")
        counted = [r for r in shown.shown.records if r.counted]
        assert shown.turn == turn and shown.shown.turn == turn
        assert sizes == (", ".join(str(r.messages_sent) for r in counted) or "none yet (no turn has gone through)")
        if shown.turn_sent is not None:
            assert shown.turn_sent.record.turn == turn
            assert shown.turn_sent.line.startswith(f"**Turn {turn} sent** {shown.turn_sent.sent.messages} message")
        assert shown.status.startswith(f"turn {box.run.turn} of {box.run.max_turns}")


def test_a_step_that_starts_a_new_run_with_an_empty_task_says_both(box):
    box.fork(0)
    box.hand("end_turn", [{"type": "text", "text": "Done."}])
    box.set_task("")
    said = box.step(to_the_end=True)
    assert "this Run to end started a new run" in said.text and "The task is empty" in said.text
    assert list(box.tree.branches) == ["main"] and box.run.turn == 0


def test_what_a_dropped_tree_held_names_each_branch_by_its_own_turns():
    box = Sandbox(view.builtin_scripts())
    box.fork(0)
    box.step()
    assert box.work_words() == "a run of 0 turns and 1 branch (1 turn of its own)"
    box.pick_branch("main")
    box.step()
    box.step()
    box.fork(1)
    box.step()
    assert box.work_words() == "a run of 2 turns and 2 branches (2 turns of their own)"


def test_the_players_undo_and_redo_are_taken_up_as_the_sandboxs_own(box):
    """`u` and `y` in what the player hands over are the Sandbox's Undo and Redo, in their place among the rest."""
    same = Sandbox(builtin=box.builtin, script=box.script)
    assert box.take_played("s.s.u.s.u.u.y") is None
    for action in (same.step, same.step, same.undo, same.step, same.undo, same.undo, same.redo):
        action()
    assert (box.run.turn, len(box.history.undo), len(box.history.redo)) == (1, 1, 1)
    assert screen_of(box) == screen_of(same)
    assert box.take_played("u.u.u") is None  # more than there is to undo: the rest said nothing, as a click's
    assert box.run.turn == 0 and box.history.undo == []
    assert "not one the page knows" in (box.take_played("u1") or "")
