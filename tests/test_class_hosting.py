"""One process holds a class: a real `python -m agent serve-page` (the launcher), driven over its websocket.

views/launcher.py reaches under Streamlit 1.67 (its listening socket, its
session store); these tests fail when that stops holding. The sockets are read
from the server process itself: pidfd_getfd (Linux 5.6+) hands the test a
duplicate of each of the server's descriptors, so the test asks the kernel what
the server's accepted websocket really has.
"""

from __future__ import annotations

import asyncio
import re
import resource
import socket
import sys
import time
import tomllib
from pathlib import Path

import pytest
from browser_support import ROOT, SandboxServer
from streamlit_session import StreamlitSession, server_tcp_sockets
from test_exercise import CORRECT_LOOP

from views.launcher import COLLECT_AFTER, DISCONNECTED_SESSIONS_KEPT

sys.path.insert(0, str(ROOT / "bench"))
from probed_streamlit import ask  # noqa: E402  (the load benchmark's probe of a server's sessions)

RUNAWAY = "A runaway model that never stops"


def nodelay_of_connection(pid: int, client_port: int) -> int:
    """TCP_NODELAY of the server's end of the connection from `client_port`."""
    try:
        sockets = server_tcp_sockets(pid)
    except OSError as exc:
        pytest.fail(f"reading the server's sockets: {exc} (the test needs to read its own child's sockets: Linux "
                    "5.6 or later, ptrace not forbidden)")
    try:
        ends = [s for s in sockets if peer_port(s) == client_port]
        assert len(ends) == 1, f"the server holds {len(ends)} connections from port {client_port}"
        return ends[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        for s in sockets:
            s.close()


def peer_port(sock: socket.socket) -> int | None:
    try:
        return sock.getpeername()[1]
    except OSError:  # the listening socket
        return None


def client_port(session: StreamlitSession) -> int:
    return session._socket.local_address[1]


@pytest.fixture(scope="module")
def sandbox():
    with SandboxServer(tuned=True) as server:
        yield server


def test_every_learners_websocket_is_sent_without_delay(sandbox):
    """The first learner's connection (open before the page ever ran) and a later one both have TCP_NODELAY."""

    async def learners():
        first = await StreamlitSession.open(sandbox.url)
        second = await StreamlitSession.open(sandbox.url)
        try:
            return [nodelay_of_connection(sandbox.process.pid, client_port(s)) for s in (first, second)]
        finally:
            await first.close()
            await second.close()

    assert asyncio.run(learners()) == [1, 1]


def test_plain_streamlit_run_serves_the_page_untuned(tmp_path):
    """The README's `streamlit run sandbox_app.py` serves the same page, with none of the launcher's tuning: the
    code is not frozen, the collector keeps Python's threshold, and the websocket has Nagle's algorithm on.

    If the last fails, Streamlit sets TCP_NODELAY itself now: views/launcher.py's socket part can go.
    """
    probe = [str(ROOT / "bench" / "probed_streamlit.py")]

    async def learner(url):
        session = await StreamlitSession.open(url)
        try:
            await session.rerun(session.pick("Script", RUNAWAY))
            await session.rerun(*session.step())
            return session.last_texts, nodelay_of_connection(server.process.pid, client_port(session))
        finally:
            await session.close()

    with SandboxServer(streamlit=probe, env={"LOAD_PROBE_DIR": str(tmp_path)}) as server:
        texts, nodelay = asyncio.run(learner(server.url))
        _, frozen, threshold = ask(server.process.pid, tmp_path)
    assert any(text.startswith("turn 1 of 40") for text in texts), texts
    assert (frozen, threshold, nodelay) == (0, 700, 0)


def test_a_learner_dropped_with_a_class_of_others_gets_their_run_back(sandbox):
    """More than Streamlit's 128 disconnected sessions at once: the first to drop still resumes its run."""
    others = 140
    assert DISCONNECTED_SESSIONS_KEPT > others

    async def class_drops_and_one_comes_back():
        learner = await StreamlitSession.open(sandbox.url)
        await learner.rerun(learner.pick("Script", RUNAWAY))
        for _ in range(2):
            await learner.rerun(*learner.step())
        await learner.close()
        for _ in range(others):  # each opens a session and drops it; the store keeps the most recent
            other = await StreamlitSession.open(sandbox.url, run=False)
            await other.close()
        await asyncio.sleep(0.5)  # the server notices the last closes
        back = await StreamlitSession.open(sandbox.url, existing_session=learner.session_id,
                                           query_string=learner.query_string)
        try:
            return learner.session_id, back.session_id, back.last_texts
        finally:
            await back.close()

    before, after, texts = asyncio.run(class_drops_and_one_comes_back())
    assert after == before
    assert any(text.startswith("turn 2 of 40") for text in texts), texts


def test_the_code_loaded_at_start_leaves_the_collectors_walk_and_sessions_are_still_freed(tmp_path):
    """The launcher freezes what the process loaded (the SDK included) before it serves, and collects less
    often; the sessions of a class that come and go afterwards are still collected once their time is up."""
    probe = [str(ROOT / "bench" / "probed_streamlit.py")]

    async def class_comes_and_goes(url: str) -> None:
        learners = [await StreamlitSession.open(url) for _ in range(5)]
        for learner in learners:
            await learner.rerun(learner.pick("Script", RUNAWAY))
            await learner.rerun(*learner.step())
        for learner in learners:  # all at once: a time-out of one second must not start while others still step
            await learner.close()

    with SandboxServer(options=["--server.disconnectedSessionTTL", "1"], streamlit=probe, tuned=True,
                       env={"LOAD_PROBE_DIR": str(tmp_path)}) as server:
        _, frozen, threshold = ask(server.process.pid, tmp_path)  # before any learner came
        assert frozen > 100_000, f"{frozen} objects frozen: the SDK, Streamlit and pydantic alone are more"
        assert threshold == COLLECT_AFTER[0]
        asyncio.run(class_comes_and_goes(server.url))
        assert ask(server.process.pid, tmp_path)[0] >= 5  # disconnected, kept for their time-out
        time.sleep(2)
        asyncio.run(visit_and_leave(server.url))  # Streamlit drops expired sessions when another disconnects
        time.sleep(0.5)
        held = ask(server.process.pid, tmp_path)[0]
        assert held <= 2, f"{held} sessions still held after their time-out (the first visitor's may be frozen)"


async def visit_and_leave(url: str) -> None:
    session = await StreamlitSession.open(url)
    await session.close()


# ---- the exercise, reached by its URL path ------------------------------------------------------------------

SLOW_CORRECT_LOOP = "import time\ntime.sleep(0.4)\n\n" + CORRECT_LOOP  # a check long enough to queue behind
PLACE = re.compile(r"(\d+) checks? ahead of yours")
ALL_PASS = re.compile(r"\*\*(\d+) of \1 scripts pass: well done\.\*\*")


async def open_exercise_with(url: str, code: str) -> tuple[StreamlitSession, list]:
    learner = await StreamlitSession.open(url, page="write-your-loop")
    typed = learner.type("my_loop.py", code)
    await learner.rerun(typed)  # the code box loses focus, as a browser's does before the click
    return learner, typed


def test_a_learner_opened_on_the_exercise_stays_there_and_their_check_passes(sandbox):
    """The exercise's URL path names the page in the first run; every later run asks for that page again."""

    async def learner_checks():
        learner, typed = await open_exercise_with(sandbox.url, CORRECT_LOOP)
        try:
            states, _ = learner.press("Check my loop")
            outcome = await learner.rerun(typed + states)
            return outcome.texts
        finally:
            await learner.close()

    texts = asyncio.run(learner_checks())
    assert any(ALL_PASS.match(text) for text in texts), texts[:5]


@pytest.fixture(scope="module")
def one_slot():
    """The page with one check slot: a second check waits for the first."""
    with SandboxServer(env={"LOOP_SANDBOX_CHECK_SLOTS": "1"}) as server:
        yield server


def test_four_learners_pressing_check_at_once_are_told_their_places_and_all_pass(one_slot):
    """One slot, four checks pressed together: the page tells the later ones their places as the queue moves."""

    async def class_checks():
        learners = [await open_exercise_with(one_slot.url, SLOW_CORRECT_LOOP) for _ in range(4)]
        try:
            outcomes = await asyncio.gather(*(learner.rerun(typed + learner.press("Check my loop")[0])
                                              for learner, typed in learners))
            return [outcome.texts for outcome in outcomes]
        finally:
            for learner, _ in learners:
                await learner.close()

    seen = asyncio.run(class_checks())
    assert all(any(ALL_PASS.match(text) for text in texts) for texts in seen)
    places = [[int(match.group(1)) for text in texts if (match := PLACE.search(text))] for texts in seen]
    # The last saw the others before theirs: two once the first is running, three if all four queued before it began.
    assert 2 <= max(max(shown, default=0) for shown in places) <= 3, places
    assert all(shown == sorted(shown, reverse=True) for shown in places), places  # and never moved back


def test_a_process_started_with_the_usual_1024_open_files_allows_a_class_of_them():
    """Streamlit holds three sockets and an event descriptor a session: 1024 open files would stop near 250."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 1024:
        pytest.skip(f"this machine's hard limit of open files is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))  # the server inherits the usual soft limit
    try:
        with SandboxServer(tuned=True) as server:
            limits = (Path(f"/proc/{server.process.pid}/limits")).read_text()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    row = next(line for line in limits.splitlines() if line.startswith("Max open files"))
    allowed = row.split()[3]
    assert allowed == ("unlimited" if hard == resource.RLIM_INFINITY else str(hard)) or int(allowed) > 1024, row


def test_a_step_does_not_pay_for_watching_the_pages_source():
    """After every run, Step included, Streamlit's file watcher walks every module the process has loaded
    (13 % of a Step's server time in a py-spy profile under load). The page is served with it off; the browser
    tests turn it off on their own command line, so only the settings file says what a class gets."""
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert settings["server"]["fileWatcherType"] == "none"
