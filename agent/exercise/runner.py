"""Starts the learner's process, walled off as well as this machine allows, and ends it with all it started.

The learner's code runs in `child.py`, a standard-library script started with
`python -I -S` (no site-packages, no environment variables, no project on its
path), an environment holding only `CHILD_ENV`, and three pipes: its real stdout
and stderr, and a socket for the protocol (its descriptor's number is the child's first argument) with the judge.

Two levels of protection, said by `protection()`:

- **bubblewrap** (`/usr/bin/bwrap`, Debian's `bubblewrap`): the child gets its
  own network, PID, IPC, UTS and user namespaces, no capabilities, a read-only
  view of only what Python needs (`/usr`, the `/lib` links, the interpreter's
  prefix, `child.py` and `child_guard.py`), a fresh `/proc` and a minimal
  `/dev`, a private empty `/tmp`, and only `CHILD_ENV` for environment. When
  its first process ends, the kernel ends every other process in its PID
  namespace, so nothing outlives a check.
- **process limits** (no bubblewrap, or one that cannot run here): memory, CPU
  and file-size limits, its own session and process group, and a reaper
  (`child.py --reaper`, a child subreaper) that kills every descendant when the
  child ends, `setsid` escapees included.

In both, the child refuses through the same audit hook (PEP 578, `child_guard.py`,
which bubblewrap shows beside `child.py`) what escapes the process: files
outside Python's own, sockets but an unconnected AF_UNIX pair, new processes,
signals; asyncio, threads and the rest of the standard library run. Under
process limits that hook is the only wall against reading files or opening
sockets, and audit hooks are not a sandbox: code that tries hard enough can get
round one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

CHILD = Path(__file__).resolve().with_name("child.py")
CHILD_INSIDE = "/sandbox/child.py"  # where bubblewrap shows it
GUARD = CHILD.with_name("child_guard.py")  # the child's audit hook, which it loads from its own folder
GUARD_INSIDE = "/sandbox/child_guard.py"
BWRAP = "/usr/bin/bwrap"
MESSAGE_BYTES = 8 << 20  # the largest protocol message the judge reads; a bigger one ends the child
PRINTED_BYTES = 200_000  # what the judge keeps of one script's printed output; the rest is read and dropped
STDERR_BYTES = 20_000
NICE = shutil.which("nice")
# The child's whole environment. One malloc arena for all its threads: each thread's own would reserve 64 MB of
# address space, and a loop's thread pool would run out of its memory limit before it ran out of work.
CHILD_ENV = {"MALLOC_ARENA_MAX": "1"}


@dataclass(frozen=True)
class Limits:
    """What the learner's code may use."""

    seconds: float = 5.0
    """Wall-clock time for loading the file, and again for each script."""
    memory_mb: int = 512
    """Address space of the child process, in MB (the interpreter itself takes about 20)."""
    total_seconds: float = 30.0
    """Once a check has taken this long, scripts still to start are not run (a loop that hangs on every
    script would otherwise keep the person waiting `seconds` times the number of scripts)."""
    isolation: str = "auto"
    """`auto` (bubblewrap when it runs here), `bubblewrap` (required), or `process` (limits and a reaper)."""
    nice: int = 10
    """How much lower than the page's the learner's process's CPU priority is (`nice`): checks take what the
    page leaves, so a class's Steps stay fast while their checks run."""
    audit_guard: bool = True
    """Whether the learner's code also runs under the child's audit hook, which refuses files outside Python's
    own, sockets that could reach anything, new processes and signals (off only to test the walls around it on
    their own)."""


@dataclass(frozen=True)
class Protection:
    """Which wall stands around the learner's code on this machine."""

    kind: str
    """`bubblewrap` or `process limits`."""
    words: str
    """One sentence for the page and the command line."""
    problem: str | None = None
    """Why bubblewrap is not used, in its own words, when it is installed but cannot run."""


def piped(stream: IO[Any] | None) -> IO[Any]:
    """A stream of a process started with it as `subprocess.PIPE` (Popen types it optional for every other case)."""
    assert stream is not None
    return stream


def _python() -> str:
    # The real interpreter, not a virtual environment's link: with -I -S only its standard library is seen.
    return os.path.realpath(sys.executable)


