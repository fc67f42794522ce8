"""The stand-in server under a class: many streaming clients at once, on loopback.

Starts `python -m agent serve` on a script whose one reply streams as about 70
server-sent events, then opens CLIENTS connections at once, each sending ROUNDS
streaming requests one after another on its kept-alive connection and reading
every answer to its `message_stop` event. Prints, per run: the time to
connect, each request's latency (sent to last byte) p50 / p95 / max, requests
a second, errors, and the server process's CPU a request (and how much of one
core it got while loaded: on a shared machine the wall-clock figures follow it),
peak memory and threads. With `--before COMMIT` the same load also meets the
server as it was at that commit (its `agent/` and `scripts/` unpacked with `git
archive` into a temporary folder and served from there), the two taking turns
`--repeats` times, and the ratios after / before of the medians are printed.

Bounded: a time limit on each run; every socket is to 127.0.0.1.

    python bench/standin_load.py [--clients 500] [--rounds 4] [--repeats 3] [--before f47e865]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIME_LIMIT = 240.0  # seconds for one run, connecting included
ANSWER = ("The stand-in plays this reply to every client in the class, word by word, as the Messages API streams "
          "a text block: one content block delta an event, so a client reads about seventy events before the "
          "message stops, and the server writes each of them on its own, as a real stream arrives over time.")
SCRIPT = {"title": "One long streamed answer", "tools": [],
          "replies": [{"stop_reason": "end_turn", "content": [{"type": "text", "text": ANSWER}]}]}
BODY = json.dumps({"model": "m", "max_tokens": 400, "stream": True,
                   "messages": [{"role": "user", "content": "Say the long answer."}]}).encode()


def request_bytes(port: int) -> bytes:
    return (f"POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nx-api-key: k\r\n"
            f"anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n"
            f"content-length: {len(BODY)}\r\n\r\n").encode() + BODY


@dataclass
class Run:
    connects: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    client_cpu_seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    threads: int = 0


async def read_stream(reader: asyncio.StreamReader) -> bytes:
    """One chunked answer, read in large pieces (so the client costs far less than the server it loads) up to the
    last chunk; ValueError when it is not a 200 event stream that ends with `message_stop`."""
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise ValueError(head.split(b"\r\n", 1)[0].decode("latin-1"))
    body = bytearray()
    while not body.endswith(b"\r\n0\r\n\r\n"):  # JSON escapes a newline, so only the last chunk ends so
        piece = await reader.read(65536)
        if not piece:
            raise ValueError("the connection closed in the middle of the stream")
        body += piece
    if b'"type": "message_stop"' not in body[-200:]:
        raise ValueError("the stream ended without message_stop")
    return bytes(body)


async def client(port: int, rounds: int, start: asyncio.Event, run: Run) -> None:
    await start.wait()
    began = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        run.errors.append(f"connect: {exc}")
        return
    run.connects.append(time.perf_counter() - began)
    request = request_bytes(port)
    try:
        for _ in range(rounds):
            sent = time.perf_counter()
            writer.write(request)
            await read_stream(reader)
            run.latencies.append(time.perf_counter() - sent)
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
        run.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        writer.close()


def proc_figures(pid: int) -> tuple[float, float, int]:
    """CPU seconds used so far, peak RSS in MB, threads: from /proc."""
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return cpu, int(status["VmHWM"].split()[0]) / 1024, int(status["Threads"])


def serve(folder: Path, script_path: Path) -> tuple[subprocess.Popen, int]:
    """`python -m agent serve` from `folder`'s code, on a free port; its log drained by a thread."""
    process = subprocess.Popen([sys.executable, "-m", "agent", "serve", str(script_path), "--port", "0"],
                               cwd=folder, env={**os.environ, "PYTHONPATH": str(folder)}, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Base URL: "):
            port = int(line.rsplit(":", 1)[1])
            break
    else:
        raise RuntimeError(f"the server in {folder} did not start")
    threading.Thread(target=lambda: sum(1 for _ in process.stdout), daemon=True).start()  # a full pipe would stall it
    return process, port


async def load(port: int, clients: int, rounds: int, run: Run) -> None:
    start = asyncio.Event()
    tasks = [asyncio.create_task(client(port, rounds, start, run)) for _ in range(clients)]
    await asyncio.sleep(0.2)  # every client waiting at the start line
    began, cpu = time.perf_counter(), time.process_time()
    start.set()
    done, pending = await asyncio.wait(tasks, timeout=TIME_LIMIT)
    run.seconds, run.client_cpu_seconds = time.perf_counter() - began, time.process_time() - cpu
    for task in pending:
        task.cancel()
        run.errors.append(f"still running after {TIME_LIMIT:g} s")


def measure(folder: Path, script_path: Path, clients: int, rounds: int) -> Run:
    process, port = serve(folder, script_path)
    run = Run()
    try:
        asyncio.run(load(port, 1, 3, Run()))  # warm: imports done, first answers given
        cpu_before, _, _ = proc_figures(process.pid)
        loaded = threading.Event()
        sampler = threading.Thread(target=sample_threads, args=(process.pid, loaded, run), daemon=True)
        sampler.start()
        asyncio.run(load(port, clients, rounds, run))
        loaded.set()
        sampler.join()
        cpu_after, run.peak_rss_mb, _ = proc_figures(process.pid)
        run.cpu_seconds = cpu_after - cpu_before
    finally:
        process.terminate()
        process.wait(timeout=60)
    return run


def sample_threads(pid: int, loaded: threading.Event, run: Run) -> None:
    """The most threads the server ran at once, looked at every 50 ms while the load runs."""
    while not loaded.wait(0.05):
        run.threads = max(run.threads, proc_figures(pid)[2])


def ms(values: list[float], part: float | None = None) -> str:
    if not values:
        return "-"
    return f"{(statistics.median(values) if part is None else share(values, part)) * 1000:.0f}"


def summary(name: str, run: Run, clients: int, rounds: int) -> str:
    answered = len(run.latencies)
    return (f"{name}: connect p50 {ms(run.connects)} / p95 {ms(run.connects, 0.95)} / max "
            f"{max(run.connects, default=0) * 1000:.0f} ms; request p50 {ms(run.latencies)} / p95 "
            f"{ms(run.latencies, 0.95)} / max {max(run.latencies, default=0) * 1000:.0f} ms; "
            f"{answered / run.seconds:.0f} requests/s ({answered} of {clients * rounds} in {run.seconds:.1f} s); "
            f"errors {len(run.errors)}; server CPU {run.cpu_seconds / max(answered, 1) * 1000:.2f} ms a request "
            f"({run.cpu_seconds / run.seconds:.0%} of one core while loaded), "
            f"peak RSS {run.peak_rss_mb:.0f} MB, at most {run.threads} threads; the clients' CPU "
            f"{run.client_cpu_seconds / max(answered, 1) * 1000:.2f} ms a request")


def unpacked(commit: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", commit, "agent", "scripts"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=4, help="streaming requests each client sends in turn")
    parser.add_argument("--before", metavar="COMMIT", help="also load the server as it was at this commit")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each server, taken in turns")
    args = parser.parse_args()
    if not 1 <= args.clients <= 2000 or not 1 <= args.rounds <= 50 or not 1 <= args.repeats <= 10:
        parser.error("--clients must be 1 to 2000, --rounds 1 to 50 and --repeats 1 to 10: the load stays bounded")
    with tempfile.TemporaryDirectory(prefix="standin-load-") as folder:
        script_path = Path(folder) / "long_answer.json"
        script_path.write_text(json.dumps(SCRIPT))
        events = len(ANSWER.split()) + 6
        print(f"stand-in load: {args.clients} streaming clients at once x {args.rounds} requests each on a kept-alive "
              f"connection; each answer about {events} events; loopback, {os.cpu_count()} cores shared")
        before_folder = unpacked(args.before, Path(folder) / "before") if args.before else None
        afters, befores = [], []
        for _ in range(args.repeats):  # in turns, so a change in the machine's load meets both alike
            afters.append(measure(ROOT, script_path, args.clients, args.rounds))
            print(summary("after (uvicorn + Starlette)", afters[-1], args.clients, args.rounds))
            for error in sorted(set(afters[-1].errors))[:5]:
                print(f"  error: {error}")
            if before_folder is None:
                continue
            befores.append(measure(before_folder, script_path, args.clients, args.rounds))
            print(summary(f"before ({args.before}, http.server)", befores[-1], args.clients, args.rounds))
            for error in sorted(set(befores[-1].errors))[:5]:
                print(f"  error: {error}")
        if befores:
            ratios = ", ".join(f"{label} {median_of(figure, afters) / median_of(figure, befores):.2f}x"
                               for label, figure in FIGURES)
            print(f"after / before, medians of {args.repeats} runs each, in turns: {ratios}")


def median_of(figure: Callable[[Run], float], runs: list[Run]) -> float:
    return statistics.median(figure(run) for run in runs) or float("nan")


def share(values: list[float], part: float) -> float:
    ordered = sorted(values) or [0.0]
    return ordered[min(len(ordered) - 1, int(part * len(ordered)))]


FIGURES = [("request p50", lambda run: statistics.median(run.latencies or [0.0])),
           ("request p95", lambda run: share(run.latencies, 0.95)),
           ("request max", lambda run: max(run.latencies, default=0.0)),
           ("connect max", lambda run: max(run.connects, default=0.0)),
           ("requests/s", lambda run: len(run.latencies) / run.seconds),
           ("server CPU a request", lambda run: run.cpu_seconds / max(len(run.latencies), 1))]


if __name__ == "__main__":
    main()
