"""A run's frames and the player, as HTML that needs nothing else: a web page of its own, or a notebook's output.

The player's JavaScript and CSS, Graphviz compiled to WebAssembly and the frames all go inline, so the page opens
from `file://`, from any static host or inside someone else's `<iframe>`, and makes no request to any network.
`play` is the notebook's door: what it returns shows the player through IPython's rich display.
"""

from __future__ import annotations

import functools
import html
import itertools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from agent.branches import MarkKind
from agent.page.frames import Frames, frames_of, playable
from agent.page.html_cards import CARDS_CSS
from agent.page.names import ModelKind
from agent.page.sandbox import Sandbox
from agent.page.view import builtin_scripts
from agent.real import record_script
from agent.scripts import Script, ScriptError, load_script
from agent.tools import TOOLS

PLAYER_FILES = ("player.js", "player.css", "viz-global.js")
_ids = itertools.count(1)


@functools.cache
def player_file(name: str) -> str:
    """One of the player's files, as shipped in the package."""
    if name not in PLAYER_FILES:
        raise ValueError(f"the player has no file {name!r}")
    return resources.files("agent.page").joinpath("player", name).read_text(encoding="utf-8")


def _script_text(text: str) -> str:
    """Text that goes inside a <script> element as it is: `</script` cannot end it early."""
    return text.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")


def player_fragment(frames: Frames) -> str:
    """The player mounted on `frames`, as one HTML fragment (a notebook's output, the body of a page)."""
    number = next(_ids)
    root, data = f"loop-sandbox-player-{number}", f"loop-sandbox-frames-{number}"
    mount = (f"{player_file('player.js')}\n"
             f"mount(document.getElementById({json.dumps(root)}), "
             f"JSON.parse(document.getElementById({json.dumps(data)}).textContent));\n")
    return (f"<style>{CARDS_CSS}\n{player_file('player.css')}</style>\n"
            f'<div id="{root}" class="lsp"><p>Loading the run…</p></div>\n'
            f'<script type="application/json" id="{data}">{frames.to_json()}</script>\n'
            # Viz once a page: a notebook with several runs lays them out with the first one's.
            f"<script>if (typeof Viz === 'undefined') {{\n{_script_text(player_file('viz-global.js'))}\n}}</script>\n"
            f'<script type="module">{_script_text(mount)}</script>\n')


def run_page(frames: Frames) -> str:
    """A whole web page that plays `frames`: one file, every byte of it inline."""
    title = html.escape(f"{frames.title} · Loop Sandbox")
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            # Nothing leaves the page: everything it needs is inline, and the policy says so to the browser.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline' "
            "'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:\">\n"
            f"<title>{title}</title>\n</head>\n<body style=\"margin: 12px;\">\n"
            f"{player_fragment(frames)}</body>\n</html>\n")


def sandbox_for(script: str | Path | Script = "add_then_answer", task: str | None = None, predict: bool = False,
                max_turns: int | None = None) -> Sandbox:
    """A Sandbox on a built-in script, a script file or a Script, or the toy (`script="toy"`, with `task`)."""
    builtin = builtin_scripts()
    box = Sandbox(builtin=builtin)
    if str(script) == "toy":
        if not task:
            raise ScriptError("the toy model answers a typed task: give one with --task")
        box.pick_model(ModelKind.TOY)
    elif str(script) in builtin:
        box.pick_script(str(script))
    else:
        # A ScriptError in words when it is not a script.
        loaded = script if isinstance(script, Script) else load_script(script)
        box.uploaded[loaded.name] = loaded
        box.pick_script(loaded.name)
    if task is not None:
        box.settings.task = task
    if max_turns is not None:
        box.settings.max_turns = max_turns
    if box.model == ModelKind.TOY:
        box.settings.tools = list(TOOLS)
    box.start_afresh()
    box.predicting = predict
    return box


def frames_to_export(box: Sandbox) -> tuple[Frames, str | None]:
    """The run on screen as frames for a web page of its own, and what the page cannot show of it, in words.

    A run the player can step again (a script's, the toy's) is stepped again; any other (a real model's, one with
    forks, edits or faults) is played from the script of its replies, as its download replays it: what happened."""
    if playable(box) is None:
        return frames_of(box), None
    run = box.run
    source = box.picked_script.title if box.run_model == ModelKind.SCRIPT else f"The {box.run_model.value} model"
    script = record_script(run, name="this-run", title=f"{source}: the run as it happened")
    replay = sandbox_for(script, run.task, box.predicting, run.max_turns)
    replay.settings.tools, replay.settings.system = list(run.tool_names), run.system
    replay.settings.max_tokens = run.max_tokens
    replay.start_afresh()
    replay.predicting = box.predicting
    marks = box.tree.branch.marks.values()
    caveat = ("Its tools run again as the page exported it: a tool result edited or broken on purpose shows as the "
              "tool gives it.") if any(m.kind in (MarkKind.EDITED, MarkKind.INJECTED) for m in marks) else None
    return frames_of(replay), caveat


@dataclass(frozen=True)
class Played:
    """A run for a notebook: shown as the player (IPython's rich display), its frames at hand as data."""

    frames: Frames

    def _repr_html_(self) -> str:
        return player_fragment(self.frames)

    def save(self, path: str | Path) -> Path:
        """The run as a web page of its own, written to `path`."""
        target = Path(path)
        target.write_text(run_page(self.frames), encoding="utf-8")
        return target


def play(script: str | Path = "add_then_answer", task: str | None = None, predict: bool = False,
         max_turns: int | None = None) -> Played:
    """Step a run in a notebook: a built-in script's name, a script file, or `"toy"` with a task."""
    return Played(frames_of(sandbox_for(script, task, predict, max_turns)))
