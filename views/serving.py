"""What one Streamlit process needs to hold a class, done once a process at the first page run.

Two things `streamlit run` does not do for a class, put right from inside the
process because the page is all a deployment is sure to run (a bare
`streamlit run`, Community Cloud, deploy/start-class.sh, the container):

- Send each Step at once. Streamlit 1.67 binds its listening socket as
  `socket.socket(family)`, protocol 0, so asyncio, which sets TCP_NODELAY
  only on sockets whose protocol is IPPROTO_TCP, leaves Nagle's algorithm on
  for every learner's websocket. A Step's thirty messages then leave in two
  bursts and the second waits for the browser's delayed acknowledgement, about
  40 ms on Linux. Setting TCP_NODELAY on the listening socket puts it on every
  connection accepted later (Linux copies it to the accepted socket); the
  connections already open get it directly. The upstream fix is one line in
  streamlit/web/server/starlette/starlette_server.py `_bind_socket`:
  `sock = socket.socket(family=family, proto=socket.IPPROTO_TCP)`.
- Keep a large class's disconnected sessions. Streamlit keeps at most 128
  sessions whose websocket closed (MemorySessionStorage's maxsize, not a
  config option), so when more than 128 learners drop at once (a class's
  Wi-Fi, laptops closed for a break) the oldest lose their runs before
  `server.disconnectedSessionTTL` has passed. The limit is raised to
  DISCONNECTED_SESSIONS_KEPT; the time stays the config option's.

- Open a class's worth of connections. Streamlit holds three sockets and an
  event descriptor a session, connected or kept after a disconnect, so at the
  usual soft limit of 1024 open files a process stops taking learners near 250
  sessions. The soft limit is raised to the hard one (`allow_open_files`).

And two things for the tail of a large class, both about Python's garbage
collector, which holds the GIL while it runs, so every Step in flight waits:
- A full collection walks every object the process holds. Most of them are the
  code loaded at start (Streamlit, the SDK, pydantic, the page), which lives as
  long as the process; `freeze_loaded_code` moves it where the collector never
  looks.
- Each rerun leaves about a hundred objects of cyclic garbage, all Streamlit's
  (its ScriptRunner, thread and thread pool). At Python's default threshold
  (700) a young collection came every few Steps, caught Steps in flight and
  promoted their objects, so at 300 learners a full collection, walking every
  session, came every 3 s. COLLECT_AFTER objects instead: a fraction of the
  collector's time and far shorter pauses (bench/class_load.py's GC columns).

tests/test_class_hosting.py runs a real `streamlit run` and fails if any of this
stops holding (say, Streamlit moves its socket or its session storage).
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import stat
import threading

OPEN_FILES_UNLIMITED = 1 << 20  # asked for when the hard limit is "unlimited"
COLLECT_AFTER = (5_000, 20, 20)  # gc.set_threshold: new objects before a young collection, then Python's ratios
DISCONNECTED_SESSIONS_KEPT = 2_000  # a few classes' worth; a session in the store is about 0.2 MB
SESSION_STORE_PATH = ("_session_mgr", "_session_storage", "_cache", "_maxsize")  # Streamlit 1.67's insides

SESSION_LOST = ("The connection to the server broke, and the server this page came back to no longer had your "
                "session (its process was restarted or stopped, or you were away longer than it keeps one): this "
                "is a fresh start, and the run you had is gone.")
SESSION_REBUILT = ("The connection to the server broke, and the server this page came back to no longer had your "
                   "session (its process was restarted or stopped, or you were away longer than it keeps one): the "
                   "page replayed its address, so the run is back as its link holds it. Undo's history, a file you "
                   "loaded and a real model's replies are not in a link.")

_done_in_this_process = False
_frozen = threading.Event()
_log = logging.getLogger(__name__)


def hold_a_class() -> None:
    """Once a process: TCP_NODELAY on the server's sockets, room for a class's disconnected sessions, and
    for their open files."""
    global _done_in_this_process
    if _done_in_this_process:
        return
    _done_in_this_process = True
    send_without_delay()
    keep_disconnected_sessions(DISCONNECTED_SESSIONS_KEPT)
    allow_open_files()


def send_without_delay() -> int:
    """TCP_NODELAY on this process's listening TCP sockets and the connections they accepted; how many."""
    sockets = list(_tcp_sockets())
    listening_ports = {sock.getsockname()[1] for sock in sockets if _is_listening(sock)}
    changed = 0
    for sock in sockets:
        if sock.getsockname()[1] in listening_ports:  # the listener, and the connections accepted on its port
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            changed += 1
        sock.close()  # a duplicate of the process's descriptor: the socket itself stays open
    return changed


