"""A learner on the Sandbox itself, as a Hypothesis state machine: no Streamlit, so a run affords thousands of
actions. The rules are the learner's actions (the Sandbox's methods, as the page's widgets call them); the
invariants are what the screen, computed from the Sandbox, must always say.

`tests/test_sandbox_machine.py` runs it bounded; `bench/sandbox_actions.py` runs it long and prints what it
tried. `tests/learner_machine.py` is the thin layer above it, through the real page.
"""

from __future__ import annotations

import json
import threading
from collections import Counter

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from agent.loop import RunState, step
from agent.models.fake import FakeModel
from agent.page import real_model, view
from agent.page.names import Layout
from agent.page.predict import MOVE_OF_PATH
from agent.page.sandbox import VIEWS, ModelKind, Sandbox
from agent.page.screen import screen_of
from agent.real import StandInServer, record_script
from agent.scripts import ScriptError, builtin_names, load_script
from agent.summary import console_lines

SCRIPTS = builtin_names()
KEY = "sk-ant-machine-0123456789-never-on-screen"  # the real model's key: it must never reach the screen
_stand_in: list = []
REAL_TIMEOUT = 10.0  # the stand-in answers in milliseconds: a request it leaves hanging is a finding, not a wait


def stand_in_url() -> str:
    """One stand-in server for every machine of the session (the real model's upstream): the real SDK over HTTP."""
    if not _stand_in:  # a daemon thread, never stopped: a graceful stop at exit would wait on the SDK's connections
        server = StandInServer(load_script("three_tool_chain"), host="127.0.0.1", port=0)
        threading.Thread(target=server.serve_forever, name="stand-in-server", daemon=True).start()
        _stand_in.append(server)
    return _stand_in[0].base_url
BUILTIN = view.builtin_scripts()
TASKS = ["What is 2 + 3?", "What is 10 - 3 + 2?", "How many words are in notes.txt?", "Shout hello", ""]
FAULTS = ["overloaded", "timeout", "tool_raises", "cut_off", "refusal"]
TEXTS = ["hello brave new world", "", "é ünïcode ✓"]


def screen(box: Sandbox) -> tuple:
    """What the page shows, as the views read it from the Sandbox."""
    run = box.run
    return (box.model.value, box.script if box.model == ModelKind.SCRIPT else None, box.branch_name,
            tuple(box.tree.branches), view.run_summary(run),
            tuple(console_lines(run, returned=False, readable=True)), box.turn_shown,
            json.dumps([run.messages, [(r.turn, r.path, r.error) for r in run.records], run.result]),
            json.dumps(box.settings.of_run()), tuple(map(tuple, box.log)), box.open_question(), box.score)


