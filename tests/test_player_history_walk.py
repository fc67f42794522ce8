"""A learner's random walk through the browser's history on Start here, in Chromium: the rules are what a person
does (Step, Run to end, Reset, Undo, Redo, a look back, the browser's Back and Forward), the invariants what the
player and the address bar must say after each, held to a model of the history's entries and the run's frames."""

from __future__ import annotations

from dataclasses import dataclass, replace
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from test_browser import chromium, sandbox  # noqa: F401  pytest fixtures

from agent.page import frames_of, sandbox_for

SCRIPT = "runaway"  # forty turns: Run to end goes far, Reset and Undo come back
STATUS = ".lsp-status-text"


@dataclass(frozen=True)
class Entry:
    """One address in the browser's history, as the player left it: where the run was, the look back, what Undo
    and Redo would take up, and the actions since the server's screen (the address's `played`)."""

    at: int
    look: int | None
    undone: tuple[tuple[int, int | None], ...]
    redone: tuple[tuple[int, int | None], ...]
    played: tuple[str, ...]

    @property
    def by_look(self) -> bool:
        return bool(self.played) and self.played[-1].startswith("l")


@pytest.fixture(scope="module")
def player_page(chromium, sandbox):  # noqa: F811
    page = chromium.new_context(viewport={"width": 1440, "height": 1300}).new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page, frames_of(sandbox_for(SCRIPT)), f"{sandbox.url}/?controls=start&script={SCRIPT}&predict=off"
    page.context.close()


class HistoryWalk(RuleBasedStateMachine):
    page = frames = url = None

    @initialize()
    def start(self):
        self.page.goto(self.url)
        self.page.locator(STATUS).wait_for(timeout=30_000)
        self.page.wait_for_function("() => location.search.includes('model=script')")  # the server's address
        self.page.evaluate("() => document.activeElement?.blur()")  # the keys go to the player
        self.entries = [Entry(0, None, (), (), ())]
        self.index = 0

    @property
    def now(self) -> Entry:
        return self.entries[self.index]

    @property
    def last(self) -> int:
        return len(self.frames.frames) - 1

    def push(self, entry: Entry) -> None:
        self.entries = [*self.entries[:self.index + 1], entry]  # what was ahead of a Back is gone
        self.index += 1

    def moved(self, at: int, word: str) -> Entry:
        """An undoable action's entry: what it left is kept for Undo, and Redo has nothing."""
        now = self.now
        return Entry(at, None, (*now.undone, (now.at, now.look)), (), (*now.played, word))

    @rule()
    def step(self):
        self.page.keyboard.press("s")
        if self.now.at < self.last:
            self.push(self.moved(self.now.at + 1, "s"))

    @rule()
    def run_to_end(self):
        self.page.keyboard.press("e")
        if self.now.at < self.last:
            self.push(self.moved(self.last, "e"))

    @rule()
    def reset(self):
        self.page.keyboard.press("r")
        if self.now.at > 0:
            self.push(self.moved(0, "r"))

    @precondition(lambda self: self.now.undone)
    @rule()
    def undo(self):
        self.page.keyboard.press("z")
        now = self.now
        at, look = now.undone[-1]
        self.push(Entry(at, look, now.undone[:-1], (*now.redone, (now.at, now.look)), (*now.played, "u")))

    @precondition(lambda self: self.now.redone)
    @rule()
    def redo(self):
        self.page.keyboard.press("y")
        now = self.now
        at, look = now.redone[-1]
        self.push(Entry(at, look, (*now.undone, (now.at, now.look)), now.redone[:-1], (*now.played, "y")))

    @rule(key=st.sampled_from(["ArrowLeft", "ArrowRight", "Home", "End"]))
    def look_back(self, key):
        self.page.keyboard.press(key)
        now = self.now
        latest = self.frames.frames[now.at].turn
        turn = latest if now.look is None else now.look
        turn = max(0, min(latest, {"ArrowLeft": turn - 1, "ArrowRight": turn + 1, "Home": 0, "End": latest}[key]))
        look = None if turn == latest else turn
        if look == now.look:
            return
        word = "l" if look is None else f"l{look}"
        if now.by_look:  # looks in a row are one address: the last look's
            self.entries[self.index] = replace(now, look=look, played=(*now.played[:-1], word))
        else:
            self.push(replace(now, look=look, played=(*now.played, word)))

    @precondition(lambda self: self.index > 0)
    @rule()
    def back(self):
        self.page.go_back()
        self.index -= 1

    @precondition(lambda self: self.index < len(self.entries) - 1)
    @rule()
    def forward(self):
        self.page.go_forward()
        self.index += 1

    @precondition(lambda self: self.page is not None and hasattr(self, "entries"))
    @invariant()
    def the_player_and_the_address_say_the_entrys_screen(self):
        from playwright.sync_api import expect

        now, page = self.now, self.page
        frame = self.frames.frames[now.at]
        expect(page.locator(STATUS)).to_have_text(frame.status)
        looking = page.get_by_text("Looking back at turn", exact=False)
        if now.look is None:
            expect(looking).to_have_count(0)
        else:
            expect(looking).to_have_text(f"Looking back at turn {now.look} of {frame.turn}. Step and Run to end "
                                         f"carry on from turn {frame.turn}.")
        played = ".".join(now.played)
        page.wait_for_function("played => (new URLSearchParams(location.search).get('played') || '') === played",
                               arg=played, timeout=10_000)
        assert parse_qs(urlsplit(page.url).query).get("script") == [SCRIPT]


def test_a_learners_walk_back_and_forth_through_the_players_steps(player_page):
    from hypothesis.stateful import run_state_machine_as_test

    page, frames, url = player_page
    HistoryWalk.page, HistoryWalk.frames, HistoryWalk.url = page, frames, url
    run_state_machine_as_test(HistoryWalk, settings=settings(max_examples=6, stateful_step_count=25, deadline=None,
                                                             suppress_health_check=list(HealthCheck)))
    assert page.errors == []
