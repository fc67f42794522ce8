"""`python -m agent serve-page`: `streamlit run sandbox_app.py` with the process tuned to hold a class.

What it does, and why, with the measurements and the one-line fix upstream: docs/hosting.md. In short:
TCP_NODELAY on Streamlit's listening socket (every Step sent at once), room for 2,000 disconnected sessions
(Streamlit keeps 128), the soft limit of open files raised to the hard one, and the code loaded at start
frozen out of the garbage collector's walks, with young collections less often. A plain `streamlit run`
serves the same page untuned. tests/test_class_hosting.py fails if any of this stops holding.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

OPEN_FILES_UNLIMITED = 1 << 20  # asked for when the hard limit is "unlimited"
COLLECT_AFTER = (5_000, 20, 20)  # gc.set_threshold: new objects before a young collection, then Python's ratios
DISCONNECTED_SESSIONS_KEPT = 2_000  # a few classes' worth; a session in the store is about 0.2 MB
SESSION_STORE_PATH = ("_session_mgr", "_session_storage", "_cache", "_maxsize")  # Streamlit 1.67's insides
THE_PAGE = Path(__file__).resolve().parent.parent / "sandbox_app.py"

_log = logging.getLogger(__name__)


class StreamlitOptionError(ValueError):
    """An option `streamlit run` refuses, in Streamlit's words."""


def serve_page(page: Path, streamlit_options: Sequence[str]) -> int:
    """Tune this process, then run `streamlit run page *streamlit_options` in it until it is stopped."""
    from streamlit.web import bootstrap, cli

    allow_open_files()
    freeze_loaded_code()
    started = bootstrap._on_server_start  # the first moment the socket listens and the runtime exists

    def tuned_on_start(server: Any) -> None:
        send_without_delay()  # before the event loop accepts its first connection
        keep_disconnected_sessions(DISCONNECTED_SESSIONS_KEPT)
        started(server)

    bootstrap._on_server_start = tuned_on_start
    try:
        cli.main(["run", str(page), *streamlit_options], prog_name="streamlit", standalone_mode=False)
    except Exception as exc:
        said = getattr(exc, "format_message", None)  # a click error (a bad option) says itself so
        if not callable(said):
            raise
        raise StreamlitOptionError(said()) from None
    finally:
        bootstrap._on_server_start = started
    return 0


def freeze_loaded_code() -> None:
    """Load what the page runs on, collect, then freeze it, so later full collections walk only what sessions
    make; and collect less often (COLLECT_AFTER)."""
    import anthropic  # noqa: F401  (the real model's SDK, the largest)
    import streamlit  # noqa: F401

    import agent.exercise  # noqa: F401
    import agent.page  # noqa: F401
    import agent.real  # noqa: F401

    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECT_AFTER)


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
    holder: Any = runtime.get_instance()
    for name in SESSION_STORE_PATH[:-1]:
        holder = getattr(holder, name, None)
    if not isinstance(getattr(holder, SESSION_STORE_PATH[-1], None), int | float):
        _log.warning("Streamlit's session store has changed: the limit of 128 disconnected sessions stays")
        return False
    setattr(holder, SESSION_STORE_PATH[-1], max(getattr(holder, SESSION_STORE_PATH[-1]), count))
    return True


def _tcp_sockets() -> Iterator[socket.socket]:
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
