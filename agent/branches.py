"""Change the past: a run tree, as a list of runs that share a prefix.

`RunTree` starts with one branch, `main`. `fork` starts a new branch from the
state after turn k of the current one: it copies turns 1..k as data, so no
request is sent again for them, and stepping on sends only the turns after k.
Before stepping on, the branch's turn k may be edited (`edit_reply`,
`edit_tool_result`); an edited reply goes through `agent.loop.step` as a reply
given by hand, so the loop runs its tool calls, and the next request meets
the same checks as any other (a bad edit is refused in the API's words).

Each branch keeps a few marks beside its records: a turn whose fault was
injected (`agent.models.faults`), a turn edited at the fork, a reply written by hand.
The whole tree is plain data that writes to JSON and reads back; `agent.branch_compare` sets two of its
branches side by side.

Where a FakeModel script goes on from is read off a branch's records, not
counted as it goes: each record of a script's reply holds its number
(`TurnRecord.script_reply`), and an edit keeps the number of the reply it
changes, so the branch's latest numbered reply and the script's error entries
after it (failures with a status) say exactly how far the script got, whatever
was injected, edited or written by hand in between.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from agent.loop import Model, RunState, TurnPath, TurnRecord, step
from agent.models.faults import FAILS_BEFORE_ASKING, Fault, fault_applied, step_with_fault
from agent.models.hand_model import HandModel, tool_use_ids

MAIN = "main"
EDITED_THREAD = "turn {turn} was edited, so the thread's copy of the conversation is not this one"


class BranchError(ValueError):
    """A change the tree cannot make; `str()` says why, in one line."""


class MarkKind(StrEnum):
    """What a person did to a record; the value is what a run tree's JSON holds."""

    INJECTED = "injected"
    """A fault injected (`agent.models.faults`)."""
    EDITED = "edited"
    """Changed at the fork."""
    HAND = "hand"
    """A reply written by the person."""


@dataclass
class Mark:
    """Something a person did to one record of a branch."""

    kind: MarkKind
    words: str
    """What was done, in a few words: shown in the graph and the console."""
    fault: str = ""
    """For `injected`: the fault's kind (`agent.models.faults.FAULTS`)."""

    def __post_init__(self) -> None:
        self.kind = MarkKind(self.kind)  # a tree read back from JSON holds the word


@dataclass
class Branch:
    """One run of the tree; its turns 1..`shared` are its parent's, as they were."""

    name: str
    """`main`, or `branch 1`, `branch 2`, ..."""
    state: RunState
    """The branch's whole run, the shared turns included."""
    parent: str | None = None
    """The branch it was forked from; None for `main`."""
    fork_turn: int = 0
    """The turn whose state it was forked from."""
    shared: int = 0
    """Turns it shares unchanged with its parent: `fork_turn`, or one less once turn `fork_turn` is edited."""
    marks: dict[int, Mark] = field(default_factory=dict)
    """Marks by index into `state.records`."""

    @property
    def stepped_on(self) -> bool:
        """Whether the branch has taken a turn (or an attempt) of its own after the fork."""
        return len(self.state.records) > len(prefix_records(self.state, self.fork_turn))

    def _index(self, record: TurnRecord) -> int | None:
        # By identity: two attempts can hold equal data (two identical 529s) and still be two records.
        return next((i for i, candidate in enumerate(self.state.records) if candidate is record), None)

    def editable_record(self) -> TurnRecord | None:
        """The fork's own turn, while it may still be edited: forked after a turn and not stepped on since."""
        if self.parent is None or self.fork_turn == 0 or self.stepped_on:
            return None
        return self._fork_record()

    def _fork_record(self) -> TurnRecord:
        return next(r for r in self.state.records if r.turn == self.fork_turn and r.counted)

    def mark(self, record: TurnRecord, kind: MarkKind, words: str, fault: str = "") -> None:
        """Mark one of this branch's records."""
        index = self._index(record)
        if index is None:
            raise BranchError(f"turn {record.turn}'s record is not one of {self.name}'s")
        self.marks[index] = Mark(kind, words, fault)

    def mark_of(self, record: TurnRecord) -> Mark | None:
        """The mark of a record of this branch, if it has one."""
        index = self._index(record)
        return None if index is None else self.marks.get(index)

    def script_replies_used(self, turn: int) -> int:
        """How many replies a FakeModel script had played when turn `turn` was done: where it continues from.

        Read off the records: a numbered reply of the script says how far it had got (an injected cut-off,
        refusal or broken tool changes the reply, not its number; an edit keeps it), and each error entry of
        the script after it is one more. A reply written by hand, a refused request, a script that ran out and
        an injected 529 or timeout (they fail before the model is asked) took none.
        """
        used = 0
        for index, record in enumerate(prefix_records(self.state, turn)):
            if record.script_reply is not None:
                used = record.script_reply
            elif record.path == TurnPath.MODEL_ERROR and record.status is not None:  # a script's error entry
                mark = self.marks.get(index)
                if mark is None or mark.kind != MarkKind.INJECTED or mark.fault not in FAILS_BEFORE_ASKING:
                    used += 1
        return used


