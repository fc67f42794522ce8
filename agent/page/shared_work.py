"""What the page's sessions share of built-in runs, and the work pickled for it.

A built-in script's or the toy's run is the same in every session that took the same actions, so what one
session's replay (Undo) or Step gave is kept for the process and taken by the next session at that place: a class
on one scenario works each place out once. A session with a script of its own from a file keeps to itself
(`SandboxState._replay_key`). The work is pickled with its scripts named, not copied: they never change. A run's
frames are kept the same way (`frames.FRAMES_SENT`).
"""

from __future__ import annotations

import io
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from agent.page.sandbox_values import Notice
from agent.scripts import Script

REPLAYS_KEPT = 256  # replays kept for the whole process: 17 KB each at turn 20 of the runaway script
STEPS_KEPT = 512  # Steps' outcomes kept: a class on a few scenarios, each place of each run
Kept = TypeVar("Kept")


class Outcomes(Generic[Kept]):
    """What a piece of work gave (a replay's or a Step's work pickled, a run's frames), by what it is a function of,
    the least recently used let go first. Unpickling a replay's is about a tenth of the replay's time, which grows
    with the run: each turn's request is built and checked again."""

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._work: OrderedDict[str, Kept] = OrderedDict()
        self._lock = threading.Lock()  # the page's sessions run in threads of one process
        self._making: dict[str, threading.Lock] = {}  # a lock for each key being made: other keys go on meanwhile

    def get(self, key: str) -> Kept | None:
        with self._lock:
            work = self._work.get(key)
            if work is not None:
                self._work.move_to_end(key)
            return work

    def put(self, key: str, work: Kept) -> None:
        with self._lock:
            self._work[key] = work
            self._work.move_to_end(key)
            while len(self._work) > self._kept:
                self._work.popitem(last=False)

    def made(self, key: str, make: Callable[[], Kept]) -> Kept:
        """What is kept for `key`, made by `make` when nothing is: while one session makes it, the others that ask
        for it wait and take it (a class joining at once would otherwise each make it)."""
        kept = self.get(key)
        if kept is not None:
            return kept
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:
            kept = self.get(key)
            if kept is None:
                kept = make()
                self.put(key, kept)
        with self._lock:
            self._making.pop(key, None)
        return kept

    def __len__(self) -> int:
        return len(self._work)

    def clear(self) -> None:
        with self._lock:
            self._work.clear()


REPLAYED: Outcomes[bytes] = Outcomes(REPLAYS_KEPT)
STEPPED: Outcomes[tuple[bytes, Notice | None]] = Outcomes(STEPS_KEPT)  # the work after a Step, and what it said


def pickle_work(work: dict[str, Any], builtin: Mapping[str, Script], uploaded: Mapping[str, Script]) -> bytes:
    """The work's fields pickled, each script in it named (built-in or uploaded, and its name)."""
    buffer = io.BytesIO()
    _WorkPickler(buffer, builtin, uploaded).dump(work)
    return buffer.getvalue()


def unpickle_work(data: bytes, builtin: Mapping[str, Script], uploaded: Mapping[str, Script]) -> dict[str, Any]:
    """What `pickle_work` pickled, with this session's script of each name put back."""
    work: dict[str, Any] = _WorkUnpickler(io.BytesIO(data), builtin, uploaded).load()
    return work


class _WorkPickler(pickle.Pickler):
    """Pickles the work with its scripts left out, named (built-in or uploaded, and its name): they never change,
    and the built-in ones are shared by every session."""

    def __init__(self, file: io.BytesIO, builtin: Mapping[str, Script], uploaded: Mapping[str, Script]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.names = {id(script): (kind, name, script) for kind, scripts in (("builtin", builtin),
                                                                             ("uploaded", uploaded))
                      for name, script in scripts.items()}

    def persistent_id(self, obj: Any) -> tuple[str, str] | None:
        named = self.names.get(id(obj))
        return (named[0], named[1]) if named is not None and named[2] is obj else None


class _WorkUnpickler(pickle.Unpickler):
    """Unpickles what `_WorkPickler` pickled, putting back this session's script of each name."""

    def __init__(self, file: io.BytesIO, builtin: Mapping[str, Script], uploaded: Mapping[str, Script]) -> None:
        super().__init__(file)
        self.scripts = {"builtin": builtin, "uploaded": uploaded}

    def persistent_load(self, pid: Any) -> Script:
        kind, name = pid
        return self.scripts[kind][name]
