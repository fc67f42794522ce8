"""Learners pressing Check in the exercise, for bench/class_load.py: the check learner and what it saw.

A checker is a session of its own, opened on the exercise's URL path (`write-your-loop`, as a link to it
does). It types the project's correct loop (examples/correct_loop.py) into the code box and, at the moment
every checker shares, presses Check my loop. The check runs inside that one script run: while it waits
for a slot the page redraws the learner's place a few times a second ("2 checks ahead of yours"), then
each script's verdict, then the headline. The checker reads all of it as it arrives and keeps the places
it was shown, the time from the press to the first "Checking your loop" (the queue's wait) and to the
verdict's headline (wait and run), and whether the verdict says every script passes.
"""

from __future__ import annotations

import asyncio
import math
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from streamlit_session import StreamlitSession

EXERCISE_PATH = "write-your-loop"
CORRECT_LOOP = (Path(__file__).resolve().parent.parent / "examples" / "correct_loop.py").read_text()
CHECK_LIMIT = 300  # seconds a checker waits for its verdict before it calls the check lost
PLACE = re.compile(r"(\d+) checks? ahead of yours|your check is next")
RUNNING = "**Checking your loop:**"
VERDICT = re.compile(r"\*\*(\d+ of \d+ scripts pass[^*]*|Not checked:[^*]*)\*\*")
WAITED_LONG = 0.6  # s in the queue: long enough for the page to have drawn the place (it redraws every 0.25 s)


@dataclass
class CheckSeen:
    """One learner's check, as their page showed it."""

    pressed_at: float  # time.monotonic() at the press: comparable across the benchmark's processes
    places: list[int] = field(default_factory=list)  # checks ahead, as shown, in order, repeats dropped
    queued: float = float("nan")  # s from the press until the check started ("Checking your loop")
    verdict_after: float = float("nan")  # s from the press until the verdict's headline was shown
    verdict: str = ""
    passed: bool = False


async def check_learner(url: str, joined: asyncio.Semaphore, start: asyncio.Event, press_at: list[float],
                        joined_ms: list[float], checks: list[CheckSeen]) -> None:
    """Open the exercise, type the correct loop, press Check at `press_at[0]`, and keep what the page showed."""
    async with joined:
        began = time.perf_counter()
        session = await StreamlitSession.open(url, page=EXERCISE_PATH)
        code = session.type("my_loop.py", CORRECT_LOOP)
        await session.rerun(code)  # the code box loses focus: its value goes up, as a browser's does
        joined_ms.append((time.perf_counter() - began) * 1000)
    await start.wait()
    await asyncio.sleep(max(0.0, press_at[0] - time.monotonic()))
    seen = CheckSeen(time.monotonic())
    checks.append(seen)
    try:
        states, _ = session.press("Check my loop")
        outcome = await session.rerun(code + states, timeout=CHECK_LIMIT)
    finally:
        await session.close()
    for text, seconds in zip(outcome.texts, outcome.text_seconds, strict=True):
        if (place := PLACE.search(text)) and not seen.verdict:
            ahead = int(place.group(1) or 0)
            if not seen.places or seen.places[-1] != ahead:
                seen.places.append(ahead)
        elif text.startswith(RUNNING) and seen.queued != seen.queued:  # the first: the check has its slot
            seen.queued = seconds
        elif (verdict := VERDICT.match(text)) and not seen.verdict:
            seen.verdict, seen.verdict_after = verdict.group(1), seconds
    seen.passed = seen.verdict.endswith("well done.")


SLOWEST_SHOWN = 5  # the Steps that make a window's p95: is it one moment of the checks, or all of it?


def check_report(checks: list[CheckSeen], started: int, steps: list[tuple[float, float]],
                 window: tuple[float, float], alone_p95: float | None) -> list[str]:
    """The level's lines about its checks, and the Steps pressed while they ran against those pressed while none
    did (the same level, the same run) and against one learner's p95."""
    done = [c for c in checks if c.verdict]
    waits = sorted(c.verdict_after for c in done)
    queued = sorted(c.queued for c in done if c.queued == c.queued)
    long_waits = [c for c in done if c.queued >= WAITED_LONG]
    told = [c for c in long_waits if c.places]
    most_ahead = max((max(c.places) for c in checks if c.places), default=0)
    lines = [f"      checks: {sum(c.passed for c in checks)} passed / {started} started, {len(done)} with a verdict; "
             f"queue wait p50 {median(queued):.1f} / max {last(queued):.1f} s; press to verdict p50 "
             f"{median(waits):.1f} / max {last(waits):.1f} s; place shown to {len(told)} of the {len(long_waits)} "
             f"that waited >= {WAITED_LONG} s (up to {most_ahead} ahead)"]
    if not checks:
        return lines
    first = min(c.pressed_at for c in checks)
    end = max((c.pressed_at + c.verdict_after for c in done), default=first)
    during = sorted(ms for at, ms in steps if first <= at <= end)
    quiet = sorted(ms for at, ms in steps if window[0] <= at < window[1] and not first <= at <= end)
    during_p95, quiet_p95 = nearest_rank(during, 0.95), nearest_rank(quiet, 0.95)
    alone = f"; {during_p95 / alone_p95:.2f}x one learner's p95" if alone_p95 else ""
    lines.append(f"      Steps while the checks ran ({end - first:.1f} s): {len(during)}, p50 {median(during):.0f} / "
                 f"p95 {during_p95:.0f} ms; with no check running: {len(quiet)}, p50 {median(quiet):.0f} / p95 "
                 f"{quiet_p95:.0f} ms; p95 {during_p95 / quiet_p95:.2f}x no check's{alone}")
    slowest = sorted(((ms, at - first) for at, ms in steps if first <= at <= end), reverse=True)[:SLOWEST_SHOWN]
    lines.append("      the slowest Steps beside the checks, and when they were pressed: " + ", ".join(
        f"{ms:.0f} ms at +{after:.2f} s" for ms, after in slowest))  # at +0.0x s: the 30 presses' own page runs
    return lines


def check_problems(checks: list[CheckSeen], started: int, slots_hint: int = 2) -> list[str]:
    """What a checker saw that the page must not do: a check with no verdict or not passing, a long wait with no
    place shown, and (for a queue longer than the slots and a couple more) no place of 2 or more ahead."""
    problems = [f"a check pressed at +{c.pressed_at - checks[0].pressed_at:.1f} s ended without a verdict"
                for c in checks if not c.verdict]
    problems += [f"a check's verdict: {c.verdict}" for c in checks if c.verdict and not c.passed]
    problems += [f"a check waited {c.queued:.1f} s and was shown no place" for c in checks
                 if c.queued >= WAITED_LONG and not c.places]
    if started > slots_hint + 2 and not any(max(c.places, default=0) >= 2 for c in checks):
        problems.append(f"{started} checks at once, and no page showed '2 checks ahead of yours' or more")
    return problems


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def last(ordered: list[float]) -> float:
    return ordered[-1] if ordered else float("nan")


def nearest_rank(ordered: list[float], share: float) -> float:
    """The value `share` of the ordered values are at or below (nearest rank)."""
    return ordered[max(math.ceil(share * len(ordered)) - 1, 0)] if ordered else float("nan")
