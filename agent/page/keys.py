"""The sandbox's keyboard: Step, Run to end, Reset and the look-back moves, each on a key, as data.

Streamlit-free: the page's script (`views/page_js.py`) reads `KEYS` and presses the widget a key names, so a
key does exactly what the click does; `views/sandbox.py` shows `KEYS_CAPTION` under the step row. Keys are left
alone while a text box, a select or anything editable has the focus, or with Ctrl, Alt or Meta held: typing a
task never steps the loop. A focused slider or view picker keeps the letter keys working.
"""

from __future__ import annotations

KEYS: list[tuple[str, str, str]] = [
    # (what the page shows, the key's `KeyboardEvent.key` values joined by "|", the widget's Streamlit key)
    ("S", "s|S", "step"),
    ("E", "e|E", "run_to_end"),
    ("R", "r|R", "reset"),
    ("Z", "z|Z", "undo"),
    ("Y", "y|Y", "redo"),
    ("←", "ArrowLeft", "look_back"),
    ("→", "ArrowRight", "look_back"),
    ("Home", "Home", "look_back"),
    ("End", "End", "look_back"),
    ("1", "1", "choice_0"),  # Predict, then Step: the choices of the question open
    ("2", "2", "choice_1"),
    ("3", "3", "choice_2"),
    ("4", "4", "choice_3"),
]
KEY_OF = {widget: shown for shown, _, widget in KEYS if widget != "look_back"}  # shown in a button's tooltip
START_KEYS_CAPTION = ("Keys: **S** Step · **E** Run to end · **R** Reset · **1**–**4** pick an answer · **Z** Undo · "
                      "**Y** Redo (while no text box has the focus)")

KEYS_CAPTION = ("Keys: **S** Step · **E** Run to end · **R** Reset · **Z** Undo · **Y** Redo · **←** **→** one turn "
                "back or forward · "
                "**Home** **End** the first or the last turn (while no text box has the focus)")
PLAYER_KEYS_CAPTION = ("Keys: **S** Step · **Space** play or pause · **E** Run to end · **R** Reset · **←** **→** one "
                       "turn back or forward · **1**–**4** pick an answer · **Z** Undo · **Y** Redo (while no text "
                       "box has the focus)")
"""The player's keys (player.js), on either layout where it plays the run."""
