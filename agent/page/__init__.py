"""The page's wing: what the Streamlit page shows, worked out without streamlit.

`view` answers the page's questions about a run in words and numbers,
`lesson_loop` lights the lesson's `run_agent` for a turn, `graph` draws the run
graph and the loop diagram, `html_cards` builds the message cards and the
highlighted code, `exercise_view` says a loop check's verdicts,
`branches_view` draws a run tree's branches and marks forks and faults,
`draft` keeps the exercise's draft in the learner's browser. The screens
themselves are in `views/` beside `sandbox_app.py`; they are the only code
that imports streamlit.
"""