class LearnerOnTheSandbox(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.box = Sandbox(BUILTIN)
        self.acted_on = self.box.branch_name
        self.last_action = ""
        """The last action taken: a notice about a Step must follow a Step."""
        self.tally: Counter[str] = Counter()
        self.addresses: list[tuple] = []
        """Each screen's link, as the address bar held it after the action, with the screen it named."""
        self.real_model = None
        """The real model, as the page makes it (`real_model.for_settings`), against the stand-in."""

    def real(self):
        """The real model when the run is the real model's (the page passes it to each action that asks)."""
        if self.box.run_model != ModelKind.REAL:
            return None
        if self.real_model is None:
            self.real_model, problem = real_model.for_settings(KEY, "", self.box.base_url, None)
            assert problem is None, problem
            self.real_model.timeout = REAL_TIMEOUT
        return self.real_model

    def replayable(self) -> bool:
        """A link replays this screen: not a loaded tree, not a loaded script, not a real model's run."""
        return not self.box.from_file and self.box.script in BUILTIN and self.box.run_model != ModelKind.REAL

    def did(self, name: str, said=None) -> None:
        """After an action: what it said is the page's notice (as views/sandbox.py's `act` sets it)."""
        self.box.notice = said
        self.last_action = name
        self.tally[name] += 1
        self.acted_on = self.box.branch_name
        if self.replayable() and len(self.box.log) <= 40:
            self.addresses.append((self.box.link(), screen(self.box), self.box.settings_changed))

    # ------------------------------------------------------------------ the learner's actions

    @precondition(lambda self: self.box.model == ModelKind.SCRIPT)  # the picker is drawn for the Script model only
    @rule(name=st.sampled_from(SCRIPTS))
    def pick_script(self, name: str) -> None:
        self.box.pick_script(name)
        self.did("pick script")

    @rule(kind=st.sampled_from([ModelKind.SCRIPT, ModelKind.TOY, ModelKind.REAL]))
    def pick_model(self, kind: str) -> None:
        if kind == ModelKind.REAL:
            self.box.base_url = stand_in_url()  # the sidebar's Base URL field, then the switch
        self.box.pick_model(kind)
        self.did("pick model")

    @rule(task=st.sampled_from(TASKS), start=st.booleans())
    def set_task(self, task: str, start: bool) -> None:
        self.did("set task", self.box.set_task(task, start))

    @rule(name=st.sampled_from(["max_turns", "max_tokens", "threads", "tools"]), data=st.data())
    def change_setting(self, name: str, data) -> None:
        value = {"max_turns": st.integers(1, 8), "max_tokens": st.sampled_from([5, 64, 1024]),
                 "threads": st.booleans(), "tools": st.sampled_from([["add"], ["add", "word_count", "read_file",
                                                                                 "list_files", "upper"]])}[name]
        self.box.change_setting(name, data.draw(value))
        self.did("change a setting")

    @rule(to_the_end=st.booleans())
    def step(self, to_the_end: bool) -> None:
        said = self.box.step(self.real(), to_the_end=to_the_end)
        self.did("run to end" if to_the_end else "step", said)

    @rule()
    def reset(self) -> None:
        self.did("reset", self.box.reset())

    @rule(data=st.data())
    def look_back(self, data) -> None:
        self.box.look_at(data.draw(st.integers(0, self.box.run.turn)))
        self.did("look back")

    @rule(name=st.sampled_from(VIEWS))
    def pick_view(self, name: str) -> None:
        self.box.pick_view(name)
        self.did("pick a view")

    @rule(data=st.data())
    def fork(self, data) -> None:
        before = set(self.box.tree.branches)
        self.box.fork(data.draw(st.integers(0, self.box.run.turn)))
        assert set(self.box.tree.branches) > before, "a fork adds a branch"
        self.did("fork")

    @precondition(lambda self: len(self.box.tree.branches) > 1)
    @rule(data=st.data())
    def pick_branch(self, data) -> None:
        self.box.pick_branch(data.draw(st.sampled_from(list(self.box.tree.branches))))
        self.did("pick a branch")

    @rule(text=st.sampled_from(TEXTS), stop=st.sampled_from(["end_turn", "tool_use", "max_tokens"]))
    def edit_reply(self, text: str, stop: str) -> None:
        branch = self.box.tree.branch
        record = view.record_of_turn(branch.state, branch.fork_turn) if branch.parent else None
        blocks = [b for b in ((record.reply or {}).get("content") or []) if b.get("type") != "text"] if record \
            else []
        self.box.edit_reply(stop, [{"type": "text", "text": text}, *blocks])
        self.did("edit a reply")

    @rule(content=st.sampled_from(["7", "", "broken"]), is_error=st.booleans())
    def edit_result(self, content: str, is_error: bool) -> None:
        self.box.edit_result(0, content, is_error)
        self.did("edit a result")

    @rule(kind=st.sampled_from(FAULTS))
    def inject_fault(self, kind: str) -> None:
        self.did("inject a fault", self.box.inject_fault(kind, "", self.real()))

    @rule(text=st.sampled_from(TEXTS), call=st.booleans())
    def hand(self, text: str, call: bool) -> None:
        blocks = [{"type": "text", "text": text}] if text else []
        if call:
            blocks.append({"type": "tool_use", "name": "add", "input": {"a": 1, "b": 2}})
        self.did("write a reply by hand", self.box.hand("tool_use" if call else "end_turn", blocks))

    @rule()
    def save_and_load_the_tree(self) -> None:
        before = screen(self.box)
        self.box.load_tree(self.box.tree.to_json().encode())
        after = screen(self.box)
        assert after[2:6] + after[7:8] == before[2:6] + before[7:8], "a tree loaded back is the tree saved"
        self.did("load a tree")

    @precondition(lambda self: bool(self.box.history.undo))
    @rule()
    def undo_then_redo(self) -> None:
        before = screen(self.box)
        self.box.undo()
        self.box.redo()
        assert screen(self.box) == before, "undo then redo returns the same screen"
        self.did("undo then redo")

    @precondition(lambda self: bool(self.box.history.undo))
    @rule()
    def undo(self) -> None:
        self.did("undo", self.box.undo())

    @precondition(lambda self: bool(self.addresses))
    @rule(data=st.data())
    def back_or_forward(self, data) -> None:
        link, shown, moved = data.draw(st.sampled_from(self.addresses), label="an earlier address")
        before = screen(self.box)
        assert self.box.follow_link(link) == []
        upto = 8 if moved else 9
        assert screen(self.box)[:upto] == shown[:upto], "Back shows the screen its address names"
        if screen(self.box) != before:
            self.box.undo()
            assert screen(self.box) == before, "and Undo comes back to the screen before it"
        self.tally["back or forward"] += 1
        self.acted_on = self.box.branch_name

    @rule()
    def open_the_link(self) -> None:
        if not self.replayable() or len(self.box.log) > 40:
            return  # what a link cannot hold, the copy link dialog says (box.link_notes)
        again = Sandbox(BUILTIN)
        problems = again.open_link(self.box.link())
        assert problems == [], problems
        # A link holds the run's settings; controls moved since the run started are not in it (yet).
        shown = 8 if self.box.settings_changed else 9
        assert screen(again)[:shown] == screen(self.box)[:shown], "a link opens the screen it was made on"
        self.did("open the link")

    @rule(layout=st.sampled_from(list(Layout)))
    def switch_layout(self, layout: Layout) -> None:
        notice = self.box.notice
        self.box.set_layout(layout)  # the toggle's own callback, not an action: the notice is the Sandbox's to keep
        assert self.box.notice in (None, notice)
        self.tally["switch the layout"] += 1

    @rule(on=st.booleans())
    def switch_predicting(self, on: bool) -> None:
        self.box.set_predicting(on)
        self.did("switch Predict each turn")

    @rule(picked=st.integers(0, 3))
    def predict(self, picked: int) -> None:
        question = self.box.open_question()
        right, answered = self.box.score
        self.box.predict(picked)
        if question is not None:
            assert self.box.score == (right + (picked == question.right), answered + 1), "each answer is scored once"
            assert self.box.verdicts()[-1].picked == picked
        self.did("predict")

    @rule()
    def next_scenario(self) -> None:
        self.box.next_scenario()
        self.did("next scenario")

    # ------------------------------------------------------------------ what must always hold

    @invariant()
    def no_request_is_left_unanswered(self) -> None:
        assert not any("timed out" in (r.error or "") and "injected" not in str(r.error) for r in self.box.run.records
                       if self.box.run_model == ModelKind.REAL and not self.box.tree.branch.marks), \
            [r.error for r in self.box.run.records]

    @invariant()
    def the_key_is_never_on_screen(self) -> None:
        said = json.dumps([screen(self.box), self.box.notice.text if self.box.notice else "",
                           screen_of(self.box).console, screen_of(self.box).status], default=str)
        assert KEY not in said

    @invariant()
    def a_request_refused_before_sending_is_not_said_sent(self) -> None:
        shown = screen_of(self.box)
        said = shown.turn_sent
        if said is not None and said.record.refused_unsent:
            assert said.went.startswith("was refused before sending"), said.line

    @invariant()
    def a_question_asks_about_what_the_loop_did(self) -> None:
        question = self.box.open_question()
        if question is None:
            return
        record = self.box.run.records[-1]
        assert record.reply is not None and MOVE_OF_PATH[record.path] == question.move, (record.path, question)
        shown = screen_of(self.box)
        assert shown.asking is record and shown.outcome is None, "the turn's outcome waits for the answer"
        assert shown.turn == record.turn - 1 and len(shown.shown.messages) == record.sent
        right, answered = self.box.score
        assert 0 <= right <= answered

    @invariant()
    def the_run_on_screen_is_the_branch_acted_on(self) -> None:
        assert self.box.run is self.box.tree.branch.state
        assert self.box.branch_name == self.acted_on

    @invariant()
    def every_count_agrees(self) -> None:
        run = self.box.run
        summary = view.run_summary(run)
        taken = sum(r.counted and r.reply is not None for r in run.records)  # a request with no reply took no turn
        last = run.records[-1] if run.records else None
        unanswered = last is not None and last.counted and last.reply is None
        ended = f"the request for turn {last.turn} " if unanswered else ""
        assert summary.startswith(f"turn {taken} of {run.max_turns} · {ended}")
        assert f" · {len(run.messages)} message" in summary
        calls = sum(len(r.tool_runs) for r in run.records)
        assert f"{calls} tool call" in summary
        assert 0 <= self.box.turn_shown <= run.turn
        counted = [r for r in run.records if r.counted]
        assert [r.turn for r in counted] == list(range(1, len(counted) + 1))
        for record in counted:
            sent = view.sent_by_turn(run, record)
            assert sent.messages == record.messages_sent
            if record.thread is None or record.thread.get("type") == "create":
                assert sent.messages == record.sent  # the whole array went

    @invariant()
    def no_sentence_names_a_control_the_layout_does_not_show(self) -> None:
        said = self.box.notice.text if self.box.notice else ""
        if "typed above" in said or "Task box" in said and "under All controls" not in said:
            assert self.box.task_box_shown, (self.box.layout, self.box.run_model, said)

    @invariant()
    def a_notice_about_a_step_follows_a_step(self) -> None:
        said = self.box.notice.text if self.box.notice else ""
        if "this Step started a new run" in said or "There is nothing left to step" in said and \
                self.last_action != "run to end":
            assert self.last_action == "step", (self.last_action, said)
        if "this Run to end started a new run" in said:
            assert self.last_action == "run to end", (self.last_action, said)
        if "There is nothing to reset" in said:
            assert self.last_action == "reset" and self.box.untouched

    @invariant()
    def a_fault_s_words_match_what_the_reply_held(self) -> None:
        for index, mark in self.box.tree.branch.marks.items():
            if mark.kind != "injected" or mark.fault != "cut_off":
                continue
            reply = self.box.run.records[index].reply or {}
            calls = any(b.get("type") == "tool_use" for b in reply.get("content") or [])
            assert mark.words.endswith("in the middle of a tool call" if calls else "in the middle of its text"), \
                (mark.words, reply)

    @invariant()
    def no_fault_is_credited_that_did_not_happen(self) -> None:
        for index, mark in self.box.tree.branch.marks.items():
            record = self.box.run.records[index]
            if mark.kind == "injected" and mark.fault in ("cut_off", "refusal"):
                assert record.reply is not None, "a changed reply needs a reply"
            if mark.kind == "injected" and mark.fault == "tool_raises":
                assert record.tool_runs, "a broken tool needs a call"

    @invariant()
    def the_exported_script_replays_to_the_console(self) -> None:
        run = self.box.run
        if run.threads or any(m.kind == "injected" for m in self.box.tree.branch.marks.values()):
            return  # an injected fault is not in a script; over threads the replay's sizes differ
        try:
            script = record_script(run)
        except ScriptError:
            return
        again = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns,
                         max_tokens=run.max_tokens)
        model = FakeModel(script)
        while not again.done and len(again.records) < len(run.records):
            step(again, model)
        assert [r.path for r in again.records] == [r.path for r in run.records]
