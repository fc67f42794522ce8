"""A check run in a process of its own (agent/exercise/check_process.py): the same verdicts, nothing left behind.

Every process here is found through /proc as a descendant of this test's own
process (tests/process_support.py), so checks run elsewhere are never counted.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from process_support import descendants_of, running
from test_exercise import CORRECT_LOOP, LIMIT_MESSAGE, with_bug

from agent.exercise import ExerciseError, iter_check, iter_check_apart
from agent.exercise.check_process import _environment

FOREVER = "def run_agent(task, model, max_turns=10):\n    while True:\n        pass\n"


def test_the_verdicts_are_those_of_the_check_in_process():
    wrong = with_bug((LIMIT_MESSAGE, '    return "gave up"\n'))
    for source in (CORRECT_LOOP, wrong):
        assert list(iter_check_apart(source)) == list(iter_check(source))


def test_a_file_that_cannot_be_checked_is_said_in_words():
    assert list(iter_check_apart("def run_agent(:\n")) == ["line 1: invalid syntax"]


def test_a_check_whose_process_breaks_says_so_in_words(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/nowhere")
    monkeypatch.setattr(sys, "executable", "/bin/false")  # the check's process ends at once, saying nothing
    with pytest.raises(ExerciseError, match="the check stopped before it finished"):
        list(iter_check_apart(CORRECT_LOOP))


def test_a_check_stopped_midway_ends_its_process_and_the_learners():
    seen, started = [], time.monotonic()

    def tick():
        seen.extend(descendants_of(os.getpid()))
        if time.monotonic() - started > 2.0:
            raise KeyboardInterrupt  # what Streamlit's stop of the run does from inside `tick`

    with pytest.raises(KeyboardInterrupt):
        list(iter_check_apart(FOREVER, tick=tick))
    assert len(set(seen)) >= 2, "the check's process and the learner's were never seen"
    deadline = time.monotonic() + 10
    while running(list(set(seen))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert running(list(set(seen))) == []


def test_the_checks_process_ends_when_the_pages_process_dies(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(textwrap.dedent(f"""
        import sys
        sys.path[:0] = {sys.path!r}
        from agent.exercise import iter_check_apart
        list(iter_check_apart({FOREVER!r}))
    """))
    standing_in = subprocess.Popen([sys.executable, str(page)])
    try:
        deadline = time.monotonic() + 20
        while len(below := descendants_of(standing_in.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(below) >= 2, "the check never started"
    finally:
        standing_in.send_signal(signal.SIGKILL)
        standing_in.wait()
    deadline = time.monotonic() + 3  # sooner than the learner's own time limit (5 s) would end it
    while running(below) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert running(below) == []


def test_the_checks_process_gets_no_key_of_the_pages(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-for-the-check")
    monkeypatch.setenv("LOOP_SANDBOX_CHECK_SLOTS", "3")
    given = _environment()
    assert "ANTHROPIC_API_KEY" not in given and "sk-ant-not-for-the-check" not in repr(given)
    assert given["LOOP_SANDBOX_CHECK_SLOTS"] == "3" and given["PATH"] == os.environ["PATH"]


def test_a_check_from_a_page_holding_more_than_1024_descriptors():
    """A page holding a large class has hundreds of websockets open: the check's pipe lands past fd 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this machine allows {hard} descriptors a process")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        assert max(held) > 1024
        assert all(check.passed for check in iter_check_apart(CORRECT_LOOP))
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
