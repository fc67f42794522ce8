"""What the page's sessions share: kept by what it is a function of, the least recently used let go first, and
made once when a class asks for it at the same moment."""

import threading
import time

from agent.page.shared_work import Outcomes


def test_the_least_recently_used_is_let_go_first():
    kept: Outcomes[bytes] = Outcomes(2)
    kept.put("a", b"1")
    kept.put("b", b"2")
    assert kept.get("a") == b"1"  # used: "b" is now the least recently used
    kept.put("c", b"3")
    assert (kept.get("a"), kept.get("b"), kept.get("c"), len(kept)) == (b"1", None, b"3", 2)


def test_sessions_asking_at_once_make_it_once_and_all_take_it():
    kept: Outcomes[bytes] = Outcomes(4)
    made, taken = [], []
    start = threading.Barrier(8)

    def make() -> bytes:
        made.append(threading.get_ident())
        time.sleep(0.05)  # long enough for every other session to ask meanwhile
        return b"frames"

    def session() -> None:
        start.wait()
        taken.append(kept.made("runaway", make))

    threads = [threading.Thread(target=session) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and taken == [b"frames"] * 8


def test_what_is_kept_empty_is_kept():
    kept: Outcomes[bytes] = Outcomes(4)
    made = []
    for _ in range(2):
        assert kept.made("too long", lambda: made.append(1) or b"") == b""
    assert made == [1]


def test_one_key_being_made_does_not_hold_up_another():
    kept: Outcomes[bytes] = Outcomes(4)
    other_made = threading.Event()
    waited = []

    def slow() -> bytes:  # made while another key is: it waits for that one
        waited.append(other_made.wait(timeout=5))
        return b"runaway"

    first = threading.Thread(target=lambda: kept.made("runaway", slow))
    first.start()
    time.sleep(0.05)  # the first key is being made
    assert kept.made("add_then_answer", lambda: other_made.set() or b"reference") == b"reference"
    first.join()
    assert waited == [True] and kept.get("runaway") == b"runaway"
