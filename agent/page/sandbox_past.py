"""The Sandbox's layer for Change the past: fork at a turn, edit a reply or a result, inject a fault, write a
reply by hand, load a tree. Built on `sandbox_predict.Predicting` (a turn taken here may ask its questions).
"""

from __future__ import annotations

import json
from typing import Any

from agent.branches import MAIN, BranchError, RunTree
from agent.loop import Model
from agent.models.fake import FakeModel
from agent.models.faults import Fault, fault_applied
from agent.models.hand_model import HandReplyError, tool_use_ids
from agent.page.names import ModelKind
from agent.page.sandbox_predict import Predicting
from agent.page.sandbox_values import (
    Notice,
    Settings,
    plural,
)
from agent.page.view import settings_of
from agent.untrusted import UntrustedInputError, parse_json


class ChangeThePast(Predicting):
    """The Sandbox's actions on a run's past."""

    # ------------------------------------------------------------ change the past

    def fork(self, turn: int) -> Notice | None:
        if not 0 <= turn <= self.run.turn:
            return Notice.warning(f"The run on screen has no turn {turn} to fork after.")

        def act() -> Notice | None:
            branch = self.tree.fork(turn)
            self._place_script()
            self.looked_at = None
            self.log.append(["fork", turn])
            k = branch.fork_turn  # the turn asked for, or the one before it when that one was refused
            return Notice.info(f"Forked {branch.name} from {branch.parent} after turn {k}. "
                               + (f"Edit turn {k} in the panel, or Step on." if k else "Step on."))
        return self._undoable(act)

    def _place_script(self) -> None:
        """The current branch's FakeModel: the run's script, at the reply after those its records show it played."""
        branch = self.tree.branch
        main = self.script_models[MAIN]
        self.script_models[branch.name] = FakeModel(main.script, mode=main.mode,
                                                    calls=branch.script_replies_used(branch.state.turn))

    def pick_branch(self, name: str) -> Notice | None:
        if name not in self.tree.branches:
            return Notice.warning(f"There is no branch “{name}”.")
        if name == self.tree.current:
            return None

        def act() -> Notice | None:
            self.tree.switch(name)
            self.looked_at = None
            self.log.append(["switch", name])
            return None
        return self._undoable(act)

    def edit_reply(self, stop_reason: str, blocks: list[dict[str, Any]]) -> Notice | None:
        def act() -> Notice | None:
            logged = json.loads(json.dumps(blocks))
            try:
                self.tree.edit_reply(stop_reason, blocks)
            except (ValueError, BranchError) as exc:  # HandReplyError is a ValueError
                return Notice.error(str(exc))
            self._place_script()
            self.looked_at = None
            self.log.append(["edit_reply", stop_reason, logged])
            return None
        return self._undoable(act)

    def edit_result(self, position: int, content: str, is_error: bool) -> Notice | None:
        def act() -> Notice | None:
            try:
                self.tree.edit_tool_result(position, content, is_error)
            except BranchError as exc:
                return Notice.error(str(exc))
            self.looked_at = None
            self.log.append(["edit_result", position, content, is_error])
            return None
        return self._undoable(act)

    def inject_fault(self, kind: str, tool: str = "", real: Model | None = None) -> Notice | None:
        if self.run.done:
            return Notice.info(f"The loop has finished ({self.run.result}): fork at an earlier turn to try a "
                               "fault there.")
        if (empty := self.empty_task()) is not None:
            return empty
        try:
            fault = Fault(kind, tool)
        except ValueError as exc:
            return Notice.error(str(exc))
        model = self.model_for_run(real)
        if model is None:
            return Notice.warning("There is no model to ask.")

        def act() -> Notice | None:
            records = self.tree.step(model, fault)
            self.looked_at = None
            self.log.append(["fault", kind, tool])
            self._ask_after_turn()
            if fault_applied(fault, records):
                return None
            if records[0].reply is None:
                return Notice.info(f"No reply came ({records[0].error}), so the fault had nothing to act on "
                                   "and was not applied. The turn failed on its own.")
            return Notice.info("That reply called no tool, so none could break. The turn went on as it was.")
        return self._undoable(act)

    def hand(self, stop_reason: str, blocks: list[dict[str, Any]]) -> Notice | None:
        """A reply written by hand goes into the loop as the model's next reply."""
        if (empty := self.empty_task()) is not None:
            return empty
        if self.run.done:
            return Notice.info(f"The loop has finished ({self.run.result}). Reset or fork to write another reply.")

        def act() -> Notice | None:
            logged = json.loads(json.dumps(blocks))
            try:
                self.hand_model.give(stop_reason, blocks, self.run.tool_names, taken=tool_use_ids(self.run.messages))
            except (HandReplyError, ValueError) as exc:
                return Notice.error(str(exc))
            self.tree.step(self.hand_model)
            self.looked_at = None
            self.log.append(["hand", stop_reason, logged])
            self._ask_after_turn()
            return None
        return self._undoable(act)

    def load_tree(self, data: bytes | str) -> Notice | None:
        """A run tree's JSON (the "Every branch" download), read as untrusted input like any upload."""
        try:
            raw = parse_json(data, source="the run tree", expect=dict)
            tree = RunTree.from_dict(raw)
            for branch in tree.branches.values():
                for record in branch.state.records:
                    if not isinstance(record.turn, int):
                        raise ValueError("a turn record's turn is not a number")
            tree.switch(tree.current)
            settings = settings_of(tree.branches[MAIN].state)
        except (UntrustedInputError, BranchError, ValueError, TypeError, KeyError, AttributeError) as exc:
            return Notice.error(f"The run tree could not be loaded: {exc}. The page is as it was.")

        def act() -> Notice | None:
            lost = self.work_words()
            self._fold_answers()
            self.tree = tree
            self.model = self.run_model = ModelKind.SCRIPT
            self.settings = Settings(settings["task"], settings["system"], settings["tool_names"],
                                     settings["max_turns"], settings["max_tokens"], settings["threads"])
            main = FakeModel(self.picked_script)
            self.script_models = {MAIN: main}
            for name, branch in tree.branches.items():
                self.script_models[name] = FakeModel(main.script, calls=branch.script_replies_used(branch.state.turn))
            self.looked_at = None
            self.log = []
            self.from_file = True
            said = f"Loaded {plural(len(tree.branches), 'branch')} from the file. A Step goes on with the " \
                   f"script “{self.picked_script.title}”."
            return Notice.info(said + (f" {lost[:1].upper()}{lost[1:]} went with the old run: Undo brings it "
                                       "back." if lost else ""))
        return self._undoable(act)
