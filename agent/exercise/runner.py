"""Runs a learner's `run_agent` against FakeModel scripts, in processes of its own.

`run_sandboxed` starts `python -m agent.exercise.child` in a fresh temporary
directory, hands it the learner's source and the scripts, and reads back one
JSON line per script (what the loop printed, returned, sent and raised).
Nothing here judges the loop; `agent.exercise` compares what was seen with the
reference run.

The child caps its own memory and CPU time before it runs a line of the
learner's code; this side holds the wall-clock limit, ends the child's whole
process group when a script runs past it, and carries on with the next script
in a new child. This guards against mistakes (an endless loop, a runaway
allocation); it is not a wall against hostile code, which can still read files
and open sockets as the user running the sandbox.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.scripts import Script

START_SECONDS = 20.0  # the child's interpreter start-up and imports (our code only), on a busy machine


@dataclass(frozen=True)
class Limits:
    """What the learner's code may use."""

    seconds: float = 5.0
    """Wall-clock time for loading the file, and again for each script."""
    memory_mb: int = 512
    """Address space of the whole child process, in MB (the interpreter itself takes about 20)."""
    total_seconds: float = 30.0
    """Once a check has taken this long, scripts still to start are not run (a loop that hangs on every
    script would otherwise keep the person waiting `seconds` times the number of scripts)."""


@dataclass
class SandboxRun:
    """What the child processes reported."""

    load_problem: str | None
    """Why the learner's file could not be used at all (syntax, no `run_agent`, ...); then no script ran."""
    observations: list[dict[str, Any]]
    """One per script, in order: what the child saw, or `{"script", "ended", "message"}` when it never finished."""


def _child_env() -> dict[str, str]:
    # Only what Python needs: the operator's API keys and the like never reach the learner's code.
    package_root = str(Path(__file__).resolve().parents[2])
    return {"PATH": os.environ.get("PATH", os.defpath), "PYTHONPATH": package_root, "PYTHONUTF8": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}


class _Lines:
    """Reads the child's report line by line, waiting no longer than a deadline."""

    def __init__(self, stream: Any) -> None:
        self._fd = stream.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)
        self._buffer = b""
        self._eof = False

    def next(self, deadline: float) -> bytes | None:
        """The next line; b"" once the child has closed its end; None when the deadline passed first."""
        while b"\n" not in self._buffer and not self._eof:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                return None
            chunk = os.read(self._fd, 1 << 16)
            self._eof = not chunk
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def close(self) -> None:
        self._selector.close()


def _end_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the group: anything the learner's code started goes too
    process.wait()


def _why_ended(process: subprocess.Popen[bytes], stderr: Any) -> str:
    code = process.returncode
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        if -code == signal.SIGXCPU:
            return "ran out of CPU time (time limit)"
        return f"was killed by {name}" + (", perhaps for using too much memory" if -code == signal.SIGKILL else "")
    stderr.seek(0)
    last = [line for line in stderr.read().decode("utf-8", "replace").splitlines() if line.strip()][-1:]
    return f"ended with exit status {code} before run_agent returned" + (f" ({last[0][:300]})" if last else "")


def _run_child(source: str, filename: str, scripts: list[Script], limits: Limits,
               workdir: str) -> tuple[str | None, list[dict[str, Any]]]:
    """One child over `scripts`, until it reports them all or one of them ends it."""
    request_path = Path(workdir) / ".request.json"
    cpu_seconds = math.ceil(limits.seconds * (len(scripts) + 1)) + 1
    request_path.write_text(json.dumps({
        "source": source, "filename": filename, "memory_mb": limits.memory_mb, "cpu_seconds": cpu_seconds,
        "scripts": [{"name": script.name, "data": script.to_dict()} for script in scripts]}), encoding="utf-8")
    seen: list[dict[str, Any]] = []
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen([sys.executable, "-m", "agent.exercise.child", str(request_path)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, cwd=workdir,
                                   env=_child_env(), start_new_session=True)
        lines = _Lines(process.stdout)
        phase, deadline = "start", time.monotonic() + START_SECONDS
        try:
            while len(seen) < len(scripts):
                line = lines.next(deadline)
                if line is None:
                    _end_group(process)
                    if phase != "run":
                        return (f"loading the file took longer than {limits.seconds:g} s (time limit)"
                                if phase == "load" else "the sandbox did not start in time"), seen
                    seen.append({"script": scripts[len(seen)].name, "ended": "time_limit",
                                 "message": f"did not finish within {limits.seconds:g} s (time limit)"})
                    return None, seen
                if not line:
                    _end_group(process)
                    why = _why_ended(process, stderr)
                    if phase != "run":
                        return f"the sandbox process {why}", seen
                    ended = "time_limit" if "time limit" in why else "crash"
                    seen.append({"script": scripts[len(seen)].name, "ended": ended, "message": f"the process {why}"})
                    return None, seen
                try:
                    message = json.loads(line)
                except ValueError:  # the learner's code wrote into the report: this child can't be trusted
                    _end_group(process)
                    seen.append({"script": scripts[len(seen)].name, "ended": "crash",
                                 "message": "the sandbox's report could not be read"})
                    return None, seen
                if "load_problem" in message:
                    _end_group(process)
                    return message["load_problem"], seen
                phase = "load" if "ready" in message else "run"
                if "observation" in message:
                    seen.append(message["observation"])
                deadline = time.monotonic() + limits.seconds
            _end_group(process)
        finally:
            lines.close()
            process.stdout.close()
            if process.returncode is None:
                _end_group(process)
    return None, seen


def run_sandboxed(source: str, scripts: list[Script], limits: Limits = Limits(),
                  filename: str = "my_loop.py") -> SandboxRun:
    """Run the learner's file against each script in child processes; a script that ends its child is
    reported as such and the rest go on in a new one."""
    observations: list[dict[str, Any]] = []
    stop_at = time.monotonic() + limits.total_seconds
    with tempfile.TemporaryDirectory(prefix="loop-sandbox-") as workdir:
        while len(observations) < len(scripts):
            if observations and time.monotonic() > stop_at:  # only after a script ended its child
                observations.extend({"script": script.name, "ended": "not_run", "message":
                                     f"not run: the check had already taken over {limits.total_seconds:g} s"}
                                    for script in scripts[len(observations):])
                break
            problem, seen = _run_child(source, filename, scripts[len(observations):], limits, workdir)
            if problem:
                return SandboxRun(problem, [])
            observations.extend(seen)
    return SandboxRun(None, observations)
