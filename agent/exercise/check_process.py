"""A check in a process of its own, so that a class's checks never hold the page's interpreter lock.

The page's process serves every learner's Steps on one interpreter lock. Judging
a loop (each script's FakeModel, the engine's reference run, naming a mistake) is
about 50 ms of Python a check, and thirty checks pressed together held that lock
for a second and a half: the Steps in the meantime waited, 6 times their usual
p95 (`bench/class_load.py --checkers 30`). `iter_check_apart` runs `iter_check`
in `python -m agent.exercise.check_process`, at a lower CPU priority, and hands
back each verdict as it comes, as the same `ScriptCheck` objects. The learner's
own process is started from there, as before, walled off as before.

Between the two processes: the request as one JSON object on the child's stdin;
one JSON line a verdict on its stdout (`{"check": ...}`, `{"problem": ...}` for a
file that cannot be checked, `{"unusable": ...}` for a script that cannot be
used). Closing the iterator, or an exception from `tick`, ends the check's
process (SIGTERM, so it ends the learner's process on its way out; SIGKILL if it
does not go), and the check's process ends itself if the page's dies.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from agent.exercise.checker import ExerciseError, iter_check
from agent.exercise.runner import NICE, Limits, piped
from agent.exercise.verdict import BadRequest, RaisedError, ScriptCheck
from agent.scripts import ScriptError

TICK_SECONDS = 0.25  # how often `tick` is called while a verdict is awaited
STOP_SECONDS = 5.0  # how long the check's process has to end the learner's and go, once told to
PR_SET_PDEATHSIG = 1  # prctl(2): a signal to this process when its parent dies


def iter_check_apart(source: str, filename: str = "my_loop.py", limits: Limits | None = None,
                     tick: Callable[[], None] | None = None) -> Iterator[ScriptCheck | str]:
    """`iter_check` on every exercise script, run in a process of its own: each verdict as it comes, or one
    string saying why the file cannot be checked. Raises ExerciseError for a script that cannot be used, and
    for a check's process that broke (its words, never a traceback)."""
    limits = limits or Limits()
    command = [sys.executable, "-m", "agent.exercise.check_process"]
    if limits.nice and NICE:  # below the page, like the learner's process it starts
        command = [NICE, "-n", str(limits.nice), *command]
    complaints = tempfile.TemporaryFile()  # a file, not a pipe: no amount of it can stall the process
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=complaints,
                               env=_environment(), start_new_session=True)
    try:
        try:
            piped(process.stdin).write(json.dumps({"source": source, "filename": filename,
                                            "limits": asdict(limits)}).encode())
            piped(process.stdin).close()
        except BrokenPipeError:  # it ended before it read the request: said below, from its exit status
            pass
        for line in _lines(process, tick):
            said = json.loads(line)
            if "unusable" in said:
                raise ExerciseError(said["unusable"])
            if "problem" in said:
                yield said["problem"]
                return
            yield script_check(said["check"])
        if process.wait() != 0:
            raise ExerciseError(f"the check stopped before it finished (its process ended with {process.returncode}): "
                                f"{_last_words(complaints)}")
    finally:
        _stop(process)
        complaints.close()


def script_check(data: dict[str, Any]) -> ScriptCheck:
    """A ScriptCheck from its `asdict` form."""
    return ScriptCheck(**{**data, "bad_request": BadRequest(**data["bad_request"]) if data["bad_request"] else None,
                          "error": RaisedError(**data["error"]) if data["error"] else None})


def _environment() -> dict[str, str]:
    """What the check's process is given of the page's environment: enough to run Python and find bubblewrap,
    the exercise's own settings, and the `agent` package first on its path (the same code as the page's).
    Nothing else: no key or secret of the page's reaches it."""
    kept = {name: value for name, value in os.environ.items()
            if name in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV") or name.startswith("LOOP_SANDBOX_")}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return {**kept, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}


def _lines(process: subprocess.Popen[bytes], tick: Callable[[], None] | None) -> Iterator[bytes]:
    """The child's stdout line by line, with `tick` called while waiting for the next."""
    pending = b""
    out = piped(process.stdout).fileno()
    # A selector, not select.select: a page holding a large class has descriptors past select's 1024.
    with selectors.DefaultSelector() as waiting:
        waiting.register(out, selectors.EVENT_READ)
        while True:
            ready = waiting.select(TICK_SECONDS)
            if tick is not None:
                tick()
            if not ready:
                continue
            chunk = os.read(out, 65_536)
            if not chunk:
                return
            pending += chunk
            *whole, pending = pending.split(b"\n")
            yield from whole


def _last_words(complaints: Any) -> str:
    complaints.seek(0)
    said = complaints.read().decode(errors="replace").strip().splitlines()
    return said[-1] if said else "it said nothing"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)  # it closes the check, which ends the learner's process
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(OSError):  # a request it never read may be left in the pipe's buffer
        piped(process.stdin).close()
    piped(process.stdout).close()


def _end_with_the_page() -> None:
    """SIGTERM to this process when the page's process dies (Linux); elsewhere the pipes' ends do it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def main() -> int:
    _end_with_the_page()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds the check: the learner's process ends too
    asked = json.loads(sys.stdin.buffer.read())
    say = sys.stdout.write
    try:
        for item in iter_check(asked["source"], limits=Limits(**asked["limits"]), filename=asked["filename"]):
            say(json.dumps({"problem": item} if isinstance(item, str) else {"check": asdict(item)}) + "\n")
            sys.stdout.flush()
    except (ValueError, ScriptError) as exc:
        say(json.dumps({"unusable": str(exc)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
