"""The Sandbox's top layer: links (a link replays the actions since the run started, through the methods of
every layer below) and the actions the page's player took in the browser. `sandbox.Sandbox` is this layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from agent.page.links import Link
from agent.page.names import Layout, ModelKind
from agent.page.sandbox_past import ChangeThePast
from agent.page.sandbox_values import (
    MAX_TOKENS_ON_PAGE,
    MAX_TURNS_ON_PAGE,
    REFERENCE_SCRIPT,
    Notice,
    Settings,
)
from agent.page.view import settings_of

MAX_PLAYED = 2_000  # actions taken up from the browser at once: more than any learner takes between two clicks


class Links(ChangeThePast):
    """The Sandbox's links and what its player did."""

    # ------------------------------------------------------------ what the player did in the browser

    def take_played(self, played: str) -> str | None:
        """The actions the page's player took in the browser since the server's last word, taken here in order
        through the same methods: `s` Step, `e` Run to end, `r` Reset, `p<n>` an answer (each one undoable),
        `l<n>` a look back at turn n, `l` the latest, `u` Undo and `y` Redo (of those). The first that cannot be
        taken, in words."""
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
            elif kind == "u" and not rest:
                self.undo()
            elif kind == "y" and not rest:
                self.redo()
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
        self.history.undo, self.history.redo = [], []
        return problems

    def follow_link(self, link: Link) -> list[str]:
        """The browser went Back or Forward to `link`'s address: this session shows that screen, and Undo comes
        back to the one it showed before (the scripts loaded stay)."""
        problems: list[str] = []
        self._undoable(lambda: problems.extend(self._open_quietly(link)))
        return problems

    def _open_quietly(self, link: Link) -> list[str]:
        self.history.replaying = True  # the link's actions are one action here, not one each
        try:
            return self._open(link)
        finally:
            self.history.replaying = False

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
