"""A class pressing Check at once: the pool of check slots, the queue in front of it, and its words."""

import os
import threading
import time

import pytest
from test_exercise import CORRECT_LOOP

from agent.exercise import CheckQueue, Limits, QueueRefused, check_loop, place_words
from agent.exercise.check_queue import default_slots


def test_checks_take_turns_first_come_first_served_within_the_slots():
    queue = CheckQueue(slots=2)
    tickets = [queue.join(f"learner {n}") for n in range(5)]
    assert [t.ahead() for t in tickets] == [0, 1, 2, 3, 4]
    assert queue.take_slot(tickets[0], 0) and queue.take_slot(tickets[1], 0)
    assert not queue.take_slot(tickets[3], 0.01)  # not first in line
    assert not queue.take_slot(tickets[2], 0.01)  # first in line, but both slots are taken
    assert [t.ahead() for t in tickets[2:]] == [0, 1, 2] and queue.counts() == (2, 3)
    tickets[0].leave()
    assert queue.take_slot(tickets[2], 0) and queue.counts() == (2, 2)


def test_a_learner_who_cancels_leaves_the_queue_and_the_others_move_up():
    queue = CheckQueue(slots=1)
    running, cancelled, last = (queue.join(name) for name in ("a", "b", "c"))
    assert queue.take_slot(running, 0)
    seen = []

    def cancel(ahead: int) -> None:  # what a page's Cancel does: its next call raises
        seen.append(ahead)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cancelled.wait(cancel, poll=0.01)
    assert seen == [0] and last.ahead() == 0 and queue.counts() == (1, 1)
    running.leave()
    with last:
        last.wait(poll=0.01)
        assert queue.counts() == (1, 0)
    assert queue.counts() == (0, 0)


def test_a_check_that_must_wait_is_told_its_place_at_once_not_a_poll_later():
    queue = CheckQueue(slots=1)
    running, waiting = queue.join("a"), queue.join("b")
    assert queue.take_slot(running, 0)
    seen = []

    def tick(ahead: int) -> None:  # the first place shown frees the slot: the wait ends at the next look
        seen.append(ahead)
        running.leave()

    began = time.monotonic()
    waiting.wait(tick, poll=30)
    assert seen == [0] and time.monotonic() - began < 10  # not after a first poll of 30 s with nothing shown
    waiting.leave()


def test_a_session_holds_one_place_and_is_told_so():
    queue = CheckQueue(slots=1)
    with queue.join("tab 1"):
        with pytest.raises(QueueRefused, match="A check of yours is already waiting or running"):
            queue.join("tab 1")
        queue.join("tab 2").leave()
    queue.join("tab 1").leave()  # once it has left, the session may check again


def test_the_place_in_words():
    assert place_words(2) == "2 checks ahead of yours in the queue. Yours starts by itself; Cancel leaves the queue."
    assert place_words(1).startswith("1 check ahead of yours")
    assert "your check is next" in place_words(0)


def test_one_slot_a_core_unless_the_environment_says(monkeypatch, tmp_path):
    no_quota = tmp_path / "no-cgroup"  # this machine's own cgroup may have a quota: not read here
    monkeypatch.delenv("LOOP_SANDBOX_CHECK_SLOTS", raising=False)
    assert default_slots(no_quota) == len(os.sched_getaffinity(0))
    monkeypatch.setenv("LOOP_SANDBOX_CHECK_SLOTS", "3")
    assert CheckQueue().slots == 3
    monkeypatch.setenv("LOOP_SANDBOX_CHECK_SLOTS", "lots")
    assert default_slots(no_quota) == len(os.sched_getaffinity(0))


@pytest.mark.parametrize(("cpu_max", "slots"), [("100000 100000\n", 1), ("250000 100000\n", 2),
                                                 ("50000 100000\n", 1), ("max 100000\n", None), ("", None)])
def test_a_containers_cpu_limit_caps_the_slots(monkeypatch, tmp_path, cpu_max, slots):
    """Kubernetes' CPU limit is a cgroup quota: the pod still sees (and may run on) every core of its node,
    so one check a core would start a check for each of a 64-core node's cores on a pod given one."""
    monkeypatch.delenv("LOOP_SANDBOX_CHECK_SLOTS", raising=False)
    (quota := tmp_path / "cpu.max").write_text(cpu_max)
    cores = len(os.sched_getaffinity(0))
    assert default_slots(quota) == (min(cores, slots) if slots else cores)


def test_a_class_pressing_check_at_once_all_complete_never_more_than_the_slots_at_a_time():
    queue, learners = CheckQueue(slots=2), 12
    running, most, verdicts, lock = [0], [0], [], threading.Lock()

    def learner(n: int) -> None:
        with queue.join(f"learner {n}") as ticket:
            ticket.wait(poll=0.02)
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            check = check_loop(CORRECT_LOOP, ["add_then_answer"])
            with lock:
                running[0] -= 1
                verdicts.append(check.passed)

    threads = [threading.Thread(target=learner, args=(n,)) for n in range(learners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert verdicts == [True] * learners and most[0] == 2 and queue.counts() == (0, 0)


FIRST_LINE = '    messages = [{"role": "user", "content": task}]'
NICENESS = CORRECT_LOOP.replace(FIRST_LINE, '    import os\n    print("niceness", os.nice(0))\n' + FIRST_LINE, 1)


@pytest.mark.parametrize("isolation", ["process", "auto"])
def test_the_learner_s_code_runs_at_a_lower_cpu_priority_than_the_page(isolation):
    mine = os.nice(0)
    check = check_loop(NICENESS, ["add_then_answer"], Limits(isolation=isolation))
    printed = "\n".join(check.scripts[0].actual) if check.scripts else check.problem
    assert f"niceness {min(mine + Limits().nice, 19)}" in printed, printed


def test_waiting_costs_no_cpu():
    queue = CheckQueue(slots=1)
    holder, waiter = queue.join("a"), queue.join("b")
    queue.take_slot(holder, 0)
    started, cpu = time.monotonic(), time.process_time()
    assert not queue.take_slot(waiter, 0.3)
    assert time.monotonic() - started >= 0.29 and time.process_time() - cpu < 0.1
