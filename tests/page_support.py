"""What the page's AppTest modules share: the page fixture and the ways to drive and read it."""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from agent.page.frames import FRAMES_SENT
from agent.page.safe_text import marked_spans
from agent.page.screen import Screen, screen_of

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_CONSOLE = ['turn 1: add {"a": 2, "b": 3} -> 5', "result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]
NO_TURN_YET = "messages sent each turn: none yet (no turn has gone through)"  # the console before the first Step


def open_sandbox(monkeypatch) -> AppTest:
    """The page, run once, with no API key in sight: what each test module's `at` fixture gives."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return run(full_page())


def full_page(timeout: float = 30) -> AppTest:
    """The sandbox page with every control, not yet run: opened on a link that says so (a bare first visit is
    the beginner's page, Start here)."""
    at = AppTest.from_file(str(ROOT / "sandbox_app.py"), default_timeout=timeout)
    at.query_params["controls"] = "all"
    return at


def run(target) -> AppTest:
    """Run the page after an interaction (`target` is the AppTest or the widget just used)."""
    at = target.run()
    assert not at.exception, [e.value for e in at.exception]  # never a Streamlit exception box
    return at


PLAYER_KEYS = {"Step": "s", "Run to end": "e", "Reset": "r", "Undo": "u", "Redo": "y"}
"""The player's buttons, and the word each hands the server (`Sandbox.take_played`)."""


def click(at: AppTest, label: str) -> AppTest:
    """Click the button so labelled: the page's own, or the player's (its action handed over as the player hands it:
    tests/test_player_*.py click the player itself in Chromium)."""
    button = next((b for b in at.button if b.label == label), None)
    if button is None and label in PLAYER_KEYS and (shows := player_shows(at)) is not None:
        return hand_over(at, shows.action(label))
    assert button is not None, f"no button {label!r} on the page"
    return run(button.click())


@dataclass
class PlayerShows:
    """What the player on the page draws, worked out from its element's data and the frames it was sent, as
    player.js does: AppTest runs no JavaScript. The browser tests hold the player to the same frames."""

    data: dict[str, Any]
    frames: dict[str, Any]

    @property
    def start(self) -> dict[str, Any]:
        return self.data["start"]

    @property
    def latest(self) -> dict[str, Any]:
        return self.frames["frames"][self.start["at"]]

    @property
    def asking(self) -> bool:
        questions = self.latest.get("questions") or []
        return bool(self.frames["predict"] and self.start["asked"] and len(self.start["picks"]) < len(questions))

    @property
    def frame(self) -> dict[str, Any]:
        """The frame the views draw: the turn looked back at, or the latest (the one before, while asking)."""
        frames, at, look = self.frames["frames"], self.start["at"], self.start["look"]
        if self.asking:
            return frames[at - 1]
        if look is None:
            return frames[at]
        return next(frames[i] for i in range(at, -1, -1) if frames[i]["turn"] == look)

    def action(self, label: str) -> str:
        """What the player hands the server for a click on `label`: nothing for one it refuses in its own words."""
        refused = {"Step": self.asking or self.start["at"] >= len(self.frames["frames"]) - 1,
                   "Run to end": self.asking, "Reset": self.start["at"] == 0}
        return "" if refused.get(label) else PLAYER_KEYS[label]

    def texts(self) -> list[str]:
        """Every sentence the player shows on All controls, as a reader sees it: those it draws with their marks
        (`with_code`) without them, the rest (the status, the headline, the console, the captions) as they are."""
        latest, frame, view = self.latest, self.frame, self.data["view"]
        text: list[str] = [latest["asking_status"] if self.asking else latest["status"]]
        marked: list[str] = []
        if latest["outcome"] and not self.asking:
            text.append(latest["outcome"]["headline"])
            marked.append(latest["outcome"]["note"])
        if self.asking:
            card = latest["card"]
            text += [card["heading"], *latest["asking_terms"]]
            marked += [card["sent"], card["came_back"]]
        questions = (latest.get("questions") or []) if self.start["asked"] else []
        for pick, question in zip(self.start["picks"], questions, strict=False):
            marked.append(question["verdicts"][pick])
            if not self.asking:
                where = "the loop below" if view == "The loop" else "The loop view"
                text.append(f"run_agent {question['did']} at {question['line']} (lit in {where}).")
        if self.asking:
            marked.append(questions[len(self.start["picks"])]["prompt"])
        if self.frames["predict"]:
            right, answered = self.start["score"]
            text.append(f"Predictions: {right} right of {answered}" if answered else "No predictions yet")
        if self.start["look"] is not None and not self.asking:
            text.append(f"Looking back at turn {self.start['look']} of {latest['turn']}. Step and Run to end carry "
                        f"on from turn {latest['turn']}.")
        if view == "Run":
            details = frame["details"]
            text += ["\n".join(frame["console"]), details["usage_total"], details["heading"], details["thread_note"],
                     details["cost_line"] if frame["reply"] else ""]
            if details["failures"] and self.start["look"] is None:
                text.append(details["failures"])
            before = self.frames["start_looked_back"] if self.start["look"] == 0 else ""
            marked += [*details["attempts"], before or details["said"], details["came_back"]]
        elif view == "The loop":
            marked.append(frame["loop_caption"])
        else:
            marked.append(frame["messages_caption"])
            if self.data.get("chat"):  # the table of what differs, its head first, its cells as Markdown has them
                marked += [cell for row in self.frames["chat_differences"] for cell in row]
        return [sentence for sentence in text if sentence] + [plain(sentence) for sentence in marked if sentence]

    def html(self) -> list[str]:
        """The HTML the player draws: the lit loop, and the message cards of the view."""
        frame, cards = self.frame, self.frames["cards"]
        view = self.data["view"]
        if view == "The loop":
            return [frame["loop"]]
        if view == "Run":
            return [cards[0]] if not frame["request"] else cards[frame["new"][0]:frame["new"][1]]
        if self.data.get("chat"):  # the rows of the frame's messages, beside Chat Completions, and its finish row
            def held(row: str) -> bool:
                index = re.search(r'data-row="([^"]+)"', row)[1]
                return index in ("head", "system") or int(index) < frame["messages"]
            return [f'<div class="ls-chat-pairs">{"".join(filter(held, self.frames["chat_rows"]))}'
                    f'{frame["chat_finish"]}</div>']
        return [cards[0], *cards[frame["first_card"]:frame["messages"]]]

    def graph(self) -> str:
        """The DOT of the graph the view draws: the run graph (every turn of it with Every turn on), or the Loop
        view's cycle."""
        if self.data["view"] == "The loop":
            return self.frames["diagrams"][self.frame["path"]]
        back = self.start["look"] is not None or self.asking
        if self.data.get("whole"):
            kept, own = self.frame["graph_whole_back" if back else "graph_whole"]
            return "\n".join([*self.frames["graph_lines"][:kept], *own])
        return self.frame["graph_back" if back else "graph"]


def plain(sentence: str) -> str:
    """A sentence of the page's (`safe_text.with_code`) as a reader sees it: its marks taken off."""
    if sentence.startswith("**") and (end := sentence.find("**", 2)) > 2:
        sentence = sentence[2:end] + sentence[end + 2:].replace("\\", "\\\\")
    return "".join(text for _, text in marked_spans(sentence))


def player_shows(at: AppTest) -> PlayerShows | None:
    """What the player on the page shows; None when the page draws the run itself."""
    for node in page_nodes(at):
        if type(node).__name__ == "UnknownElement" and node.type == "bidi_component" and \
                node.proto.component_name == "loop_sandbox.player":
            data = json.loads(node.proto.json)[0]
            return PlayerShows(data, json.loads(FRAMES_SENT.get(data["frames_key"])))
    return None


def page_text(at: AppTest) -> str:
    """The page's text as a reader sees it: its markdown, captions, code and notices, and what the player draws."""
    parts = [texts(at.markdown), texts(at.caption), "\n".join(c.value for c in at.code),
             texts([*at.error, *at.warning, *at.info, *at.success])]
    if (shows := player_shows(at)) is not None:
        parts += shows.texts()
    return "\n".join(parts)


def answer(at: AppTest, pick: int) -> AppTest:
    """Pick choice `pick` of the question open: the page's button, or the player's (key 1-4)."""
    if (shows := player_shows(at)) is not None and shows.asking:
        return hand_over(at, f"p{pick}")
    return run(next(b for b in at.button if b.key == f"choice_{pick}").click())


def asking(at: AppTest) -> bool:
    """Whether a question is open on the page: the page's or the player's."""
    if (shows := player_shows(at)) is not None:
        return shows.asking
    return any(b.key and b.key.startswith("choice_") for b in at.button)


def look_back(at: AppTest, turn: int) -> AppTest:
    """Look back at `turn`: with the page's slider, or the player's (its look handed over as the player hands it)."""
    if player_shows(at) is not None:
        return hand_over(at, f"l{turn}")
    return run(at.slider(key="look_back").set_value(turn))


def turn_looked_at(at: AppTest) -> int:
    """The turn the slider stands at, the page's or the player's."""
    if (shows := player_shows(at)) is not None:
        look = shows.start["look"]
        return shows.latest["turn"] if look is None else look
    return at.slider(key="look_back").value


def console(at: AppTest) -> list[str]:
    if (shows := player_shows(at)) is not None:
        return shows.frame["console"]
    return next(c.value for c in at.code if "messages sent each turn" in c.value).splitlines()


def loop_diagram_dot(at: AppTest) -> str:
    if (shows := player_shows(at)) is not None and shows.data["view"] == "The loop":
        return shows.graph()
    return next(g.proto.spec for g in at.get("graphviz_chart") if g.proto.spec.startswith("digraph loop"))


def run_graph_dot(at: AppTest) -> str:
    if (shows := player_shows(at)) is not None and shows.data["view"] == "Run":
        return shows.graph()
    return next(g.proto.spec for g in at.get("graphviz_chart") if g.proto.spec.startswith("digraph run"))


def status(at: AppTest) -> str:
    if (shows := player_shows(at)) is not None:
        return shows.texts()[0]
    return at.get("progress")[0].proto.text


def screen(at: AppTest) -> Screen:
    """What the page works out to show, as data: a test asserts on it, and that the page drew it."""
    return screen_of(at.session_state["sandbox"])


def pick_script(at: AppTest, name: str) -> AppTest:
    return run(at.selectbox(key="script").set_value(name))


def upload(at: AppTest, name: str, script: dict) -> AppTest:
    """Load a script file into the page's uploader, as a learner does."""
    return run(at.file_uploader(key="upload").upload(name, json.dumps(script).encode(), "application/json"))


# A script whose third request holds one tool_use id twice: the checks refuse it (a bad request at turn 3).
_CALL = {"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "toolu_1", "name": "add",
                                                 "input": {"a": 1, "b": 2}}]}
