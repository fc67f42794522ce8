"""`streamlit` exactly as its command runs, with one question the load benchmark can ask it, and a log.

    python bench/probed_streamlit.py run sandbox_app.py --server.port 8601 ...
    python bench/probed_streamlit.py serve-page --server.port 8601 ...   (the launcher, python -m agent)

How many Streamlit sessions does this process still hold? Outside the process
nothing says (its metrics count connected sessions only). When the file
`$LOAD_PROBE_DIR/<pid>.ask` appears, a thread counts the AppSession objects
alive (weakly remembered as each is made, so one frozen by the process is
counted too; after a full collection, so cyclic garbage is not held) and
writes the count to `<pid>.answer`, with the number of objects frozen out of
the collector's passes and its young threshold (views/launcher.py sets both).
And every pause of Python's cyclic garbage collector (it holds the GIL, so
every Step in flight waits) is written to `<pid>.gc` as
`<monotonic seconds> <generation> <milliseconds>`. Nothing else
about the server changes.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import weakref
from pathlib import Path


def remember_sessions() -> weakref.WeakSet:
    """Every AppSession made from now on, for as long as anything holds it."""
    from streamlit.runtime.app_session import AppSession

    alive: weakref.WeakSet = weakref.WeakSet()
    made = AppSession.__init__

    def remembered(self, *args, **kwargs) -> None:
        made(self, *args, **kwargs)
        alive.add(self)

    AppSession.__init__ = remembered
    return alive


def answer_questions(folder: Path, alive: weakref.WeakSet) -> None:
    ask, answer = folder / f"{os.getpid()}.ask", folder / f"{os.getpid()}.answer"
    while True:
        time.sleep(0.1)
        if not ask.exists():
            continue
        gc.collect()  # cyclic garbage is not held
        ask.unlink()
        answer.with_suffix(".part").write_text(f"{len(alive)} {gc.get_freeze_count()} {gc.get_threshold()[0]}")
        answer.with_suffix(".part").rename(answer)  # whole, or not there yet


def ask(pid: int, folder: Path, timeout: float = 60) -> tuple[int, int, int]:
    """From outside: the sessions process `pid` holds, the objects it has frozen, and its garbage collector's
    young threshold."""
    answer = folder / f"{pid}.answer"
    (folder / f"{pid}.ask").touch()
    deadline = time.monotonic() + timeout
    while not answer.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"process {pid} did not answer within {timeout}s")
        time.sleep(0.1)
    held, frozen, threshold = map(int, answer.read_text().split())
    answer.unlink()
    return held, frozen, threshold


def log_collections(log: Path) -> None:
    began = [0.0]

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            began[0] = time.monotonic()
        else:
            with log.open("a") as out:
                out.write(f"{began[0]:.4f} {info['generation']} {(time.monotonic() - began[0]) * 1000:.2f}\n")

    gc.callbacks.append(timed)


if __name__ == "__main__":
    if "LOAD_PROBE_DIR" in os.environ:
        folder = Path(os.environ["LOAD_PROBE_DIR"])
        threading.Thread(target=answer_questions, args=(folder, remember_sessions()), daemon=True).start()
        log_collections(folder / f"{os.getpid()}.gc")
    if sys.argv[1:2] == ["serve-page"]:
        from agent.__main__ import main as agent_main

        sys.exit(agent_main(sys.argv[1:]))
    from streamlit.web.cli import main

    sys.exit(main(prog_name="streamlit"))
