"""The Messages API's rules, the engine's first room: what a request must be, checked as the API checks it.

`schema` holds the request body's schema (`api_schema.json`, and `api_beta_schema.json` for a request that names
a beta, read from the installed SDK's own types) and its words; `rules` the rules of one message and between turns;
`limits` what real-API mode refuses beyond the schema (thinking budget, tool schemas, text size); `requests` the
whole check, fresh or incremental, that the FakeModel, the toy and the stand-in share; `signing` the thinking
blocks' signatures; `watched` the reply blocks that count their in-place changes, so a long run's checks stay
linear; `error_types` the API's error types, their statuses and which are worth a retry. Part of the engine:
plain Python, no wing, no streamlit.
"""