def freeze_loaded_code(loading: threading.Thread | None) -> threading.Thread | None:
    """Once a process, in the background: when `loading` (the SDK's import) is done, collect, then freeze what
    the process holds, so that later full collections walk only what sessions made, and collect less often
    (COLLECT_AFTER). The thread, or None if this process has already frozen.

    What the first sessions made before the freeze is frozen with the code: it is still freed when its last
    reference goes, only not if it becomes cyclic garbage. A few sessions' worth, once a process.
    """
    if _frozen.is_set():
        return None
    _frozen.set()

    def freeze() -> None:
        if loading is not None:
            loading.join()
        if not serving_here():  # a page test (AppTest) runs the page inside pytest: that process is not ours
            return
        gc.collect()
        gc.freeze()
        gc.set_threshold(*COLLECT_AFTER)

    thread = threading.Thread(target=freeze, daemon=True, name="freeze-loaded-code")
    thread.start()
    return thread


def allow_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit (a class's sockets); the limit now, or
    0 where there is no such limit (Windows)."""
    try:
        import resource  # POSIX only
    except ImportError:
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, OPEN_FILES_UNLIMITED)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:  # e.g. a hard limit the kernel caps lower (macOS)
            _log.warning("could not allow more open files than %s: %s", soft, exc)
            return soft
    return max(wanted, soft)


def keep_disconnected_sessions(count: int) -> bool:
    """Let Streamlit's session store hold `count` disconnected sessions; False (and a warning) if it cannot."""
    from streamlit import runtime

    if not runtime.exists():
        return False
    holder = runtime.get_instance()
    for name in SESSION_STORE_PATH[:-1]:
        holder = getattr(holder, name, None)
    if not isinstance(getattr(holder, SESSION_STORE_PATH[-1], None), int | float):
        _log.warning("Streamlit's session store has changed: the limit of 128 disconnected sessions stays")
        return False
    setattr(holder, SESSION_STORE_PATH[-1], max(getattr(holder, SESSION_STORE_PATH[-1]), count))
    return True


def serving_here() -> bool:
    """Whether this process is a Streamlit server: it listens on the configured port."""
    from streamlit import config

    port = config.get_option("server.port")
    found = False
    for sock in _tcp_sockets():
        found = found or (_is_listening(sock) and sock.getsockname()[1] == port)
        sock.close()
    return found


def came_back_without_its_session() -> bool:
    """True when this tab reconnected asking for an earlier session that this process does not have.

    Streamlit's browser client reconnects with the old session's id as the third entry of the websocket's
    subprotocol header; a process that has that session resumes it (the page's state is still there), one
    that has not starts a new, empty session without a word. The page says so instead.
    """
    import streamlit as st

    entries = [entry.strip() for entry in (st.context.headers.get("Sec-WebSocket-Protocol") or "").split(",")]
    return len(entries) >= 3 and bool(entries[2])


def _tcp_sockets():
    """A duplicate of each TCP socket this process holds (Linux and macOS list them in /dev/fd)."""
    try:
        descriptors = [int(name) for name in os.listdir("/dev/fd")]
    except OSError:
        return
    for fd in descriptors:
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue  # closed meanwhile by another thread
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
            yield sock
        else:
            sock.close()


def _is_listening(sock: socket.socket) -> bool:
    try:
        return bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
    except OSError:
        return False
