"""What every test starts from: the process's shared replays, Steps and frames empty, so no test takes an outcome
another test's sessions left (a test that changes a model or a limit would otherwise be served what the unchanged
one gave)."""

import pytest

from agent.page.frames import FRAMES_SENT
from agent.page.shared_work import REPLAYED, STEPPED


@pytest.fixture(autouse=True)
def nothing_shared_yet() -> None:
    for shared in (REPLAYED, STEPPED, FRAMES_SENT):
        shared.clear()
