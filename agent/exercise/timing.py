"""A run the time limit stopped: too slow, endless, or neither that the evidence can tell.

A loop that only waits (a `time.sleep` before each request, a throttle, a
backoff) is not an endless one, and telling its learner to look for an exit
the loop has sends them to fix code that is right. So the time limit names
`too_slow` only when the requests show a loop on the reference's path that
would have finished later: every request so far accepted and the size the
reference's was, the lines printed so far the reference's first ones, the
requests spaced out and still coming at that pace when time ran out, and the
script's remaining requests at that pace past the limit. It names
`endless_loop` only when the run shows one: the same request sent again and
again, or, after the last request, the loop kept running code (its process
busy on the CPU) without asking again or returning. Anything else names
nothing and says only that the run did not finish.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.exercise.judge import Observation
from agent.exercise.mistakes import output_lines
from agent.exercise.runner import Limits
from agent.loop import RunState
from agent.scripts import Script
from agent.summary import console_lines

BUSY_SHARE = 0.25  # of the time since its last request: a loop that only waits uses next to no CPU at all
PACE_SLACK = 0.5  # seconds a request may come late on its pace: start-up, a busy machine
REPEATS = 3  # the same request this many times running: it asks again with nothing new


@dataclass(frozen=True)
class TimedOut:
    """What a run the time limit stopped shows."""

    verdict: str
    """`too_slow`, or `time_limit` when the run shows no slow loop."""
    summary: str
    """One line saying what happened, with the time it took and the limit."""
    mistake: str | None
    """`too_slow`, `endless_loop`, `no_turn_limit` or `kept_going` on their evidence, else None."""


def timed_out(seen: Observation, state: RunState, script: Script, limits: Limits) -> TimedOut:
    """The verdict on a run that did not finish within the time limit."""
    sent, needed = len(seen.requests), len(state.records)
    if seen.exhausted is not None:  # it asked after the script's last reply, and kept on until time ran out
        went_on = seen.stop_reasons[-1:] != ["tool_use"]
        return TimedOut("time_limit", seen.message,
                        "kept_going" if went_on else "no_turn_limit" if sent > script.max_turns else None)
    if sent > script.max_turns:
        return TimedOut("time_limit", seen.message, "no_turn_limit")
    if sent >= REPEATS and all(request == seen.requests[-1] for request in seen.requests[-REPEATS:]) \
            and seen.rejected is not None:
        return TimedOut("time_limit", seen.message, "endless_loop")  # the same refused request, again and again
    pace = _pace(seen, limits)
    if pace is not None and _on_reference_path(seen, state) and sent < needed and pace * needed > limits.seconds:
        summary = (f"took more than {limits.seconds:g} s: each request waited about {pace:.1f} s ({sent} of the "
                   f"{needed} requests this script needs came, each as the reference loop's); at that pace the run "
                   f"needs about {pace * needed:.0f} s, and the limit is {limits.seconds:g} s")
        return TimedOut("too_slow", summary, "too_slow")
    since_last = seen.seconds - (seen.request_times[-1] if seen.request_times else 0.0)
    busy = seen.cpu_seconds is None or seen.cpu_seconds >= BUSY_SHARE * since_last
    return TimedOut("time_limit", seen.message, "endless_loop" if busy and pace is None else None)


def _pace(seen: Observation, limits: Limits) -> float | None:
    """The seconds each request took to come, on average, when they came at a steady pace that held until the
    end (the last one no later than its pace allows before time ran out); None when they did not."""
    times = seen.request_times
    if not times or seen.rejected is not None or seen.error or seen.returned:
        return None
    gaps = [later - earlier for earlier, later in zip([0.0, *times], times, strict=False)]
    since_last = max(0.0, (seen.seconds or limits.seconds) - times[-1])
    pace = times[-1] / len(times)
    return pace if since_last <= 2 * max(gaps) + PACE_SLACK else None


def _on_reference_path(seen: Observation, state: RunState) -> bool:
    """Whether every request so far carried as many messages as the reference's of the same number, and the
    lines printed so far are the reference's first lines."""
    for number, messages in enumerate(seen.requests, 1):
        if number > len(state.records) or not isinstance(messages, list) \
                or len(messages) != state.records[number - 1].sent:
            return False
    printed = output_lines(seen.printed)
    expected = output_lines("\n".join(console_lines(state)))
    return printed == expected[:len(printed)]
