"""A learner on the sandbox page, as a Hypothesis state machine: the rules are what a learner clicks, the
invariants what must hold on screen after every click.

The page is the real one (AppTest runs `sandbox_app.py`); each rule acts through its widgets, and each
invariant reads what the page drew (the status line, the console, the turn heading, the run graph, the
boxes) and holds it against the run the session keeps. `tests/test_learner_actions.py` runs it bounded in
the suite; `bench/learner_actions.py` runs it long and prints what it tried.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from page_support import (
    ROOT,
    click,
    console,
    full_page,
    look_back,
    page_text,
    player_shows,
    run,
    run_graph_dot,
    status,
    texts,
    turn_looked_at,
)
from streamlit.testing.v1 import AppTest

from agent.loop import RunState, step
from agent.models.fake import FakeModel
from agent.real import record_script
from agent.scripts import ScriptError, builtin_names, parse_script_text
from agent.summary import console_lines

SCRIPTS = builtin_names()
TASKS = ["What is 2 + 3?", "What is 10 - 3 + 2?", "How many words are in notes.txt?", "Shout hello",
         "What is 2 + 3 and 4 + 5?", "Tell me a joke", ""]
FAULT_KINDS = ["overloaded", "timeout", "tool_raises", "cut_off", "refusal"]
MODEL_FAULTS = ("overloaded", "timeout")  # faults that end the attempt in a model error, on purpose
EDIT_TEXTS = ["hello brave new world", "The answer is 42.", "é ünïcode ✓"]
NOTE = re.compile(r"(^|\s+)<- .*$")  # a console line's mark (injected, edited, by hand): not part of the run's output
BARE = re.compile(r"^(turn \d+:)?$")
BAD_UPLOAD = b'{"replies": [{"stop_reason": "end_turn"}], "surprise": 1}'


def good_upload() -> bytes:
    script = json.loads((ROOT / "scripts" / "add_then_answer.json").read_text())
    script["title"] = "My upload"
    return json.dumps(script).encode()


class LearnerOnThePage(RuleBasedStateMachine):
    """One browser tab of the sandbox, driven by a learner's clicks."""

    def __init__(self) -> None:
        super().__init__()
        self.at: AppTest | None = None
        self.errors_asked_for = 0
        """How many error boxes the last action asked for (a refused upload, a refused edit)."""
        self.on_screen: str | None = None
        """The branch the last action put on screen or changed; None while the run has no tree."""
        self.actions: list[str] = []
        """What the learner did, for the failure message."""

    # ------------------------------------------------------------------ reading the session

    @property
    def ss(self):
        return self.at.session_state

    @property
    def run_state(self) -> RunState:
        return self.ss["sandbox"].run

    def tree(self):
        tree = self.ss["sandbox"].tree
        return tree if tree is not None and tree.branch.state is self.run_state else None

    def act(self, words: str, target) -> None:
        self.actions.append(words)
        self.errors_asked_for = 0
        self.at = target(self.at) if callable(target) else run(target)  # a callable: a helper that runs the page

    def button(self, label: str | None = None, key: str | None = None):
        found = [b for b in self.at.button if (label is None or b.label == label) and (key is None or b.key == key)]
        return found[0] if found else None

    def open_panel(self, tab: str) -> None:
        self.ss["change_the_past"] = True
        self.ss["past_tab"] = tab
        self.at = run(self.at)

    def keep_branch(self) -> None:
        """The action stepped or changed the branch on screen: it must stay the one on screen."""
        tree = self.tree()
        self.on_screen = tree.current if tree is not None else None

    # ------------------------------------------------------------------ the learner's actions

    @initialize()
    def open_the_page(self) -> None:
        self.at = run(full_page(60))

    @precondition(lambda self: self.ss["sandbox"].model == "Script")
    @rule(name=st.sampled_from(SCRIPTS))
    def pick_script(self, name: str) -> None:
        self.act(f"pick script {name}", self.at.selectbox(key="script").set_value(name))
        self.on_screen = None

    @rule(choice=st.sampled_from(["Script", "Toy"]))
    def pick_model(self, choice: str) -> None:
        self.act(f"pick model {choice}", self.at.radio(key="model_choice").set_value(choice))
        self.on_screen = None

    @rule(task=st.sampled_from(TASKS))
    def type_task(self, task: str) -> None:
        self.act(f"type task {task!r}", self.at.text_area(key="task").input(task))

    @rule()
    def press_step(self) -> None:
        self.keep_branch()
        self.act("Step", lambda at: click(at, "Step"))  # the page's Step, or the player's
        self.after_a_step()

    @rule()
    def press_run_to_end(self) -> None:
        self.keep_branch()
        self.act("Run to end", lambda at: click(at, "Run to end"))
        self.after_a_step()

    def after_a_step(self) -> None:
        """A Step on a finished run with new settings starts a new run, and says so: nothing is on screen by then
        that the learner acted on but the new run."""
        said = [*self.at.info, *self.at.warning]  # a warning when the new run's task is empty
        if any("started a new run with the settings" in words for words in (texts([box]) for box in said)):
            self.on_screen = None

    @rule()
    def press_reset(self) -> None:
        self.act("Reset", lambda at: click(at, "Reset"))
        self.on_screen = None

    @precondition(lambda self: self.run_state.turn > 0)
    @rule(data=st.data())
    def look_back(self, data) -> None:
        turn = data.draw(st.integers(0, self.run_state.turn), label="turn")
        self.act(f"look back to {turn}", lambda at: look_back(at, turn))

    @rule(threads=st.booleans())
    def switch_threads(self, threads: bool) -> None:
        self.act(f"threads {threads}", self.at.toggle(key="threads").set_value(threads))

    @precondition(lambda self: self.ss["sandbox"].model == "Script")
    @rule(good=st.booleans())
    def upload(self, good: bool) -> None:
        uploader = next(u for u in self.at.file_uploader if u.key.startswith("upload"))  # the script's, not the tree's
        body = good_upload() if good else BAD_UPLOAD
        self.act(f"upload {'a good' if good else 'a bad'} file", uploader.upload("mine.json", body, "application/json"))
        self.on_screen = None if good else self.on_screen
        self.errors_asked_for = 0 if good else 1

    def shown(self) -> tuple:
        box = self.ss["sandbox"]
        records = [(r.turn, r.path, r.error) for r in box.run.records]  # not their timings: a redo replays
        return status(self.at), console(self.at), box.branch_name, list(box.tree.branches), box.run.messages, records

    @precondition(lambda self: self.at is not None and bool(self.ss["sandbox"].history.undo))
    @rule()
    def undo_then_redo(self) -> None:
        before = self.shown()
        self.act("undo", lambda at: click(at, "Undo"))
        self.act("redo", lambda at: click(at, "Redo"))
        assert self.shown() == before, "undo then redo returns the same screen"

    @precondition(lambda self: self.at is not None and bool(self.ss["sandbox"].history.undo))
    @rule()
    def undo(self) -> None:
        self.act("undo", lambda at: click(at, "Undo"))
        tree = self.tree()
        self.on_screen = tree.current if tree is not None and len(tree.branches) > 1 else None

    @precondition(lambda self: self.run_state.turn > 0)
    @rule(data=st.data())
    def fork(self, data) -> None:
        turn = data.draw(st.integers(0, self.run_state.turn), label="fork after")
        self.act(f"look back to {turn}", lambda at: look_back(at, turn))
        self.open_panel("Fork and edit")
        fork = self.button(key="fork")
        self.act(f"fork after {turn}", fork.click())
        tree = self.tree()
        assert tree is not None and tree.current != "main", "a fork puts its new branch on screen"
        self.on_screen = tree.current

    @precondition(lambda self: self.tree() is not None and len(self.tree().branches) > 1)
    @rule(data=st.data())
    def switch_branch(self, data) -> None:
        self.open_panel("Fork and edit")  # drawn afresh: a picker's captions are those of the branches as they are
        picker = self.at.selectbox(key="branch_pick")
        name = data.draw(st.sampled_from(list(picker.options)), label="branch")
        names = list(self.tree().branches)
        target = names[list(picker.options).index(name)]
        self.act(f"switch to {target}", picker.set_value(target))
        self.on_screen = target

    @rule(data=st.data())
    def edit_reply_text(self, data) -> None:
        self.open_panel("Fork and edit")
        area = next((a for a in self.at.text_area if a.key and a.key.startswith("edit_blocks_")), None)
        if area is None:
            return
        blocks = json.loads(area.value)
        texts_at = [i for i, b in enumerate(blocks) if b.get("type") == "text"]
        if not texts_at:
            return
        blocks[texts_at[0]]["text"] = data.draw(st.sampled_from(EDIT_TEXTS), label="text")
        area.set_value(json.dumps(blocks))
        self.keep_branch()
        self.act("edit the reply's text", self.button("Apply this reply").click())

    @rule(data=st.data())
    def edit_tool_result(self, data) -> None:
        self.open_panel("Fork and edit")
        fields = [t for t in self.at.text_area if t.key and t.key.startswith("edit_result_")]
        if not fields:
            return
        position = data.draw(st.integers(0, len(fields) - 1), label="call")
        fields[position].set_value(data.draw(st.sampled_from(["35", "six", "é"]), label="result"))
        apply = [b for b in self.at.button if b.key and b.key.startswith("edit_result_apply_")][position]
        self.keep_branch()
        self.act(f"change result {position + 1}", apply.click())

    @rule(kind=st.sampled_from(FAULT_KINDS))
    def inject_fault(self, kind: str) -> None:
        self.open_panel("Inject a fault")
        self.at.selectbox(key="fault_kind").set_value(kind)
        self.at = run(self.at)
        self.keep_branch()
        self.act(f"inject {kind}", self.button(key="fault_step").click())

    @rule(call_add=st.booleans(), text=st.sampled_from(["Done.", "Let me add.", "ünï"]))
    def be_the_model(self, call_add: bool, text: str) -> None:
        if "add" not in self.run_state.tool_names and call_add:
            return
        self.open_panel("Be the model")
        self.at.selectbox(key="hand_stop").set_value("tool_use" if call_add else "end_turn")
        self.at.number_input(key="hand_calls").set_value(1 if call_add else 0)
        self.at.text_area(key="hand_text").input(text)
        self.at = run(self.at)
        if call_add:
            self.at.selectbox(key="hand_tool_1").set_value("add")
            self.at.text_input(key="hand_input_1").input('{"a": 1, "b": 2}')
            self.at = run(self.at)
        self.keep_branch()
        self.act(f"send a hand reply ({'add' if call_add else 'end_turn'})", self.button(key="hand_send").click())

    # ------------------------------------------------------------------ what must hold on screen

    def said(self) -> str:
        return " -> ".join(self.actions[-12:])

    @invariant()
    def no_exception_and_no_error_box_not_asked_for(self) -> None:
        if self.at is None:
            return
        assert not self.at.exception, (self.said(), [e.value for e in self.at.exception])
        failed = any(r.path == "model_error" for r in self.run_state.records)
        box = self.ss["sandbox"]
        standing = box.notice.text if box.notice is not None and box.notice.kind == "error" else None
        for error in (texts([e]) for e in self.at.error):
            if failed and ("model failed" in error or "failed first" in error):
                continue  # the model failed (an injected 529 or timeout, or the script's own): said in red
            if standing and error.startswith(standing.split("\n")[0][:40]) and "was not loaded" in standing:
                # a refused upload stands until the next action; an action that changed nothing leaves it
                title = box.picked_script.title
                assert "the run still plays" not in error or title in error, (self.said(), error, title)
                continue
            assert self.errors_asked_for, (self.said(), error)

    @invariant()
    def no_request_refused(self) -> None:
        """Every request the page's loop sent was one the API accepts: nothing the learner did here is wrong."""
        if self.at is None:
            return
        result = self.run_state.result or ""
        assert not result.startswith("bad request"), (self.said(), result)

    @invariant()
    def the_branch_on_screen_is_the_one_acted_on(self) -> None:
        if self.at is None:
            return
        tree = self.tree()
        if tree is None:
            return
        assert self.run_state is tree.branch.state
        if self.on_screen is not None:
            assert tree.current == self.on_screen, (self.said(), tree.current, self.on_screen)
        if len(tree.branches) > 1 and self.ss["change_the_past"]:
            pickers = [s for s in self.at.selectbox if s.key == "branch_pick"]
            if pickers:
                assert pickers[0].value == tree.current, (self.said(), pickers[0].value, tree.current)

    @invariant()
    def every_counter_on_screen_agrees(self) -> None:
        if self.at is None:
            return
        state = self.run_state
        if player_shows(self.at) is not None:  # the player's slider, where the page hands it over
            shown_turn = turn_looked_at(self.at)
        else:
            shown_turn = self.ss["sandbox"].turn_shown if state.turn and "look_back" in self.ss else 0
        line = status(self.at)
        taken = sum(r.counted and r.reply is not None for r in state.records)  # a request with no reply took no turn
        assert line.startswith(f"turn {taken} of {state.max_turns} · "), (self.said(), line)
        assert f" · {len(state.messages)} message" in line, (self.said(), line)
        if self.ss["tab"] != "Run":
            return
        lines = console(self.at)
        counted = [r for r in state.records if r.counted and r.turn <= shown_turn]
        numbers, wholes = sent_each_turn(lines[-1])
        assert len(numbers) == len(counted), (self.said(), lines[-1], len(counted))
        assert [r.messages_sent for r in counted] == numbers, (self.said(), lines[-1])
        if wholes is not None:
            assert [r.sent for r in counted] == wholes, (self.said(), lines[-1])
        dot = run_graph_dot(self.at)
        for record, number in zip(counted, numbers, strict=True):
            drawn = re.search(rf'"ask {record.turn}\\n(\d+) messages? sent', dot)
            if drawn:  # the graph draws the latest turns; earlier ones fold into one node
                assert int(drawn.group(1)) == number, (self.said(), record.turn, drawn.group(0), number)
        heading = next((line for line in page_text(self.at).splitlines() if f"Turn {shown_turn} sent " in line), None)
        if counted and counted[-1].turn == shown_turn and heading is not None:
            said_sent = int(re.search(r"Turn \d+ sent (\d+) message", heading).group(1))
            assert said_sent == numbers[-1], (self.said(), heading, numbers[-1])
            whole = re.search(r"the whole array: (\d+)", heading)
            threaded = counted[-1].thread is not None  # a turn by hand, say, goes without the thread
            assert (whole is not None) == threaded, (self.said(), heading, lines[-1])
            if whole is not None:
                assert int(whole.group(1)) == counted[-1].sent == wholes[-1], (self.said(), heading, lines[-1])

    @invariant()
    def tool_use_ids_are_unique_in_the_branch(self) -> None:
        if self.at is None:
            return
        ids = Counter(b.get("id") for m in self.run_state.messages if isinstance(m.get("content"), list)
                      for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
        assert not [i for i, n in ids.items() if n > 1], (self.said(), ids)

    @invariant()
    def the_exported_script_replays_to_the_console_on_screen(self) -> None:
        if self.at is None or not self.run_state.records or self.ss["tab"] != "Run":
            return
        state = self.run_state
        if self.ss["sandbox"].turn_shown != state.turn:
            return
        try:
            script = parse_script_text(json.dumps(record_script(state).to_dict()), name="exported")
        except ScriptError:
            return  # a run with no reply to record: nothing to replay
        if not script.expected_output:
            return  # an edited tool result or a broken tool: the export says it cannot replay those
        # Replayed with the whole array each turn: threads change what each request carries, not the conversation.
        replayed = RunState(script.task, system=script.system, tool_names=script.tools, max_turns=script.max_turns,
                            max_tokens=state.max_tokens)
        model = FakeModel(script)
        for _ in state.records:
            step(replayed, model)
        # The marks (injected, edited, by hand) are the page's, not the run's output; a turn that printed nothing of
        # its own shows a bare "turn N:" line to hold its mark.
        on_screen = [line for line in (NOTE.sub("", line) for line in console(self.at)) if not BARE.match(line)]
        again = "\n".join(console_lines(replayed, returned=False, readable=True)).splitlines()  # as the page shows it
        assert again[:-1] == on_screen[:-1], (self.said(), on_screen)  # every call, result and ending alike
        assert [r.sent for r in replayed.records if r.counted] == [r.sent for r in state.records if r.counted], \
            (self.said(), on_screen)  # and the conversation as long at every turn

    def teardown(self) -> None:
        self.at = None


def sent_each_turn(line: str) -> tuple[list[int], list[int] | None]:
    """The console's last line read back: the messages each turn sent, and over a thread the whole array's."""
    said = line.removeprefix("messages sent each turn:").strip()
    if said.startswith("none yet"):
        return [], None
    sent, _, whole = said.partition(" over a message thread (the whole array each turn: ")
    return [int(n) for n in sent.split(", ")], [int(n) for n in whole.rstrip(")").split(", ")] if whole else None
