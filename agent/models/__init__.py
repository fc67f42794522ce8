"""The model stand-ins, the engine's second room: models that answer the loop offline, each checked like any.

`fake` replays a script (the FakeModel); `toy` answers a typed task with a few patterns: `toy_clauses` cuts it into
clauses, `toy_tasks` reads each clause's jobs (the sums in `toy_sums`, the files in `toy_files`, the texts to count
or shout in `toy_texts`) and `toy_jobs` works them out; `hand_model` is a model whose replies a person writes;
`faults` wraps any model so that its next answer goes wrong on purpose. Part of the engine: plain Python, no wing,
no streamlit.
"""
