"""Links into any state of the sandbox: what a page shows, as a URL's query, and back.

A lesson's text can say "now look at turn 3 of the runaway" with a link that opens exactly that. The page
writes its state into the URL as the learner moves (`views/sandbox.py`), and a page opened on such a URL
replays it: the model, the script or the task, the settings that differ from the script's, the learner's
actions since the run started (Step, Run to end, fork, edits, faults, replies written by hand), the turn
looked at and the view. A script and the toy answer the same way every time, so replaying the actions lands
on the same screen; a real model is never called from a link (its settings come back, its run does not).

Streamlit-free and strict: a link is a stranger's text. Every part is checked; one that cannot be used is
left out and said in words (`Link.problems`), never a crash. The actions travel as JSON, compressed
(zlib, then URL-safe base64), at most `MAX_ACTIONS` of them.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent.page.names import Layout, ModelKind, View
from agent.untrusted import UntrustedInputError, parse_json

MODELS = {kind.word: kind.value for kind in ModelKind}  # the URL's word -> the page's Model switch value
VIEWS = {view.word: view.value for view in View}
LAYOUTS = {layout.word: layout.value for layout in Layout}
MAX_ACTIONS = 400
MAX_QUERY_CHARS = 60_000  # a browser keeps far longer URLs; a link this long is not one a lesson would hold
MAX_TEXT_CHARS = 4_000  # a task, a system prompt, an edited text: longer is not a link's business
ACTIONS: dict[str, tuple[type, ...]] = {
    # an action's name -> the types of its arguments, in order
    "step": (),
    "run": (),
    "fork": (int,),  # after turn k of the branch on screen
    "switch": (str,),  # to a branch, by name
    "edit_reply": (str, list),  # stop_reason, the blocks (JSON objects) as the edit form gives them
    "edit_result": (int, str, bool),  # call position, content, is_error
    "fault": (str, str),  # kind, tool ("" for every tool)
    "hand": (str, list),  # stop_reason, the blocks (JSON objects) as the hand form gives them
    "ask": (),  # the turn just taken asks what the loop does next (Predict, then Step)
    "predict": (int,),  # the answer to the open question: the choice's index
}
SETTINGS = {"tools": list, "max_turns": int, "max_tokens": int, "system": str, "threads": bool}

# The Copy link dialog's words, for the page's own dialog (views/page_link.py) and the player's alike.
COPY_LINK_TITLE = "A link to this screen"
COPY_LINK_HELP = "A link that opens this screen: the run replayed to this turn."
EMBED_SAYS = ("To put the page inside another site (a lesson, a course page), add `&embed=true` to the link and use "
              "it as an `<iframe>`'s `src`.")


def copy_link_says(layout: Layout) -> str:
    """What the dialog says a link replays: what can be done on `layout` (Start here has no settings, no forks
    and no views)."""
    held = ("the scenario or the task, every Step and answer, and the turn looked at" if layout == Layout.START
            else "the script or the task, the settings, every Step, fork, edit, fault and answer, the turn looked "
                 "at and the view")
    return f"Opened in any browser, this link replays the run to this screen: {held}."


@dataclass
class Link:
    """One screen of the sandbox, as a link holds it."""

    model: str = "Script"
    """The Model switch: `Script`, `Toy` or `Real`."""
    script: str | None = None
    """The built-in script's name, for `Script`."""
    task: str | None = None
    """The task, when it is not the script's own (always, for the toy)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Settings that differ from the script's: `tools`, `max_turns`, `max_tokens`, `system`, `threads`."""
    actions: list[list[Any]] = field(default_factory=list)
    """What the learner did since the run started, each `[name, *arguments]` (see ACTIONS)."""
    turn: int | None = None
    """The turn looked back at; None for the latest."""
    view: str = "Run"
    """The view picked: Run, The loop, Messages, Export."""
    layout: str = Layout.ALL
    """Start here or All controls: a link without the word is All controls (links made before Start here)."""
    predicting: bool | None = None
    """Predict, then Step; None: the layout's own default (on in Start here, off in All controls)."""
    problems: list[str] = field(default_factory=list)
    """Parts of the link that could not be used, in words (they were left out)."""


def to_query(link: Link) -> dict[str, str]:
    """The URL query that opens `link`: short words, and only what differs from a fresh page."""
    query = {"model": next(word for word, value in MODELS.items() if value == link.model)}
    if link.script and link.model == "Script":
        query["script"] = link.script
    if link.task is not None:
        query["task"] = link.task
    for name, value in link.settings.items():
        query[name] = ",".join(value) if name == "tools" else str(value).lower() if name == "threads" else str(value)
    if link.actions:
        packed = zlib.compress(json.dumps(link.actions, separators=(",", ":")).encode(), 9)
        query["actions"] = base64.urlsafe_b64encode(packed).decode().rstrip("=")
    if link.turn is not None:
        query["turn"] = str(link.turn)
    if link.view != "Run":
        query["view"] = next(word for word, value in VIEWS.items() if value == link.view)
    if link.layout == Layout.START:
        query["controls"] = Layout.START.word
    if link.predicting is not None and link.predicting != (link.layout == Layout.START):
        query["predict"] = "on" if link.predicting else "off"
    return query


