"""`streamlit` exactly as its command runs, with one question the load benchmark can ask it.

    python bench/probed_streamlit.py run sandbox_app.py --server.port 8601 ...

How many Streamlit sessions does this process still hold? Outside the process
nothing says (its metrics count connected sessions only). When the file
`$LOAD_PROBE_DIR/<pid>.ask` appears, a thread counts the AppSession objects
alive (after a full collection, so cyclic garbage is not counted as held) and
writes the count to `<pid>.answer`. Nothing else about the server changes.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from pathlib import Path


def answer_questions(folder: Path) -> None:
    ask, answer = folder / f"{os.getpid()}.ask", folder / f"{os.getpid()}.answer"
    while True:
        time.sleep(0.1)
        if not ask.exists():
            continue
        from streamlit.runtime.app_session import AppSession

        gc.collect()
        held = sum(1 for thing in gc.get_objects() if isinstance(thing, AppSession))
        ask.unlink()
        answer.write_text(str(held))


if __name__ == "__main__":
    if "LOAD_PROBE_DIR" in os.environ:
        threading.Thread(target=answer_questions, args=(Path(os.environ["LOAD_PROBE_DIR"]),), daemon=True).start()
    from streamlit.web.cli import main

    sys.exit(main(prog_name="streamlit"))
