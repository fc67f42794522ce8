"""The learner's side of the exercise: a standalone, standard-library-only script that runs their run_agent.

This file is not imported by the project. The judge (`agent.exercise.judge`)
starts it as `python -I -S -u child.py FD [--reaper]`, FD being a socket for
the protocol; its real stdout and stderr are pipes the judge reads, so
whatever the learner's code prints, however it prints, is captured. It holds
nothing worth stealing: no FakeModel, no script, no expected output, no
reference loop, and it cannot import the `agent` package (no site-packages,
no project on its path). All it has is:

- the learner's source, sent over the socket;
- `model`, whose `create(messages, **options)` sends the request out and
  returns the reply the judge sends back (or raises the refusal);
- `run_tool(block)`, which sends the block out and returns the judge's result.

`run_agent` may be `async def` (or return a coroutine): the child then runs it with
`asyncio.run`. Each request and its reply is one exchange on the socket, taken
whole under a lock, so a loop's threads cannot interleave theirs.

Protocol: one JSON object a line, each way. The judge sends `load`, then
`run` for each script, answering `request` with `reply`/`refused`/`finished`
and `tool` with `tool_result`; the child says `loaded` or `load_problem`, and
ends each run with `returned` or `raised`. Nothing the child says is trusted.

With `--reaper` the process first makes itself a child subreaper and forks:
the fork runs the learner's code, and the reaper, once it ends (or on
SIGTERM), kills every descendant left, `setsid` escapees included. The judge
uses this when bubblewrap is not there to end the whole tree.

What the learner's code may not do is `child_guard.py`'s audit hook, beside this file.
"""

import builtins
import gc
import inspect
import json
import os
import signal
import socket
import sys
import threading
import time
import traceback
import types

TEXT_CHARS = 2_000  # an exception's message or a returned value's text, as reported
RETURNED_CHARS = 100_000
TRAIL_LINES = 200  # learner lines remembered between one reply and the next request
MEMORY_RESERVE = 8 << 20  # freed on MemoryError, so the child can still write its report


class BadRequestError(Exception):
    """The model refused the request, as the API answers a 400."""


class ModelFinished(Exception):
    """A request came after the model's last reply."""


class Channel:
    """Newline-delimited JSON over the protocol socket."""

    def __init__(self, fd):
        self._sock = socket.socket(fileno=fd)
        self._buffer = b""
        self._lock = threading.RLock()  # one thread's exchange at a time: a reply goes to the thread that asked

    def send(self, message):
        with self._lock:
            self._sock.sendall(json.dumps(message).encode() + b"\n")

    def receive(self):
        with self._lock:
            while b"\n" not in self._buffer:
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    os._exit(0)  # the judge is gone: nothing left to do
                self._buffer += chunk
            line, _, self._buffer = self._buffer.partition(b"\n")
            return json.loads(line)

    def exchange(self, message):
        """Send one message and return the judge's answer to it, with no other thread's message between."""
        with self._lock:
            self.send(message)
            return self.receive()


def _cut(text, limit=TEXT_CHARS):
    return text if len(text) <= limit else text[:limit] + " ..."


def _flush():
    # What the learner printed before a boundary must reach the pipe before the boundary's message.
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:
            pass


class Trail:
    """The learner's lines run since the model's last reply: where the loop decided to ask again."""

    def __init__(self, filename):
        self.filename = filename
        self.lines = []

    def tracer(self, frame, event, arg):
        if frame.f_code.co_filename != self.filename:
            return None
        return self.local

    def local(self, frame, event, arg):
        if event == "line" and len(self.lines) < TRAIL_LINES:
            self.lines.append(frame.f_lineno)
        return self.local

    def take(self):
        lines, self.lines = self.lines, []
        return lines


def _plain_messages(messages):
    """The messages as the SDK would send them: any iterable of message dicts becomes a JSON array."""
    if isinstance(messages, (list, tuple, str, bytes, dict)) or not hasattr(messages, "__iter__"):
        return messages
    return list(messages)


class Model:
    """The `model` the learner's loop is given: `create` sends the request to the judge."""

    def __init__(self, channel, trail):
        self._channel, self._trail = channel, trail

    def create(self, messages, **options):
        """Send the request; return the reply as a plain dict, or raise the model's refusal."""
        request = {"kind": "request", "messages": _plain_messages(messages), "options": options,
                   "trail": self._trail.take()}
        answer = self._channel.exchange(request)  # a value JSON cannot hold fails here, as it does in the SDK
        self._trail.take()
        if answer.get("kind") == "refused":
            raise BadRequestError(f"Error code: 400 - {answer.get('message')}")
        if answer.get("kind") == "finished":
            raise ModelFinished("the model has finished: there is no reply to give")
        return answer.get("reply")


def _where(exc, filename, lines):
    """An exception as plain data, with the deepest line of the learner's file it came through."""
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == filename:
            line = lineno
    code = lines[line - 1].strip() if line and 0 < line <= len(lines) else ""
    try:
        message = str(exc)
    except Exception:
        message = ""
    return {"type": type(exc).__name__, "message": _cut(message), "line": line, "code": _cut(code, 300)}


def _set_limits(memory_mb, cpu_seconds):
    import resource

    def cap(kind, value):
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, hard))

    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_FSIZE, 1 << 20)  # a file written by mistake stays small
    cap(resource.RLIMIT_CPU, cpu_seconds)  # a backstop: the judge's wall clock acts first
    cap(resource.RLIMIT_AS, memory_mb << 20)


