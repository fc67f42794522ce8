"""Loop Sandbox's engine: the agent loop, the FakeModel, the tools and the scripts.

Plain Python with no page code: `sandbox_app.py` draws it, `python -m agent`
runs it in a terminal.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    """`from agent import play`: a run stepped in a notebook. The page's wing loads only when asked for."""
    if name != "play":
        raise AttributeError(f"module 'agent' has no attribute {name!r}")
    from agent.page import play

    return play
