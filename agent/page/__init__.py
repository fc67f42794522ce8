"""The page's wing: what the Streamlit page shows, worked out without streamlit.

`view` answers the page's questions about a run in words and numbers,
`lesson_loop` lights the lesson's `run_agent` for a turn, `graph` draws the run
graph and the loop diagram, `html_cards` builds the message cards and the
highlighted code, `exercise_view` says a loop check's verdicts,
`branches_view` draws a run tree's branches and marks forks and faults,
`draft` keeps the exercise's draft in the learner's browser; `frames` works out a
run's every screen as data and `player_html` puts it with the player (a
JavaScript module in `player/`) in a web page or a notebook's output: `play`. The screens
themselves are in `views/` beside `sandbox_app.py`; they are the only code
that imports streamlit.
"""

from typing import Any

__all__ = ["NotPlayable", "Played", "frames_of", "play", "run_page", "sandbox_for"]

_PLAYER = {"Played": "player_html", "play": "player_html", "run_page": "player_html", "sandbox_for": "player_html",
           "frames_of": "frames", "NotPlayable": "frames"}


# The player's door, loaded when first used: importing one page module loads no other.
def __getattr__(name: str) -> Any:
    if name not in _PLAYER:
        raise AttributeError(f"module 'agent.page' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"agent.page.{_PLAYER[name]}"), name)
