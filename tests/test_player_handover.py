"""What the player hands the server, over Start here's websocket as a browser sends it: its component state runs
only the player's fragment (the link, the notice and the player), which takes the actions up and draws the player
where the run now stands, and so does an Undo the server takes (one run: the actions and the Undo); an action that
changes the page around it (the next scenario, or its Undo) runs the whole page. One real `streamlit run`."""

import asyncio
import json

import pytest
from browser_support import SandboxServer
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit_session import StreamlitSession

PLAYER = "loop_sandbox.player"


@pytest.fixture(scope="module")
def server():
    with SandboxServer() as running:
        yield running


def player_of(session: StreamlitSession) -> tuple[str, str, dict]:
    """The player component's name, fragment and data as the page last drew it."""
    name = next(n for n in session.components if n.endswith(PLAYER))
    return name, session.component_fragments[name], json.loads(session.components[name][1])[0]


async def hand_over(session: StreamlitSession, played: str):
    name, fragment, data = player_of(session)
    said = {"played": {"base": data["version"], "played": played, "id": f"{data['version']}:{played}"}}
    state = WidgetState(id=session.components[name][0], json_value=json.dumps(said))
    return await session.rerun([state], fragment)


async def undo(session: StreamlitSession, played: str):
    """The player's Undo of what came before its own actions: a trigger carrying what it did since."""
    name, fragment, data = player_of(session)
    return await session.rerun(session.trigger(name, "undo", {"base": data["version"], "played": played}), fragment)


def test_a_hand_over_runs_only_the_player_and_the_server_takes_it_up(server):
    async def steps() -> None:
        session = await StreamlitSession.open(server.url, query_string="controls=start&script=add_then_answer"
                                                                      "&predict=off")
        whole_page = session.last_texts
        assert any("Add two numbers, then answer" in text for text in whole_page)  # the page around the player
        _, fragment, data = player_of(session)
        assert fragment and data["start"]["at"] == 0
        handed = await hand_over(session, "s")
        assert handed.status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY  # the player's fragment alone
        assert player_of(session)[2]["start"]["at"] == 1  # taken up: the player drawn where the run now stands
        assert not any("Add two numbers" in text for text in handed.texts)  # nothing around it drawn again
        # Undo past the player's own actions: one run takes up the Step it took since, then undoes it
        undone = await undo(session, "s")
        assert undone.status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
        assert not any("Add two numbers" in text for text in undone.texts)
        assert player_of(session)[2]["start"]["at"] == 1
        undone = await undo(session, "")  # and the Step handed over before it
        assert undone.status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
        assert player_of(session)[2]["start"]["at"] == 0
        await session.close()

    asyncio.run(steps())


def test_the_next_scenario_from_the_player_runs_the_whole_page(server):
    async def steps() -> None:
        session = await StreamlitSession.open(server.url, query_string="")  # a first visit: the lesson's path
        assert any(text.startswith("**Scenario 1 of 9:") for text in session.last_texts)
        await hand_over(session, "e")  # Run to end, in the browser
        name, fragment, data = player_of(session)
        assert data["start"]["at"] == 2 and data["next"] == "Two tool calls in one reply"
        done = await session.rerun(session.trigger(name, "next_scenario", {"base": data["version"], "played": ""}),
                                   fragment)
        assert done.status == ForwardMsg.FINISHED_SUCCESSFULLY  # the fragment's run gave way to the whole page's
        assert any(text.startswith("**Scenario 2 of 9:") for text in done.texts)  # the page around it, anew
        assert player_of(session)[2]["start"]["at"] == 0
        undone = await undo(session, "")  # the next scenario taken back: the page around too
        assert undone.status == ForwardMsg.FINISHED_SUCCESSFULLY
        assert any(text.startswith("**Scenario 1 of 9:") for text in undone.texts)
        assert player_of(session)[2]["start"]["at"] == 2
        await session.close()

    asyncio.run(steps())
