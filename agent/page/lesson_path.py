"""The lesson as a path: the built-in scripts in the lesson's order, each with what to watch in it.

Start here walks it with "Next scenario". The facts are the lesson's (what the loop does for each stop reason, the
turn limit, one message of results); the words are the page's own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    script: str
    """A built-in script's name."""
    watch: str
    """One sentence: what to look at while it runs."""


PATH = (
    Scenario("add_then_answer", "The reference run: one tool call, its result sent back, then the answer. Count the "
                                "messages each request carries."),
    Scenario("two_calls_one_reply", "One reply asks for two tools: both run, and both results travel back in ONE "
                                    "user message, not two."),
    Scenario("three_tool_chain", "Each result leads to the next call: the loop goes round once for every reply "
                                 "that asks for a tool."),
    Scenario("cut_off_reply", "The reply ran into max_tokens mid-call: its input may be half written, so the loop "
                              "runs nothing and stops."),
    Scenario("refusal", "The model declines: nothing in the reply runs, and the loop says why it stopped."),
    Scenario("unknown_stop_reason", "A stop reason this loop has never heard of: anything but end_turn and tool_use "
                                    "stops it, which keeps it safe."),
    Scenario("short_leash", "A model that never stops asking, against a turn limit of 3: the limit is what ends "
                            "the run, and the loop says so."),
    Scenario("failing_tool", "A tool raises: the loop does not crash but sends the error back as a result "
                             "(is_error), and the model tries another way."),
    Scenario("thinking_then_answer", "The replies open with thinking blocks: they go back in the conversation with "
                                     "the reply, and the answer is the text alone, thinking left out."),
)


def place_of(script: str) -> int | None:
    """The script's place on the path (0-based); None when it is not on it."""
    return next((i for i, scenario in enumerate(PATH) if scenario.script == script), None)
