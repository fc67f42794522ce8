"""The servers of bench/class_load.py: one `streamlit run`, or K behind HAProxy, and what is read from them.

Every figure is read from outside the processes (/proc: RSS, CPU time, time
waiting for a core) or through bench/probed_streamlit.py (the sessions a
process holds, the garbage collector's pauses), so the servers run as they
would for a class.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from browser_support import ROOT, SandboxServer, consecutive_free_ports, free_port
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


def wait_healthy(url: str, timeout: float = 60, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the start script exited with {process.returncode} before {url} was healthy")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer /_stcore/health within {timeout}s")


class OneProcess:
    """One `streamlit run` of the page."""

    def __init__(self, app: Path, options: list[str], probe_dir: Path) -> None:
        self.server = SandboxServer(app, options=options, streamlit=PROBE, env={"LOAD_PROBE_DIR": str(probe_dir)})
        self.server.__enter__()
        self.url = self.server.url
        self.backends = [self.url]
        self.pids = [self.server.process.pid]

    def stop(self) -> None:
        self.server.stop()


class ProxySet:
    """deploy/start-class.sh: K processes of the page behind HAProxy, all on loopback."""

    def __init__(self, app: Path, options: list[str], probe_dir: Path, k: int) -> None:
        self.run_dir = Path(tempfile.mkdtemp(prefix="class-load-"))
        first = consecutive_free_ports(k)
        proxy_port = free_port()
        env = {**os.environ, "K": str(k), "APP": str(app), "PROXY_PORT": str(proxy_port),
               "BACKEND_PORT": str(first), "RUN_DIR": str(self.run_dir), "LOAD_PROBE_DIR": str(probe_dir),
               "STREAMLIT": " ".join([sys.executable, *PROBE])}
        self.script = subprocess.Popen([str(ROOT / "deploy" / "start-class.sh"), *options], env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        self.url = f"http://127.0.0.1:{proxy_port}"
        self.backends = [f"http://127.0.0.1:{first + i}" for i in range(k)]
        try:
            for url in self.backends + [self.url]:
                wait_healthy(url, process=self.script)
        except BaseException:
            self.stop()
            raise
        self.pids = [int((self.run_dir / f"st{i}.pid").read_text()) for i in range(1, k + 1)]

    def stop(self) -> None:
        self.script.send_signal(signal.SIGTERM)  # the script stops its processes and HAProxy
        try:
            self.script.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.script.pid, signal.SIGKILL)
            self.script.wait()


def as_streamlit_ships_it(pid: int) -> None:
    """Take back what views/serving.py did to the server's listening socket: Nagle's algorithm on again."""
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
