"""A class pressing Check at once: a bounded pool of checks and a queue in front of it.

Each check runs the learner's code in a process of its own for a few hundred milliseconds of a core per
script. Thirty learners pressing Check together would start thirty such processes on a machine of two
cores, and the page's own Steps would wait behind them all. So checks take a slot from a pool (one per
core by default, `LOOP_SANDBOX_CHECK_SLOTS` to change it) and wait their turn in order; a learner sees
their place ("2 checks ahead of yours"), and Cancel leaves the queue. A session holds at most one place:
pressing Check again while a check of theirs waits or runs is refused in words, not queued twice.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

SLOTS_ENV = "LOOP_SANDBOX_CHECK_SLOTS"
MAX_WAITING = 500  # a queue this long would keep its last learner waiting minutes: say so instead of queueing


class QueueRefused(RuntimeError):
    """A check the queue will not take; `str()` says why, in words for the learner."""


@dataclass(eq=False)
class Ticket:
    """One learner's place: waiting in line, then holding a slot until the check ends."""

    owner: str
    """Who pressed Check (a session's id): a session holds one place at most."""
    number: int
    """The order the places were taken in."""
    queue: CheckQueue = field(repr=False)
    running: bool = False
    """Whether the check holds a slot (it may start), or still waits."""
    left: bool = False
    """Whether it has left the queue (done or cancelled)."""

    def ahead(self) -> int:
        """How many checks wait before this one, or 0 once it may run."""
        return self.queue.ahead_of(self)

    def wait(self, tick: Callable[[int], None] | None = None, poll: float = 0.25) -> None:
        """Wait for a slot. `tick(ahead)` is called at once and then a few times a second while waiting: a
        page shows the place, or stops the wait by raising (then the ticket leaves the queue)."""
        # The first look does not wait: with no slot free, the place is said at once, not a poll later.
        timeout = 0.0 if tick is not None else poll
        try:
            while not self.queue.take_slot(self, timeout):
                if tick is not None:
                    tick(self.ahead())
                timeout = poll
        except BaseException:
            self.leave()
            raise

    def leave(self) -> None:
        """Give up the place or the slot (once): the next check in line may start."""
        self.queue.leave(self)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.leave()


class CheckQueue:
    """The pool of check slots for one process, and the line in front of it, first come first served."""

    def __init__(self, slots: int | None = None) -> None:
        self.slots = max(1, slots if slots is not None else default_slots())
        self._lock = threading.Condition()
        self._waiting: list[Ticket] = []
        self._running: list[Ticket] = []
        self._numbers = count(1)

    def join(self, owner: str) -> Ticket:
        """Take a place in line for `owner`; refused (QueueRefused) if they already hold one or the line is full."""
        with self._lock:
            if any(t.owner == owner for t in (*self._waiting, *self._running)):
                raise QueueRefused("A check of yours is already waiting or running: Cancel it, or wait for it "
                                   "to finish, before you check again.")
            if len(self._waiting) >= MAX_WAITING:
                raise QueueRefused(f"{len(self._waiting)} checks are waiting already; try again in a minute.")
            ticket = Ticket(owner, next(self._numbers), self)
            self._waiting.append(ticket)
            return ticket

    def ahead_of(self, ticket: Ticket) -> int:
        with self._lock:
            return self._waiting.index(ticket) if ticket in self._waiting else 0

    def take_slot(self, ticket: Ticket, timeout: float) -> bool:
        """Give `ticket` a slot if it is first in line and one is free; else wait up to `timeout` and say False."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                if ticket.running:
                    return True
                if ticket.left:
                    raise QueueRefused("this check has left the queue")
                if self._waiting and self._waiting[0] is ticket and len(self._running) < self.slots:
                    self._waiting.pop(0)
                    self._running.append(ticket)
                    ticket.running = True
                    self._lock.notify_all()  # the others move up one place
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)

    def leave(self, ticket: Ticket) -> None:
        with self._lock:
            if ticket.left:
                return
            ticket.left = True
            if ticket in self._waiting:
                self._waiting.remove(ticket)
            if ticket in self._running:
                self._running.remove(ticket)
            self._lock.notify_all()

    def counts(self) -> tuple[int, int]:
        """(checks running, checks waiting), e.g. for a status line."""
        with self._lock:
            return len(self._running), len(self._waiting)


CPU_QUOTA = Path("/sys/fs/cgroup/cpu.max")  # cgroup v2: "<quota> <period>" in µs, or "max <period>"


def default_slots(quota_file: Path = CPU_QUOTA) -> int:
    """One check per core this process may use, unless LOOP_SANDBOX_CHECK_SLOTS says otherwise.

    The cores it may use: those it may run on, and no more than its CPU quota (a container's CPU limit,
    as Kubernetes sets it, leaves the node's every core in the affinity mask)."""
    named = os.environ.get(SLOTS_ENV, "").strip()
    if named.isdigit() and int(named) > 0:
        return int(named)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(cores, _quota_cores(quota_file) or cores)


def _quota_cores(quota_file: Path) -> int | None:
    """The CPU quota in whole cores (at least one), or None when there is none or it cannot be read."""
    try:
        quota, period = quota_file.read_text().split()[:2]
        return max(1, int(quota) // int(period))
    except (OSError, ValueError):  # no cgroup v2 here, or "max": no quota
        return None


_shared: CheckQueue | None = None
_shared_lock = threading.Lock()


def shared_queue() -> CheckQueue:
    """The one queue of this process: every session's checks wait in it."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = CheckQueue()
        return _shared


def place_words(ahead: int) -> str:
    """Where a waiting check stands, in words."""
    if ahead <= 0:
        return "Every slot is busy: your check is next, and starts as soon as one is free."
    return (f"{ahead} check{'s' if ahead != 1 else ''} ahead of yours in the queue. Yours starts by itself; "
            "Cancel leaves the queue.")
