"""The rules every toy run keeps, whatever was typed: the checks the toy's property tests hold each run to."""

import re
from decimal import Decimal

from agent.loop import RunState, run_to_end
from agent.models.toy import CAN_DO, ToyModel
from agent.models.toy_jobs import QUOTED_AT_MOST
from agent.tools import TOOLS, result_text

NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+")
QUOTED = re.compile(r"“([^”]*)”")


def ran(task: str, **settings) -> RunState:
    state = RunState(task, **settings)
    run_to_end(state, ToyModel())
    return state


def tool_results(state: RunState) -> list[str]:
    return [run.content for record in state.records for run in record.tool_runs]


def declines(answer: str) -> list[str]:
    """The lines of an answer that decline a part: what the toy cannot do, or a tool this agent lacks."""
    return [line for line in answer.split("\n") if line.startswith("I cannot") or "this agent was not given" in line]


def assert_keeps_the_toys_rules(state: RunState) -> None:
    """The run ends with `end_turn`; every number it states came from the task or a tool; a decline quotes little of
    the task and the answer then says what the toy can do."""
    last = state.records[-1].reply
    assert last is not None and last["stop_reason"] == "end_turn", (state.task[:200], state.result)
    answer = state.result
    results = tool_results(state)
    for number in NUMBER.findall(answer.replace(CAN_DO, "")):
        assert number in state.task or any(number in result for result in results), (number, state.task, answer)
    if declines(answer):
        assert answer.endswith(CAN_DO), answer
    for line in declines(answer):
        for quoted in QUOTED.findall(line):
            assert len(quoted) <= QUOTED_AT_MOST + len("…"), line


def add_gives_exactly(terms: list[Decimal]) -> bool:
    """Whether the `add` tool itself, called left to right on JSON numbers, gives every partial sum's decimal value."""
    so_far = terms[0]
    for term in terms[1:]:
        json_numbers = [int(v) if v == v.to_integral_value() else float(v) for v in (so_far, term)]
        given = Decimal(result_text(TOOLS["add"].function(*json_numbers)))
        so_far += term
        if given != so_far:
            return False
    return True