def prefix_records(state: RunState, turn: int) -> list[TurnRecord]:
    """The records of turns 1..`turn`, failed attempts at them included."""
    return [r for r in state.records if r.turn <= turn]


def prefix(state: RunState, turn: int) -> RunState:
    """A new run holding `state` as it stood right after `turn` (a deep copy: the two never share an object)."""
    if not 0 <= turn <= state.turn:
        raise BranchError(f"there is no turn {turn} to fork from: the run has {state.turn} turn(s)")
    records = prefix_records(state, turn)
    if records and records[-1].path == TurnPath.BAD_REQUEST:
        # A refused request is counted as a turn but added nothing: the state after it is the state after the
        # turn before (its failed attempts, a 529 say, went with it: the turn is to be taken again).
        return prefix(state, turn - 1)
    ended_here = state.done and turn == state.turn  # the run's ending is the fork's, when it forks at the end
    return RunState(state.task, system=state.system, tool_names=list(state.tool_names), max_turns=state.max_turns,
                    max_tokens=state.max_tokens, threads=state.threads,
                    messages=copy.deepcopy(state.messages_after(turn)), records=copy.deepcopy(records),
                    result=state.result if ended_here else None)


@dataclass
class RunTree:
    """Runs that share a prefix: `main` and its branches, and the one on screen."""

    branches: dict[str, Branch]
    """Every branch by name, in the order they were made."""
    current: str = MAIN
    """The branch that Step carries on."""

    @classmethod
    def start(cls, state: RunState) -> RunTree:
        """A tree of one branch, `main`, holding `state` (the very object: stepping it steps the tree)."""
        return cls({MAIN: Branch(MAIN, state)})

    @property
    def branch(self) -> Branch:
        """The current branch."""
        return self.branches[self.current]

    def switch(self, name: str) -> Branch:
        if name not in self.branches:
            raise BranchError(f"no branch {name!r} (the branches: {', '.join(self.branches)})")
        self.current = name
        return self.branch

    def fork(self, turn: int) -> Branch:
        """A new branch from the state after `turn` of the current branch; it becomes the current one."""
        parent = self.branch
        name = f"branch {sum(1 for b in self.branches if b != MAIN) + 1}"
        while name in self.branches:
            name += "'"
        state = prefix(parent.state, turn)
        turn = state.turn  # after a refused request: the turn before it
        marks = {i: copy.deepcopy(m) for i, m in parent.marks.items() if i < len(state.records)}
        state.new_thread = _thread_behind(state, marks)
        self.branches[name] = Branch(name, state, parent=parent.name, fork_turn=turn, shared=turn, marks=marks)
        self.current = name
        return self.branch

    def step(self, model: Model, fault: Fault | None = None) -> list[TurnRecord]:
        """One Step of the current branch through `agent.loop.step`, with `fault` injected if one is given."""
        branch = self.branch
        if fault is None:
            records = [step(branch.state, model)]
        else:
            records = step_with_fault(branch.state, model, fault)
            if fault_applied(fault, records):  # a fault that met no reply (or no call) did not happen
                branch.mark(records[0], MarkKind.INJECTED, fault.words(records[0].reply), fault.kind)
        if isinstance(model, HandModel) and records[-1].reply is not None:
            branch.mark(records[-1], MarkKind.HAND, "written by hand")
        return records

    # ------------------------------------------------------------ edits at the fork, before stepping on

    def _editable(self) -> tuple[Branch, TurnRecord]:
        """The current branch and its fork's own turn, or the reason they cannot be edited."""
        branch = self.branch
        if branch.parent is None:
            raise BranchError("main is the run as it happened: fork it first, then edit the branch")
        if branch.stepped_on:
            raise BranchError(f"{branch.name} has stepped on since the fork: only the fork's own turn can be "
                              "edited, so fork again")
        if branch.fork_turn == 0:
            raise BranchError("a fork before the first turn has no reply to edit: step it, or be the model")
        return branch, branch._fork_record()

    def edit_reply(self, stop_reason: str, blocks: list[dict[str, Any]]) -> TurnRecord:
        """Give turn `fork_turn` of the current branch another reply, and let the loop handle it again.

        Blocks are as `agent.models.hand_model.reply_from_form` takes them; a tool_use keeps its id if it has one.
        Input is not checked against the schema: a bad input is the tool's error result, as with any model.
        """
        branch, old = self._editable()
        turn = branch.fork_turn
        state = prefix(branch.state, turn - 1)
        # The turn's failed attempts before its reply (a 529, say) happened all the same: the edit keeps them.
        state.records += copy.deepcopy([r for r in branch.state.records if r.turn == turn and not r.counted])
        hand = HandModel()
        hand.give(stop_reason, blocks, branch.state.tool_names, check_inputs=False,
                  taken=tool_use_ids(state.messages))
        record = step(state, hand)
        record.script_reply = old.script_reply  # the reply it changes, changed: a script goes on after it
        if record.reply is not None and old.reply is not None and "id" in old.reply:
            record.reply["id"] = old.reply["id"]
        words = _reply_change(old.reply or {}, record.reply or {})
        if (old.reply or {}).get("content") == (record.reply or {}).get("content") and \
                (old.reply or {}).get("stop_reason") == (record.reply or {}).get("stop_reason"):
            raise BranchError(f"the reply is as turn {turn} had it: there is nothing to apply")
        # The branch keeps its RunState object (a page holds on to it), with the edited turn's data in it; the
        # records keep their places, so the marks do too (the edited turn's own is replaced below).
        branch.state.messages, branch.state.records, branch.state.result = state.messages, state.records, state.result
        branch.state.new_thread = EDITED_THREAD.format(turn=turn)
        branch.shared = turn - 1
        branch.mark(record, MarkKind.EDITED, f"reply edited: {words}")
        return record

    def edit_tool_result(self, position: int, content: str, is_error: bool) -> TurnRecord:
        """Change the result of call `position` (from 0) of turn `fork_turn` of the current branch."""
        branch, record = self._editable()
        if record.path not in (TurnPath.TOOL_USE, TurnPath.LIMIT) or not 0 <= position < len(record.tool_runs):
            raise BranchError(f"turn {branch.fork_turn} has no tool call {position + 1} whose result could change")
        if not isinstance(content, str):
            raise BranchError("a tool result's content here is text")
        run = record.tool_runs[position]
        if run.content == content and run.is_error == bool(is_error):
            raise BranchError(f"the result of {run.name} is as it was: there is nothing to change")
        run.content, run.is_error = content, bool(is_error)
        results = branch.state.messages[record.sent + 1]["content"]
        results[position] = run.result_block()
        branch.shared = branch.fork_turn - 1
        branch.state.new_thread = EDITED_THREAD.format(turn=branch.fork_turn)
        previous = branch.mark_of(record)
        said = f"result of {run.name} edited" + (" (an error)" if is_error else "")
        branch.mark(record, MarkKind.EDITED, f"{previous.words}; {said}" if previous else said)
        return record

    # ------------------------------------------------------------ plain data

    def to_dict(self) -> dict[str, Any]:
        return {"current": self.current, "branches": [
            {"name": b.name, "parent": b.parent, "fork_turn": b.fork_turn, "shared": b.shared,
             "marks": {str(i): asdict(m) for i, m in sorted(b.marks.items())}, "state": b.state.to_dict()}
            for b in self.branches.values()]}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunTree:
        branches = {}
        for b in data["branches"]:
            marks = {int(i): Mark(**m) for i, m in b.get("marks", {}).items()}
            branches[b["name"]] = Branch(b["name"], RunState.from_dict(b["state"]), parent=b.get("parent"),
                                         fork_turn=b.get("fork_turn", 0), shared=b.get("shared", 0), marks=marks)
        return cls(branches, current=data.get("current", MAIN))

    @classmethod
    def from_json(cls, text: str) -> RunTree:
        return cls.from_dict(json.loads(text))