def _python_roots() -> list[str]:
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix),
             str(Path(_python()).parent.parent)}
    return sorted(root for root in roots if root != "/" and not root.startswith("/usr/"))


def _bwrap_args() -> list[str]:
    args = [BWRAP, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL",
            "--uid", "65534", "--gid", "65534", "--ro-bind", "/usr", "/usr"]
    for top in ("/lib", "/lib32", "/lib64", "/libx32", "/bin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for root in _python_roots():
        args += ["--ro-bind", root, root]
    for name, value in CHILD_ENV.items():
        args += ["--setenv", name, value]
    return args + ["--ro-bind", str(CHILD), CHILD_INSIDE, "--ro-bind", str(GUARD), GUARD_INSIDE,
                   "--proc", "/proc", "--dev", "/dev",
                   "--tmpfs", "/tmp", "--chdir", "/tmp", "--"]


PYTHON_FLAGS = ["-I", "-S", "-u", "-X", "utf8", "-B"]


@functools.lru_cache(maxsize=1)
def protection() -> Protection:
    """Bubblewrap if it is installed and runs here (tried once), else process limits, with the reason."""
    if not os.path.exists(BWRAP) and not shutil.which("bwrap"):
        return Protection("process limits", "Your code runs with time and memory limits in a process group of "
                          "its own; install bubblewrap (bwrap) to wall it off from files, network and processes.")
    try:
        tried = subprocess.run([*_bwrap_args(), _python(), *PYTHON_FLAGS, "-c", "pass"], capture_output=True,
                               timeout=20, env={}, stdin=subprocess.DEVNULL)
        problem = None if tried.returncode == 0 else (tried.stderr.decode("utf-8", "replace").strip()
                                                      or f"exit status {tried.returncode}")
    except (OSError, subprocess.TimeoutExpired) as exc:
        problem = str(exc)
    if problem:
        return Protection("process limits", f"bubblewrap is installed but cannot run here ({problem}); your code "
                          "runs with time and memory limits in a process group of its own.", problem)
    return Protection("bubblewrap", "Your code runs inside bubblewrap: no network, no other processes, no files "
                      "but Python's own, read-only, and nothing left running after the check.")


def _isolated(limits: Limits) -> bool:
    if limits.isolation == "process":
        return False
    if protection().kind == "bubblewrap":
        return True
    if limits.isolation == "bubblewrap":
        raise RuntimeError(f"bubblewrap was required but cannot be used: {protection().words}")
    return False


def protection_used(limits: Limits) -> str:
    """The protection a check with these limits runs under: `bubblewrap` or `process limits`."""
    return "bubblewrap" if _isolated(limits) else "process limits"


class ChildProcess:
    """One learner process: the protocol socket, its captured stdout and stderr, and how to end it."""

    def __init__(self, limits: Limits) -> None:
        self.isolated = _isolated(limits)
        ours, theirs = socket.socketpair()
        os.set_inheritable(theirs.fileno(), True)
        fd = str(theirs.fileno())  # the protocol's descriptor keeps its number in the child, which is told it
        # bubblewrap says on --info-fd which pid its sandbox has outside: ending that one ends the sandbox's
        # whole PID namespace, and bwrap exits only once the kernel has emptied it.
        self._info, info_w = os.pipe()
        command = ([*_bwrap_args()[:-1], "--info-fd", str(info_w), "--", _python(), *PYTHON_FLAGS, CHILD_INSIDE,
                    fd] if self.isolated else [_python(), *PYTHON_FLAGS, str(CHILD), fd, "--reaper"])
        if limits.nice and NICE:  # nice execs the command: the same pid, so ending it works as before
            command = [NICE, "-n", str(limits.nice), *command]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=dict(CHILD_ENV), cwd="/",
                                        start_new_session=True, pass_fds=(theirs.fileno(), info_w))
        theirs.close()
        os.close(info_w)
        self._sock = ours
        self._selector = selectors.DefaultSelector()
        for stream, kind in ((ours, "protocol"), (piped(self.process.stdout), "stdout"),
                             (piped(self.process.stderr), "stderr")):
            os.set_blocking(stream.fileno(), False)
            self._selector.register(stream.fileno(), selectors.EVENT_READ, kind)
        self._buffer = b""
        self._printed = bytearray()
        self._printed_cut = False
        self.printed_cut = False
        """Whether the text the last `take_printed` returned lost bytes past PRINTED_BYTES."""
        self.stderr = bytearray()
        self.closed = False
        self.oversized = False
        """Whether the child sent a protocol message larger than MESSAGE_BYTES (then it is not listened to)."""
        self._ended = False

    def send(self, message: bytes) -> None:
        """Send one protocol line; a child that stopped reading is ended later by its deadline."""
        with contextlib.suppress(OSError):
            self._sock.setblocking(True)
            self._sock.sendall(message)
            self._sock.setblocking(False)

    def _read(self, kind: str, fd: int) -> None:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if kind == "protocol":
            self.closed = self.closed or not chunk
            self._buffer += chunk
        elif kind == "stdout":
            room = max(0, PRINTED_BYTES - len(self._printed))
            self._printed += chunk[:room]
            self._printed_cut = self._printed_cut or len(chunk) > room
        else:
            self.stderr += chunk[:max(0, STDERR_BYTES - len(self.stderr))]
        if not chunk:
            self._selector.unregister(fd)

    def next_line(self, deadline: float, tick: Callable[[], None] | None = None) -> bytes | None:
        """The next protocol line; b"" once the child is gone (or sent too much); None when the deadline passed.
        `tick` is called about four times a second while waiting (a page shows progress, or stops the wait by
        raising); the child is not ended here, its owner does that."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > MESSAGE_BYTES:
                self.oversized = True
                return b""
            if self.closed:
                return b""
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready = self._selector.select(min(left, 0.25 if tick else 1.0))
            for key, _ in ready:
                self._read(key.data, key.fd)
            if tick and not ready:
                tick()
        line, _, self._buffer = self._buffer.partition(b"\n")
        self.oversized = len(line) > MESSAGE_BYTES
        return b"" if self.oversized else line

    def take_printed(self) -> str:
        """What the child printed on stdout since the last call: every byte its writes put in the pipe so far."""
        fd = piped(self.process.stdout).fileno()
        with contextlib.suppress(KeyError, ValueError):
            self._selector.get_key(fd)
            self._read("stdout", fd)
            while len(self._printed) < PRINTED_BYTES and self._selector.select(0):
                before = len(self._printed)
                self._read("stdout", fd)
                if len(self._printed) == before:
                    break
        text, self._printed = self._printed.decode("utf-8", "replace"), bytearray()
        self.printed_cut, self._printed_cut = self._printed_cut, False
        return text

    def end(self) -> int | None:
        """End the child and everything it started (once); returns its exit status."""
        process = self.process
        if self._ended:
            return process.returncode
        self._ended = True
        sandbox = self._sandbox_pid() if self.isolated else None
        if sandbox and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(sandbox, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        if process.poll() is None and not self.isolated:
            # The reaper kills the worker and sweeps up every descendant before it exits.
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(3)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self._selector.close()
        self._sock.close()
        piped(process.stdout).close()
        piped(process.stderr).close()
        os.close(self._info)
        return process.returncode

    def _sandbox_pid(self) -> int | None:
        """The pid (outside) of bubblewrap's sandbox, from its --info-fd report; None if it said nothing."""
        os.set_blocking(self._info, False)
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            return int(json.loads(os.read(self._info, 4096)).get("child-pid"))
        return None

    def wait_ended(self, seconds: float = 3.0) -> int | None:
        """Wait for a child that has closed its end to exit; end it if it does not."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(seconds)
        return self.end()


def why_ended(code: int | None, stderr: bytes) -> str:
    """How a child that ended on its own ended, in words."""
    signalled = -code if code is not None and code < 0 else code - 128 if code is not None and code > 128 else None
    if signalled:
        with contextlib.suppress(ValueError):
            name = signal.Signals(signalled).name
            if signalled == signal.SIGXCPU:
                return "ran out of CPU time (time limit)"
            return f"was killed by {name}" + (", perhaps for using too much memory"
                                              if signalled == signal.SIGKILL else "")
    last = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()][-1:]
    return f"ended with exit status {code} before run_agent returned" + (f" ({last[0][:300]})" if last else "")


