"""The servers of bench/class_load.py: one `streamlit run`, or K behind HAProxy, and what is read from them.

Every figure is read from outside the processes (/proc: RSS, CPU time, time
waiting for a core) or through bench/probed_streamlit.py (the sessions a
process holds, the garbage collector's pauses), so the servers run as they
would for a class.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from pathlib import Path

from browser_support import ClassSet, SandboxServer
from probed_streamlit import ask
from streamlit_session import server_tcp_sockets

PROBE = [str(Path(__file__).resolve().parent / "probed_streamlit.py")]


def process_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def runqueue_wait_seconds(pid: int) -> float:
    """How long the process's main thread (Streamlit's event loop) has waited for a free core, in all."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


class OneProcess:
    """One process of the page, as the launcher (`python -m agent serve-page`) serves it."""

    def __init__(self, app: Path, options: list[str], probe_dir: Path) -> None:
        self.server = SandboxServer(app, options=options, streamlit=PROBE, tuned=True,
                                    env={"LOAD_PROBE_DIR": str(probe_dir)})
        self.server.__enter__()
        self.url = self.server.url
        self.backends = {"st1": self.url}
        self.pids = [self.server.process.pid]

    def stop(self) -> None:
        self.server.stop()


def proxy_set(app: Path, options: list[str], probe_dir: Path, k: int) -> ClassSet:
    """deploy/start-class.sh: K processes of the page behind HAProxy, all on loopback, each probed."""
    running = ClassSet(k, Path(tempfile.mkdtemp(prefix="class-load-")), app, options, streamlit=PROBE,
                       env={"LOAD_PROBE_DIR": str(probe_dir)})
    try:
        running.wait_until_healthy()
    except BaseException:
        running.stop()
        raise
    return running


def as_streamlit_ships_it(pid: int) -> None:
    """Take back what views/launcher.py did to the server's listening socket: Nagle's algorithm on again."""
    for sock in server_tcp_sockets(pid):
        if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
        sock.close()


def settle(pids: list[int], timeout: float = 60) -> float:
    """Until the processes are idle (under 2 % of a core over a second); the share of a core they use idle."""
    deadline = time.monotonic() + timeout
    while True:
        before = sum(process_cpu_seconds(pid) for pid in pids)
        time.sleep(1.0)
        idle = sum(process_cpu_seconds(pid) for pid in pids) - before
        if idle < 0.02 or time.monotonic() > deadline:
            return idle


def sessions_held(pids: list[int], probe_dir: Path) -> int:
    return sum(ask(pid, probe_dir)[0] for pid in pids)


class CpuSampler:
    """The processes' CPU time, read every quarter second in a thread: what they spent between two moments."""

    def __init__(self, pids: list[int]) -> None:
        self.pids, self.samples, self.stopped = pids, [], threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        while not self.stopped.wait(0.25):
            self.samples.append((time.monotonic(), sum(process_cpu_seconds(pid) for pid in self.pids)))

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join()

    def between(self, start: float, end: float) -> float:
        inside = [cpu for at, cpu in self.samples if start <= at <= end]
        return inside[-1] - inside[0] if len(inside) >= 2 else float("nan")


def collector_pauses(pids: list[int], probe_dir: Path, window: tuple[float, float]) -> list[float]:
    """Every pause of the servers' garbage collector inside the window, in ms (bench/probed_streamlit.py logs them)."""
    pauses = []
    for pid in pids:
        log = probe_dir / f"{pid}.gc"
        for line in log.read_text().splitlines() if log.exists() else []:
            began, _generation, ms = line.split()
            if window[0] <= float(began) < window[1]:
                pauses.append(float(ms))
    return pauses
