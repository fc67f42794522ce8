"""The model stand-ins, the engine's second room: models that answer the loop offline, each checked like any.

`fake` replays a script (the FakeModel); `toy`, `toy_tasks` and `toy_jobs` answer a typed task with a few patterns;
`hand_model` is a model whose replies a person writes; `faults` wraps any model so that its next answer goes
wrong on purpose. Part of the engine: plain Python, no wing, no streamlit.
"""
