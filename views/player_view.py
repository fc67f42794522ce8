"""The player on the page: a script's or the toy's run drawn in the browser, so a Step is no rerun.

Three custom components (Streamlit's v2): Graphviz as WebAssembly, and the run's frames with the player's code (the
frames worked out once per run's settings and shared by every session), each drawn once a page; and the player,
a few lines drawn every run with where the server's run stands. The player keeps what the
learner did and hands it over before the page's next server action (its component state, `played`); `take_up`
replays it through the Sandbox's own methods, so a link, Undo and the score stay true.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from agent.page.frames import frames_key, frames_sent, playable, start_of
from agent.page.html_cards import CARDS_CSS
from agent.page.links import COPY_LINK_HELP, COPY_LINK_TITLE, EMBED_SAYS, Link, copy_link_says, to_query
from agent.page.names import Layout
from agent.page.player_html import player_file
from agent.page.sandbox import Notice, Sandbox
from agent.page.sandbox_values import PlayerSent
from views.page_js import HELP_MARK, PRESS_KEY

KEY = "player"  # the component's key: its state holds what the player did since the frames were drawn
VERSION_KEY = "player_version_"  # the player's version in its container's key
ASSETS_KEY = "player_assets"  # the hidden container of Graphviz and the frames (views/page_css.py)
# Streamlit's page as the player needs to know it: where the page says a script runs, its controls' class prefix,
# the class of the player's container with its version (a key pressed before that player mounts waits), the page's
# key presser (views/page_js.py), the help mark in a widget's label (a button's help wraps the button itself), an
# element the running script has not drawn again, an option of a pick list (drawn outside its control's
# container), and what acts when clicked with no role saying so (a page link's row; the file drop zone).
PAGE = {"app": '[data-testid="stApp"]', "state": "data-test-script-state", "keyed": "st-key-",
        "version": f"st-key-{VERSION_KEY}", "press_key": PRESS_KEY,
        "help": HELP_MARK, "stale": '[data-stale="true"]',
        "option": '[data-baseweb="popover"] [role="option"]',
        "acts": '[data-testid="stSidebarNavLinkContainer"], [data-testid="stFileUploaderDropzone"]'}
PLAYED = "played"  # the player's actions in the address, written by the browser: a reload replays them

VIZ = st.components.v2.component(
    "loop_sandbox.graphviz",
    js=f"if (typeof globalThis.Viz === 'undefined') {{\n{player_file('viz-global.js')}\n}}\n"
       "export default function () {}\n")
# The frames' element carries the player's code too (drawn once a page, as the frames are), and hands the page its
# mountOnPage; the player's own element, drawn every run, is then a few lines, not the player's 31 KB again.
FRAMES = st.components.v2.component(  # the same element while the run's settings stay: sent once, then referred to
    "loop_sandbox.frames",
    js=f"{player_file('player.js')}\nglobalThis.loopSandboxMountOnPage ||= mountOnPage;\nexport default holdFrames;\n")
MOUNT_WHEN_LOADED = """
// The player's code comes with the frames' element (views/player_view.py): the newest player drawn is mounted as
// soon as it is here (one wait, however many runs drew a player meanwhile), and a page that still lacks it after a
// while asks for it again, with the frames.
const ASK_AFTER_MS = 1500;
let newest = null;
export default function (component) {
  if (globalThis.loopSandboxMountOnPage) return globalThis.loopSandboxMountOnPage(component);
  const waiting = newest !== null;
  newest = component;
  if (waiting) return;
  const started = Date.now();
  let asked = false;
  const look = () => {
    if (globalThis.loopSandboxMountOnPage) {
      const drawn = newest;
      newest = null;
      return globalThis.loopSandboxMountOnPage(drawn);
    }
    if (!asked && Date.now() - started > ASK_AFTER_MS) {
      asked = true;
      newest.setTriggerValue("frames_wanted", true);
    }
    setTimeout(look, 50);
  };
  look();
}
"""
PLAYER = st.components.v2.component(
    "loop_sandbox.player", css=f"{CARDS_CSS}\n{player_file('player.css')}", js=MOUNT_WHEN_LOADED)


def usable(box: Sandbox) -> bool:
    """Whether the run on screen plays in the browser: a script's or the toy's, with no fork, edit or fault, of
    at most FRAMES_LIMIT Steps, and its settings as they are (a new task typed starts a new run with the next
    Step: the server's)."""
    return playable(box) is None and not box.settings_changed and frames_sent(box, frames_key(box)) is not None


def take_up(box: Sandbox, said: Any) -> None:
    """What the player says it did, taken once through the Sandbox's methods, if it was said of these frames."""
    sent = box.page.player
    if not isinstance(said, dict) or said.get("base") != sent.version or not isinstance(said.get("played"), str):
        return
    if said.get("id") is not None and said.get("id") == sent.taken:
        return
    sent.taken = str(said.get("id"))
    sent.version = None  # taken once: the frames drawn next start where these actions left the run
    if said["played"]:
        box.notice = None  # what the server said last came before what the learner has done since
    take_up_played(box, said["played"])


def take_up_played(box: Sandbox, played: str) -> None:
    if (problem := box.take_played(played)) is not None:
        box.notice = Notice.warning(f"Part of what was done in the browser could not be taken up: {problem}.")


def lost(sent: PlayerSent) -> None:
    """The page asked for the frames: it has lost them (and maybe Graphviz), so both are drawn again."""
    sent.viz, sent.frames_key = False, None


def draw(box: Sandbox, link: Link, next_label: str | None, act: Callable[..., Any], whole: bool = False,
         chat: bool = False) -> None:
    """The player, from where the Sandbox's run stands; `link` is the screen's, whose address the page writes for
    it. On All controls it draws the view picked below its step row (Run, with `whole` every turn of the graph;
    The loop; Messages, with `chat` Chat Completions beside them); on Start here, the beginner's."""
    query = to_query(link)
    key = frames_key(box)
    frames = frames_sent(box, key)
    start = start_of(box)
    layout: dict[str, Any] = {"layout": box.layout.word, "view": str(box.view), "whole": whole, "chat": chat}
    if box.layout == Layout.START:  # Copy link is the player's there; All controls' is in the sidebar
        layout["link"] = {"title": COPY_LINK_TITLE, "help": COPY_LINK_HELP, "says": copy_link_says(box.layout),
                          "embed": EMBED_SAYS, "notes": box.link_notes(link)}
    version = hashlib.sha256(json.dumps([key, start, query, box.page.player.taken, layout]).encode()).hexdigest()[:16]
    box.page.player.version = version

    def frames_wanted() -> None:  # a widget's callback, as every one says (views/widget_state.py)
        box.page.widget_began()
        lost(box.page.player)

    def handed_with(trigger: str, action: Callable[[], Any]) -> Callable[[], None]:
        """A server action the player asks for (the next scenario; Undo or Redo of what came before its own
        actions): one run that takes up what the player did, then takes the action."""
        def callback() -> None:
            take_up(box, (st.session_state.get(KEY) or {}).get(trigger))
            act(action)
        return callback

    # Graphviz and the frames stay in the browser's page once there: drawn again only for other frames, or when
    # the player asks for them (a page that lost them), so a server action does not carry 2 MB of them again.
    # In a container that is always there, so whether they are drawn never moves the player's place in the page.
    sent = box.page.player
    with st.container(key=ASSETS_KEY):
        if not sent.viz:
            VIZ(key="graphviz")
            sent.viz = True
        if sent.frames_key != key:
            FRAMES(key="player_frames", data=frames)
            sent.frames_key = key
    # The version in the container's key: drawn with the page's other elements, it tells a player on screen that
    # a newer one is coming (its own component mounts a moment later), so a key pressed between waits for it.
    with st.container(key=f"{VERSION_KEY}{version}"):
        # In a list: Streamlit looks for dataframes among a dict's values, over a millisecond a run for these.
        PLAYER(key=KEY, data=[{"frames_key": key, "start": start, "query": query, "next": next_label,
                               "version": version, "taken": box.page.player.taken, "page": PAGE, **layout}],
               on_next_scenario_change=handed_with("next_scenario", box.next_scenario),
               on_undo_change=handed_with("undo", box.undo), on_redo_change=handed_with("redo", box.redo),
               on_played_change=box.page.widget_began,
               on_frames_wanted_change=frames_wanted)