def from_query(query: Mapping[str, Any], scripts: list[str], tools: list[str]) -> Link:
    """The screen a URL's query names; `scripts` and `tools` are the names that exist. Never raises."""
    link = Link()
    params = {key: _last(value) for key, value in query.items()}
    if sum(len(k) + len(v) for k, v in params.items()) > MAX_QUERY_CHARS:
        link.problems.append(f"the link is longer than {MAX_QUERY_CHARS:,} characters, so none of it was used")
        return link
    model = params.pop("model", "script")
    if model in MODELS:
        link.model = MODELS[model]
    else:
        link.problems.append(f"the model “{model}” is not one of {', '.join(MODELS)}")
    script = params.pop("script", None)
    if script is not None:
        if script in scripts:
            link.script = script
        else:
            link.problems.append(f"there is no built-in script “{script}”")
    if "task" in params:
        link.task = _text(params.pop("task"), "task", link.problems)
    for name, kind in SETTINGS.items():
        if name in params:
            value = _setting(name, kind, params.pop(name), tools, link.problems)
            if value is not None:
                link.settings[name] = value
    if "actions" in params:
        link.actions = _actions(params.pop("actions"), link.problems)
    if "turn" in params:
        turn = params.pop("turn")
        if turn.isascii() and turn.isdigit():  # not "¹": a digit to Python, not to int()
            link.turn = int(turn)
        else:
            link.problems.append(f"the turn “{turn}” is not a number")
    view = params.pop("view", "run")
    if view in VIEWS:
        link.view = VIEWS[view]
    else:
        link.problems.append(f"the view “{view}” is not one of {', '.join(VIEWS)}")
    layout = params.pop("controls", Layout.ALL.word)
    if layout in LAYOUTS:
        link.layout = LAYOUTS[layout]
    else:
        link.problems.append(f"the controls “{layout}” are not one of {', '.join(LAYOUTS)}")
    if "predict" in params:
        predict = params.pop("predict")
        if predict in ("on", "off"):
            link.predicting = predict == "on"
        else:
            link.problems.append(f"predict “{predict}” is neither on nor off")
    params.pop("embed", None)  # Streamlit's own: a page inside another site
    params.pop("embed_options", None)
    if params:
        link.problems.append(f"the link's {', '.join(sorted(params))} {'is' if len(params) == 1 else 'are'} not "
                             "read by this page")
    return link


def _last(value: Any) -> str:
    """A query value as one string (a key given twice: the last, as Streamlit reads it)."""
    if isinstance(value, list | tuple):
        value = value[-1] if value else ""
    return str(value)


def _text(value: str, name: str, problems: list[str]) -> str | None:
    if len(value) > MAX_TEXT_CHARS:
        problems.append(f"the {name} is longer than {MAX_TEXT_CHARS:,} characters")
        return None
    return value


def _setting(name: str, kind: type, value: str, tools: list[str], problems: list[str]) -> Any:
    if kind is list:
        names = [t for t in value.split(",") if t]
        unknown = [t for t in names if t not in tools]
        if unknown:
            problems.append(f"no tool called {', '.join(unknown)}")
        return [t for t in names if t in tools]
    if kind is int:
        if value.isascii() and value.isdigit() and 0 < int(value) <= 1_000_000:
            return int(value)
        problems.append(f"{name} “{value}” is not a whole number above 0")
        return None
    if kind is bool:
        if value in ("true", "false"):
            return value == "true"
        problems.append(f"{name} “{value}” is neither true nor false")
        return None
    return _text(value, name, problems)


def _actions(packed: str, problems: list[str]) -> list[list[Any]]:
    """The learner's actions, unpacked and checked; an unreadable list is dropped whole, in words."""
    try:
        raw = zlib.decompressobj().decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)),
                                              MAX_QUERY_CHARS * 8)
        actions = parse_json(raw, source="the link's actions", expect=list)
    except (binascii.Error, ValueError, zlib.error, UntrustedInputError):
        problems.append("the link's actions could not be read, so the run starts afresh")
        return []
    if len(actions) > MAX_ACTIONS:
        problems.append(f"the link holds {len(actions):,} actions; at most {MAX_ACTIONS} are replayed")
        return []
    for number, action in enumerate(actions, 1):
        if not (isinstance(action, list) and action and action[0] in ACTIONS
                and len(action) == len(ACTIONS[action[0]]) + 1
                and all(type(arg) is kind for arg, kind in zip(action[1:], ACTIONS[action[0]], strict=True))
                and all(isinstance(block, dict) for arg in action[1:] if type(arg) is list for block in arg)):
            problems.append(f"the link's action {number} is not one this page knows, so the run starts afresh")
            return []
    checked: list[list[Any]] = actions
    return checked