ONE_ID_TWICE = {"title": "One id twice", "task": "Add 1 and 2, twice", "replies": [_CALL, _CALL]}


def server_draws(at: AppTest) -> AppTest:
    """Open Change the past: while it is open the page draws and steps the run itself, not the player."""
    at.session_state["change_the_past"] = True
    return run(at)


def open_tab(at: AppTest, label: str) -> AppTest:
    at.button_group(key="tab").set_value(label)
    return run(at)


def unescaped(markdown: str) -> str:
    """What a reader sees of markdown whose untrusted parts were escaped (`as_text`): the backslashes gone."""
    return re.sub(r"\\([\\`*_{}\[\]()<>#+\-=.!|~$&])", r"\1", markdown)


def texts(elements) -> str:
    """The text of elements as a reader sees it."""
    return "\n".join(unescaped(e.value) for e in elements)


def walk(node):
    """Every element and block under `node`."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def page_nodes(at: AppTest):
    """Every element and block of the page, through AppTest's public parts: the main area, the sidebar and the
    toasts (the only elements this page puts elsewhere are its style sheet and scripts)."""
    yield from walk(at.main)
    yield from walk(at.sidebar)
    yield from at.toast


def everything_shown(at: AppTest) -> list[str]:
    """Every element's content as sent to the browser (its protobuf), but the person's own key field."""
    return [str(node.proto) for node in page_nodes(at)
            if hasattr(node, "proto") and getattr(node, "key", None) != "api_key"]


def choose_real(at: AppTest, base_url: str, key: str = "") -> AppTest:
    run(at.radio(key="model_choice").set_value("Real"))
    run(at.text_input(key="base_url").input(base_url))
    if key:
        run(at.text_input(key="api_key").input(key))
    return at


def lesson_code(at: AppTest) -> str:
    return next(h for h in html_shown(at) if 'class="ls-code' in h)


def html_shown(at: AppTest) -> list[str]:
    """The HTML the page shows: its own elements', and the player's."""
    return (shows.html() if (shows := player_shows(at)) else []) + [h.proto.body for h in at.get("html")]


def lit_lines(code: str) -> list[str]:
    """The text of the lit lines of the lesson's loop, tags stripped."""
    rows = code.split('<div class="ls-line')[1:]
    return [re.sub(r"<[^>]+>", "", row) for row in rows if row.startswith(" ls-lit")]


def hand_over(at: AppTest, played: str) -> AppTest:
    """The player's actions (`s.s.u`: Step, Step, Undo) taken up by the server as its hand-over takes them, and the
    page's next run: AppTest runs no JavaScript (tests/test_player_page.py clicks the player in Chromium)."""
    box = at.session_state["sandbox"]
    box.page.widget_began()  # as the player's component says it (views/player_view.py): a click, not Back
    assert box.take_played(played) is None
    box.notice = None  # taken up, what the learner did is newer than the server's last word (player_view.take_up)
    return run(at)


def played(at: AppTest, steps: int = 1, until_done: bool = False) -> AppTest:
    """What the player hands the server on Start here (tests/test_browser_start_here.py clicks it in Chromium):
    Steps in the browser, each question answered right, taken up through the Sandbox's `take_played`; then the
    page's next run."""
    box = at.session_state["sandbox"]
    for _ in range(100 if until_done else steps):
        if box.run.done:
            break
        assert box.take_played("s") is None
        while (question := box.open_question()) is not None:
            assert box.take_played(f"p{question.right}") is None
    return run(at)
