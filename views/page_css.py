"""The page's style sheet: how Streamlit's own elements look here, then the rules of the wing's own HTML.

Only this module (and `views/page_js.py`) knows Streamlit's page: its `data-testid` names and the
`.st-key-<key>` class Streamlit gives a keyed widget's box. `agent/page/` writes HTML of its own and the CSS
for it (`html_cards.CARDS_CSS`, `exercise_view.EXERCISE_CSS`), which the player draws too. `sandbox_app.py`
draws `PAGE_CSS` once on every page.
"""

from __future__ import annotations

from agent.page.exercise_view import EXERCISE_CSS
from agent.page.html_cards import CARDS_CSS


def key_class(key: str) -> str:
    """The CSS selector of a keyed widget's box (`st.container(key=...)`, a button's `key=`) in Streamlit's page."""
    return f".st-key-{key}"


EDITOR = f"{key_class('loop_code')} textarea"
"""The exercise's code box (`views/write_your_loop.py`'s text area, key `loop_code`)."""

STREAMLIT_CSS = """
[data-testid="stMainBlockContainer"] {padding-top: 2.2rem;}
/* Streamlit frames the whole main area while it holds the focus, and a click on the page's background puts the
   focus there: the next key (S, E, an arrow) draws a grey frame round everything. The area is no control; the
   controls keep their own focus rings. */
[data-testid="stMain"]:focus-visible::before, [data-testid="stMain"]:focus::before {display: none !important;}
/* A diagram keeps the size it was laid out at, its text at reading size, rather than shrink. One wider than its
   column scrolls sideways in a box of its own, no wider than the diagram: a scrollbar always drawn, and a shadow
   on each edge that has more beyond it (a scrollbar shown only while scrolling would give no sign of it). */
[data-testid="stGraphVizChart"] {overflow-x: auto; overflow-y: hidden; max-width: 100%; width: fit-content;
  scrollbar-width: auto; scrollbar-color: #9aa5b1 #f1f3f5;
  background: linear-gradient(to right, #ffffff 30%, rgba(255, 255, 255, 0)) left / 32px 100% no-repeat local,
    linear-gradient(to left, #ffffff 30%, rgba(255, 255, 255, 0)) right / 32px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(31, 41, 51, .3), transparent) left / 14px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(31, 41, 51, .3), transparent) right / 14px 100% no-repeat scroll;}
[data-testid="stGraphVizChart"] svg {max-width: none !important;}
/* Streamlit draws a diagram's words at 9.6px whatever size graphviz laid them out at; every diagram here is laid
   out at fontsize 13 (graph.py, branches_view.py), so its words are drawn at that size and fit their boxes. */
[data-testid="stGraphVizChart"] svg text {font-size: 13px !important;}
/* The run graph's box is as tall as the graph, up to the 640 px the page gives it (a box that follows the newest
   turn needs a height), and scrolls beyond that: a short graph leaves no blank box under it. */
[class*="st-key-run_graph_box"], :has(> [class*="st-key-run_graph_box"]) {height: auto !important;
  flex: 0 1 auto !important; max-height: 640px;}
/* The branch picker and the branch map wrap under each other when the panel is too narrow for both. */
.st-key-change_the_past [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]
  [data-testid="stGraphVizChart"]) {flex-wrap: wrap;}
.st-key-change_the_past [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]
  [data-testid="stGraphVizChart"]) > [data-testid="stColumn"] {min-width: min(100%, 300px);}
/* Side-by-side columns of the views wrap under each other when the page is too narrow for both. */
.st-key-view_area [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]) {flex-wrap: wrap;}
.st-key-view_area [data-testid="stColumn"] {min-width: min(100%, 340px);}
/* Buttons keep their words on narrow screens: they wrap onto a new row instead of losing them. */
.st-key-step_row button p, .st-key-loop_buttons button p {white-space: nowrap;}
/* The player's helpers (Graphviz, the run's frames) draw nothing: no slot, no gap in the page. */
.st-key-player_assets {display: none;}
/* The exercise's code box reads as code: a fixed-width font, tabs four wide, long lines scrolled, not wrapped. */
__EDITOR__ {font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px;
  line-height: 1.5; tab-size: 4; white-space: pre; overflow-wrap: normal; overflow-x: auto;
  background: #fbfcfd;}
""".replace("__EDITOR__", EDITOR)
"""The rules for Streamlit's own elements on this page."""

PAGE_CSS = f"<style>\n{STREAMLIT_CSS}{CARDS_CSS}{EXERCISE_CSS}</style>\n"
"""The whole style sheet, as `st.html` takes it (a style element alone draws nothing)."""