def _install_guard(tracer):
    """The audit hook of `child_guard.py`, loaded from this file's folder (`-I` leaves it off sys.path)."""
    folder = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, folder)
    try:
        import child_guard  # type: ignore[import-not-found]  # the sibling file, on sys.path just above
    finally:
        del sys.path[0]
        sys.path_importer_cache.pop(folder, None)  # nothing else is imported from the child's folder
    roots = {os.path.realpath(path) for path in (sys.prefix, sys.exec_prefix, sys.base_prefix)}
    child_guard.install(roots, tracer, (_where.__code__.co_filename, child_guard.install.__code__.co_filename))


def _load(channel, order, trail):
    """Compile and run the learner's file; return (namespace, filename, lines) or None after saying why not."""
    filename, source = order["filename"], order["source"]
    lines = source.splitlines()
    try:
        code = compile(source, filename, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        channel.send({"kind": "load_problem", "text": f"line {line}: {exc.msg}" if isinstance(exc, SyntaxError)
                      and line else f"the file cannot be compiled ({type(exc).__name__}: {_cut(str(exc))})"})
        return None
    namespace = {"__name__": "learner_loop", "__file__": filename, "__builtins__": builtins,
                 "run_tool": _tool_runner(channel)}
    tracer = trail.tracer
    sys.settrace(tracer)
    threading.settrace(tracer)  # a loop's own threads, asyncio.to_thread's included, are traced as well
    if order.get("guard", True):
        _install_guard(tracer)
    try:
        exec(code, namespace)
    except BaseException as exc:  # noqa: B036  the learner's SystemExit is a problem to report, not our exit
        where = _where(exc, filename, lines)
        at = f" at line {where['line']}" if where["line"] else ""
        channel.send({"kind": "load_problem", "text": f"running the file raised {where['type']}: "
                      f"{where['message']}{at}"})
        return None
    run_agent = namespace.get("run_agent")
    if not callable(run_agent):
        channel.send({"kind": "load_problem", "text": "the file defines no run_agent function"})
        return None
    try:
        inspect.signature(run_agent).bind("task", "model", 40)
    except TypeError:
        channel.send({"kind": "load_problem",
                      "text": "run_agent must take three arguments: run_agent(task, model, max_turns)"})
        return None
    except ValueError:  # a callable without a signature: let the call decide
        pass
    return run_agent, filename, lines


def _tool_runner(channel):
    def run_tool(block):
        """The tool_result block answering one tool_use block, run by the judge."""
        return channel.exchange({"kind": "tool", "block": block}).get("result")

    return run_tool


def _run(channel, run_agent, filename, lines, order, trail):
    """One script: call run_agent, then say what it returned or raised."""
    global _reserve
    _reserve = _reserve or bytearray(MEMORY_RESERVE)
    trail.take()
    try:
        returned = run_agent(order["task"], Model(channel, trail), order["max_turns"])
        if isinstance(returned, types.CoroutineType):  # `async def run_agent`, or one returning a coroutine
            import asyncio

            returned = asyncio.run(returned)
        text = str(returned)
        report = {"kind": "returned", "type": type(returned).__name__, "text": _cut(text, RETURNED_CHARS)}
    except BaseException as exc:  # noqa: B036  the learner's SystemExit or KeyboardInterrupt ends their run only
        memory = isinstance(exc, MemoryError)
        if memory:
            _reserve = None
            gc.collect()
        report = {"kind": "raised", "memory": memory, **_where(exc, filename, lines)}
    _flush()
    channel.send(report)
    gc.collect()


_reserve = None


def worker(fd):
    """Serve the judge over the socket `fd`: load the file, then run each script it names."""
    channel = Channel(fd)
    order = channel.receive()
    _set_limits(order["memory_mb"], order["cpu_seconds"])
    channel.send({"kind": "loading"})  # the load's time limit starts now, not while the sandbox starts up
    trail = Trail(order["filename"])
    loaded = _load(channel, order, trail)
    _flush()
    if loaded is None:
        return
    channel.send({"kind": "loaded"})
    while True:
        order = channel.receive()
        if order.get("kind") != "run":
            return
        _run(channel, *loaded, order, trail)


def _children():
    pids = set()
    try:
        for tid in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{tid}/children") as listing:
                pids.update(int(pid) for pid in listing.read().split())
    except OSError:
        pass
    return pids


def _sweep():
    """Kill every descendant: as subreaper, orphans (setsid or not) become this process's children."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        found = _children()
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG) == (0, 0):
                    break
            except ChildProcessError:
                break
        time.sleep(0.005)


def reaper(fd):
    """Become a child subreaper, run the worker in a fork, then leave no descendant alive."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        # The learner's `import ctypes` must reach the audit hook, not find the reaper's copy already loaded
        # (what of it can still be loaded again raises ctypes events, all refused).
        for name in [name for name in sys.modules if name.partition(".")[0] in ("ctypes", "_ctypes")]:
            del sys.modules[name]
        del ctypes
        worker(fd)
        _flush()
        os._exit(0)
    for own in (0, 1, 2, fd):  # only the worker talks to the judge; EOF then means it is gone
        os.close(own)
    signal.signal(signal.SIGTERM, lambda *_: (os.kill(pid, signal.SIGKILL), _sweep(), os._exit(143)))
    _, status = os.waitpid(pid, 0)
    _sweep()
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    if sys.argv[2:] == ["--reaper"]:
        reaper(int(sys.argv[1]))
    else:
        worker(int(sys.argv[1]))
        _flush()
        os._exit(0)  # a thread the learner's code left running does not keep the process up
