"""What brings a screen back: Undo and Redo, and links (a link replays the actions since the run started).

Methods of `agent.page.sandbox.Sandbox`, kept apart so each part reads in one sitting; they use its fields.
"""

from __future__ import annotations

import copy
import io
import json
import pickle
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from agent.branches import MAIN
from agent.page.links import Link
from agent.page.names import Layout, ModelKind
from agent.page.sandbox_values import (
    MAX_TOKENS_ON_PAGE,
    MAX_TURNS_ON_PAGE,
    MAX_UNDO,
    REFERENCE_SCRIPT,
    WORK,
    Notice,
    Settings,
)
from agent.page.view import settings_of

MAX_PLAYED = 2_000  # actions taken up from the browser at once: more than any learner takes between two clicks


class History:
    """The Sandbox's undo, redo and links."""

    # ------------------------------------------------------------ undo, redo

    def _mark(self) -> dict[str, Any]:
        """What Undo needs to come back here: cheap for a run a script or the toy can replay (its settings and
        the actions since it started), the whole work pickled for one it cannot (a real model's, a loaded tree)."""
        if self.run_model == ModelKind.REAL or self.from_file:
            return {"pickled": self._snapshot()}
        assert self.tree is not None
        return {"controls": copy.deepcopy(self.settings), "model": self.model, "script": self.script,
                "run_model": self.run_model, "run": settings_of(self.tree.branches[MAIN].state),
                "log": json.loads(json.dumps(self.log)), "looked_at": self.looked_at, "past_score": self.past_score}

    def _back_to(self, mark: dict[str, Any]) -> None:
        if "pickled" in mark:
            self._restore(mark["pickled"])
            return
        run = mark["run"]
        self.model, self.script = mark["run_model"], mark["script"]
        self.settings = Settings(run["task"], run["system"], run["tool_names"], run["max_turns"], run["max_tokens"],
                                 run["threads"])
        self._start_run()
        self._replaying = True
        try:
            problem = self.replay(mark["log"])
        finally:
            self._replaying = False
        assert problem is None, problem  # a run a script or the toy played replays to the same place
        self.model, self.settings, self.looked_at = mark["model"], mark["controls"], mark["looked_at"]
        self.past_score = mark["past_score"]

    def _fingerprint(self) -> tuple:
        assert self.tree is not None
        return (len(self.log), self.log[-1:], json.dumps(self.settings.of_run()), self.model, self.script,
                self.run_model, id(self.tree), self.tree.current, len(self.tree.branches), self.from_file)

    def _snapshot(self) -> bytes:
        shared = {id(script): script for script in self.scripts.values()}
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.persistent_id = lambda obj: id(obj) if id(obj) in shared and obj is shared[id(obj)] else None
        pickler.dump({name: getattr(self, name) for name in WORK})
        return buffer.getvalue()

    def _restore(self, data: bytes) -> None:
        shared = {id(script): script for script in self.scripts.values()}
        unpickler = pickle.Unpickler(io.BytesIO(data))
        unpickler.persistent_load = shared.__getitem__
        for name, value in unpickler.load().items():
            setattr(self, name, value)

    def _undoable(self, action: Callable[[], Notice | None]) -> Notice | None:
        """Take `action`, keeping what was before it for Undo; an action that changed nothing keeps nothing."""
        if self._replaying:
            return action()
        before, seen = self._mark(), self._fingerprint()
        notice = action()
        if self._fingerprint() != seen:
            self.undo_stack = [*self.undo_stack[-(MAX_UNDO - 1):], before]
            self.redo_stack = []
        return notice

    def undo(self) -> Notice | None:
        if not self.undo_stack:
            return Notice.info("Nothing to undo.")
        self.redo_stack.append(self._mark())
        self._back_to(self.undo_stack.pop())
        return None

    def redo(self) -> Notice | None:
        if not self.redo_stack:
            return Notice.info("Nothing to redo.")
        self.undo_stack.append(self._mark())
        self._back_to(self.redo_stack.pop())
        return None


    # ------------------------------------------------------------ what the player did in the browser

    def take_played(self, played: str) -> str | None:
        """The actions the page's player took in the browser since the server's last word, taken here in order
        through the same methods (each one undoable): `s` Step, `e` Run to end, `r` Reset, `p<n>` an answer,
        `l<n>` a look back at turn n, `l` the latest. The first that cannot be taken, in words."""
        words = [word for word in played.split(".") if word][:MAX_PLAYED]
        for number, word in enumerate(words, 1):
            kind, rest = word[:1], word[1:]
            if kind == "s" and not rest:
                self.step()
            elif kind == "e" and not rest:
                self.step(to_the_end=True)
            elif kind == "r" and not rest:
                self.reset()
            elif kind == "p" and rest.isdigit():
                self.predict(int(rest))
            elif kind == "l" and (not rest or rest.isdigit()):
                self.look_at(int(rest) if rest else self.run.turn)
            else:
                return f"the browser's action {number} of {len(words)} ({word[:20]!r}) is not one the page knows"
        return None

    # ------------------------------------------------------------ links

    def replay(self, actions: list[list[Any]]) -> str | None:
        """Take a link's actions in order through the methods above; the first that cannot be, in words."""
        do: dict[str, Callable[..., Notice | None]] = {
            "step": lambda: self.step(), "run": lambda: self.step(to_the_end=True), "fork": self.fork,
            "switch": self.pick_branch, "edit_reply": self.edit_reply, "edit_result": self.edit_result,
            "fault": lambda kind, tool: self.inject_fault(kind, tool), "hand": self.hand, "ask": self.ask,
            "predict": self.predict}
        for number, (name, *args) in enumerate(actions, 1):
            before = len(self.log)
            notice = do[name](*args)
            if len(self.log) == before:  # not taken
                why = notice.text.rstrip(".") if notice else "it changed nothing"
                return (f"the link's actions were replayed up to action {number - 1} of {len(actions)}: action "
                        f"{number} ({name.replace('_', ' ')}) could not be taken ({why})")
        return None

    def fresh_settings(self, model: str, script_name: str | None) -> dict[str, Any]:
        """The settings a fresh page has for `model` (and, for a script, `script_name`): what a link leaves out."""
        script = self.scripts.get(script_name or "") if model == ModelKind.SCRIPT else None
        script = script or self.scripts[REFERENCE_SCRIPT]
        return asdict(Settings.of_script(script, model))

    def link(self) -> Link:
        """The screen as a link: the run's model, script and settings, what was done to it, the turn and the view."""
        fresh = self.fresh_settings(self.run_model, self.script)
        settings = settings_of(self.run)
        settings["tools"] = settings.pop("tool_names")
        task = settings.pop("task")
        scripted = self.run_model == ModelKind.SCRIPT
        replays = self.run_model != ModelKind.REAL and not self.from_file
        # Without the actions the link opens a fresh run: a turn looked at would name one it does not have.
        return Link(model=self.run_model.value, script=self.script if scripted else None,
                    task=task if task != fresh["task"] else None,
                    settings={name: value for name, value in settings.items() if value != fresh[name]},
                    actions=list(self.log) if replays else [], turn=self.looked_at if replays else None,
                    view=self.view, layout=self.layout, predicting=self.predicting)

    def link_notes(self, link: Link) -> list[str]:
        """What the link of this screen cannot hold, in words."""
        notes = []
        if link.script and link.script not in self.builtin:
            notes.append("The script was loaded from a file: a link names built-in scripts only, so it opens on the "
                         "reference script.")
        if self.from_file:
            notes.append("The run tree was loaded from a file: a link holds what was done on this page, so it opens "
                         "the run afresh. Share the file itself (Every branch, JSON) to share the tree.")
        if link.model == ModelKind.REAL:
            notes.append("A link never calls a real model: it brings back the settings, and the run starts afresh.")
            if self.base_url.strip():  # a link that set it could send the key of whoever opens it elsewhere
                notes.append(f"The Base URL ({self.base_url.strip()}) is left out: a link never says where a real "
                             "model's requests go, so whoever opens it sends them to Anthropic's API unless they "
                             "set a Base URL.")
        return notes

    def open_link(self, link: Link) -> list[str]:
        """A first visit on a link: the page as `link` says, its actions replayed (never to a real model); the
        problems, in words. The replay is where the page starts: nothing of it to undo."""
        problems = self._open_quietly(link)
        self.undo_stack, self.redo_stack = [], []
        return problems

    def follow_link(self, link: Link) -> list[str]:
        """The browser went Back or Forward to `link`'s address: this session shows that screen, and Undo comes
        back to the one it showed before (the scripts loaded stay)."""
        problems: list[str] = []
        self._undoable(lambda: problems.extend(self._open_quietly(link)))
        return problems

    def _open_quietly(self, link: Link) -> list[str]:
        self._replaying = True  # the link's actions are one action here, not one each
        try:
            return self._open(link)
        finally:
            self._replaying = False

    def _open(self, link: Link) -> list[str]:
        problems = list(link.problems)
        self.model = ModelKind(link.model)
        self.script = link.script or REFERENCE_SCRIPT
        self.settings = Settings()  # a link holds what differs from a fresh page: the rest is a fresh page's
        self.put_script_in_settings()
        if link.task is not None:
            self.settings.task = link.task
        for name, value in link.settings.items():
            if name == "max_turns" and value > MAX_TURNS_ON_PAGE:
                problems.append(f"the turn limit {value:,} is above the page's {MAX_TURNS_ON_PAGE}, which is used")
                value = MAX_TURNS_ON_PAGE
            if name == "max_tokens" and value > MAX_TOKENS_ON_PAGE:
                problems.append(f"max_tokens {value:,} is above the page's {MAX_TOKENS_ON_PAGE:,}, which is used")
                value = MAX_TOKENS_ON_PAGE
            setattr(self.settings, name, value)
        self._start_run()
        if link.model != ModelKind.REAL and (problem := self.replay(link.actions)):  # a link never calls one
            problems.append(problem)
        if link.turn is not None:
            if link.turn <= self.run.turn:
                self.look_at(link.turn)
            else:
                problems.append(f"the run has no turn {link.turn} (it stops at turn {self.run.turn}), so the latest "
                                "is shown")
        self.view = link.view
        self.layout = Layout(link.layout)
        self.predicting = (self.layout == Layout.START) if link.predicting is None else link.predicting
        return problems
