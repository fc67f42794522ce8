"""The sandbox page's whole state, as one object that knows nothing of Streamlit.

A `Sandbox` holds what a learner has on the page: the model and the script,
the settings the controls say, the run tree (each branch with its own place
in the script), the turn looked at, the view, and the actions taken since the
run started (what a link replays). Every learner action is one method; it
returns a `Notice` (what the page should say about it) or None. The page's
buttons, its keys, a link's replay and undo all go through these methods, so
a replayed action is the click itself.

Undo and redo: before each action that changes the work, the Sandbox keeps
what brings it back: for a run a script or the toy played, its settings and
the actions since it started (replayed, as a link is); for a real model's run
or a tree loaded from a file, the whole work pickled. Nothing an action drops
is out of reach.

Its parts are data with one job each (`sandbox_values`): the run's settings and tree, the `Predictions`, the
`UndoMarks` and the page's own `PageMemory` between reruns. Its methods are five layers, each a module read in
one sitting and each using only the fields and methods declared below it, so a type checker reads them all:
`sandbox_state.SandboxState` (the fields, starting a run, Undo), `sandbox_run.SandboxRun` (the controls'
actions, stepping), `sandbox_predict.Predicting`, `sandbox_past.ChangeThePast` and `sandbox_links.Links`.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.page.names import ModelKind
from agent.page.sandbox_links import Links
from agent.page.sandbox_values import MAX_TOKENS_ON_PAGE, MAX_TURNS_ON_PAGE, VIEWS, Notice, Settings

__all__ = ["MAX_TOKENS_ON_PAGE", "MAX_TURNS_ON_PAGE", "VIEWS", "ModelKind", "Notice", "Sandbox", "Settings"]


@dataclass
class Sandbox(Links):
    """One learner's sandbox page."""
