"""Loop Sandbox's engine: the agent loop, the FakeModel, the tools and the scripts.

Plain Python with no page code: `sandbox_app.py` draws it, `python -m agent`
runs it in a terminal.
"""