def _thread_behind(state: RunState, marks: dict[int, Mark]) -> str | None:
    """Why a fork's next request cannot continue its thread: a turn edited after the thread was last created."""
    created = max((i for i, r in enumerate(state.records) if (r.thread or {}).get("type") == "create"), default=-1)
    edited = [i for i, mark in marks.items() if mark.kind == MarkKind.EDITED and i >= created]
    return EDITED_THREAD.format(turn=state.records[edited[-1]].turn) if edited else None


def _reply_change(old: dict[str, Any], new: dict[str, Any]) -> str:
    """What an edit changed in a reply, in a few words."""
    if not old:  # the turn got no reply (the script had none left): the edit gives it one
        calls = sum(b.get("type") == "tool_use" for b in new.get("content", []))
        return (f"a reply where none came ({new.get('stop_reason')}"
                + (f", {calls} tool call{'s' if calls != 1 else ''})" if calls else ")"))
    said = []
    if old.get("stop_reason") != new.get("stop_reason"):
        said.append(f"stop_reason {old.get('stop_reason')} → {new.get('stop_reason')}")
    calls = [b for b in new.get("content", []) if b.get("type") == "tool_use"]
    old_calls = [b for b in old.get("content", []) if b.get("type") == "tool_use"]
    if calls != old_calls:
        said.append(f"{len(calls)} tool call{'s' if len(calls) != 1 else ''}" if len(calls) != len(old_calls)
                    else "tool calls changed")
    for kind in ("text", "thinking"):
        if [b for b in new.get("content", []) if b.get("type") == kind] != \
                [b for b in old.get("content", []) if b.get("type") == kind]:
            said.append(f"{kind} changed")
    return ", ".join(said) or "blocks in another order"
