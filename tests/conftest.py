"""What every test starts from: the process's shared replays and Steps empty, so no test takes an outcome another
test's sessions left (a test that changes a model would otherwise be served what the unchanged one gave)."""

import pytest

from agent.page.shared_work import REPLAYED, STEPPED


@pytest.fixture(autouse=True)
def nothing_shared_yet() -> None:
    REPLAYED.clear()
    STEPPED.clear()
