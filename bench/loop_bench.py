"""How a turn's cost grows with the run: the sandbox's loop and FakeModel against a bare loop.

Plays a 4000-turn script (each reply a signed thinking block and one `add`
call, then an answer) through `agent.loop.step` with the checking FakeModel,
and through a bare twenty-line loop whose model hands out the same replies
unchecked. Prints the cost of a turn near turn 100 and near turn 4000, their
ratio, and how the checker checked each request whole: a full check of every
message once, then per request a cheap proof that the earlier messages are
unchanged (it grows with the conversation, at C speed) and a full check of the
last turn and the new messages (constant).

Run: python bench/loop_bench.py [--turns 4000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from agent.loop import RunState, step
from agent.models.fake import FakeModel
from agent.scripts import parse_script
from agent.tools import run_tool, tool_schemas


def make_script(turns: int):
    replies = [{"stop_reason": "tool_use", "content": [
        {"type": "thinking", "thinking": ""},
        {"type": "tool_use", "id": f"toolu_{k}", "name": "add", "input": {"a": k, "b": 1}}]}
        for k in range(1, turns)]
    replies.append({"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]})
    return parse_script({"replies": replies, "tools": ["add"], "max_turns": turns}, name="bench")


CHECKS: dict[str, int] = {}


def sandbox_turn_times(script) -> list[float]:
    state, model = RunState("count", tool_names=["add"], max_turns=script.max_turns), FakeModel(script)
    times = []
    while not state.done:
        started = time.perf_counter()
        step(state, model)
        times.append(time.perf_counter() - started)
    assert state.result == "done", state.result
    checker = model._checker
    CHECKS.update(checked=checker.checked, from_start=checker.from_start, by_watch=checker.by_watch,
                  messages=len(state.messages))
    return times


def bare_turn_times(script) -> list[float]:
    """The lesson's loop, bare: no checks, no records; replies copied as the FakeModel copies them."""
    frozen = [json.dumps(reply) for reply in script.replies]
    tools, times = tool_schemas(["add"]), []
    messages = [{"role": "user", "content": "count"}]
    for turn in range(script.max_turns):
        started = time.perf_counter()
        reply = json.loads(frozen[turn])  # stands in for model.create(messages, tools=tools, ...)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            times.append(time.perf_counter() - started)
            break
        calls = [b for b in reply["content"] if b["type"] == "tool_use"]
        messages.append({"role": "user", "content": [run_tool(b, ["add"]) for b in calls]})
        times.append(time.perf_counter() - started)
    assert tools and len(times) == script.max_turns
    return times


def window(times: list[float], around: int, half: int = 50) -> float:
    """Median cost of the turns around one turn number (1-based)."""
    lo, hi = max(0, around - 1 - half), min(len(times), around - 1 + half)
    return statistics.median(times[lo:hi])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    script = make_script(args.turns)
    rows = {"sandbox loop + FakeModel": sandbox_turn_times, "bare twenty-line loop": bare_turn_times}
    print(f"{args.turns}-turn script, {args.repeats} runs each; per-turn medians over 100 turns around each point")
    print(f"{'':28}{'whole run':>11}{'turn 100':>11}{f'turn {args.turns}':>12}{'late/early':>12}")
    early_of = {}
    for label, measure in rows.items():
        runs = [measure(script) for _ in range(args.repeats)]
        whole = statistics.median(sum(run) for run in runs)
        early = statistics.median(window(run, 100) for run in runs)
        late = statistics.median(window(run, args.turns) for run in runs)
        early_of[label] = (early, late)
        print(f"{label:28}{whole:>10.3f}s{early * 1e6:>9.1f}us{late * 1e6:>10.1f}us{late / early:>11.2f}x")
    (sandbox_early, sandbox_late), (bare_early, bare_late) = early_of.values()
    print(f"sandbox / bare per turn: {sandbox_early / bare_early:.1f}x at turn 100, "
          f"{sandbox_late / bare_late:.1f}x at turn {args.turns}")
    print(f"every request checked whole: {CHECKS['checked']} requests, {CHECKS['from_start']} of them from the first "
          f"message; {CHECKS['by_watch']} proved the earlier messages (up to {CHECKS['messages'] - 1}) unchanged by "
          f"the run's watched conversation, with no pass over them, and checked the last turn on")


if __name__ == "__main__":
    main()
