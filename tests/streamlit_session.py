"""One browser tab's conversation with `streamlit run`, spoken over its websocket without a browser.

The browser talks to Streamlit over `/_stcore/stream`: binary protobuf frames,
`BackMsg` up and `ForwardMsg` down (streamlit/proto). It opens the socket with
the subprotocol header `streamlit, <xsrf token>, <session id>` (the last names a
session to reconnect to), asks for a run with `BackMsg.rerun_script` carrying
the widgets' values (a button press is a `trigger_value`; a fragment's button
also names the fragment, so only the fragment reruns), and takes the run as done
at `ForwardMsg.script_finished`. `StreamlitSession` does the same from asyncio,
keeps the last drawn widgets by label, and times each run; the load benchmark's
learners and the proxy tests are made of it.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

PIDFD_GETFD = 438  # the syscall's number on x86-64 and arm64 alike
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}

FULL_PAGE = "controls=all"  # the sandbox with every control: what the hosting and load tests measure


@dataclass
class Widget:
    """A widget as the browser last drew it: what a press or a pick must name."""

    id: str
    kind: str
    fragment_id: str


@dataclass
class RunOutcome:
    """One rerun as the client saw it."""

    seconds: float
    messages: int
    received_bytes: int
    status: int
    texts: list[str] = field(default_factory=list)  # the progress lines, markdown and alerts of the run, in order
    text_seconds: list[float] = field(default_factory=list)  # when each of `texts` arrived, from the request


class SessionGone(Exception):
    """The server closed the websocket (or it broke) before the run finished."""


class StreamlitSession:
    """A Streamlit session driven over its websocket: `await StreamlitSession.open(url)`, then `rerun`s."""

    def __init__(self, socket: Any) -> None:
        self._socket = socket
        self.session_id = ""
        self.widgets: dict[str, Widget] = {}
        self.cached: dict[str, bytes] = {}
        """Large elements received, by hash: a browser keeps them and names them with each run, and the server
        then sends a reference to one it would send again (Streamlit's message cache)."""
        self.components: dict[str, tuple[str, str]] = {}
        """Custom components (v2) as last drawn, by name: their widget id and their data as JSON."""
        self.component_fragments: dict[str, str] = {}
        """The fragment each custom component is drawn in, by name ("" for none): its state reruns only that."""
        self.page_script_hash = ""
        self.page_name = ""
        self.last_texts: list[str] = []
        self.query_string = ""
        """The page's address's query, as the page last wrote it: a browser sends it with every run."""
        self.values: dict[str, str] = {}
        """Text boxes' values by label, as the browser holds them: what the server set, or what was typed."""
        self.toasts: list[str] = []
        self.alerts: list[tuple[str, str]] = []
        self.expanders: list[str] = []
        """The last run's toasts, alerts (their kind and words) and expanders' labels."""

    @classmethod
    async def open(cls, url: str, existing_session: str = "", run: bool = True, headers: dict[str, str] | None = None,
                   open_timeout: float = 30, page: str = "", query_string: str = FULL_PAGE) -> StreamlitSession:
        """Connect and run the page once, as a browser tab does when it loads (`run=False`: connect only).

        `page` is a multipage app's URL path (`write-your-loop` in `/write-your-loop`): the browser names the
        page it was opened on in its first run; the server answers with that page's script hash. `query_string`
        is the address's query (a tab that reconnects sends the one it shows); by default the full page's, as a
        class's link opens it (a bare first visit is the beginner's page)."""
        stream = url.replace("http://", "ws://").rstrip("/") + "/_stcore/stream"
        # The second entry is the XSRF token, used only for signed-in users: this client has none.
        protocols = ["streamlit", "no-token", existing_session] if existing_session else ["streamlit"]
        socket = await websockets.connect(stream, subprotocols=protocols, max_size=None, compression=None,
                                          open_timeout=open_timeout, ping_interval=None,
                                          additional_headers=headers)
        session = cls(socket)
        session.page_name, session.query_string = page, query_string
        if run:
            await session.rerun()
        return session

    async def rerun(self, states: list[WidgetState] | None = None, fragment_id: str = "",
                    timeout: float = 60) -> RunOutcome:
        """Ask for a run with these widget values and wait for it to finish."""
        message = BackMsg()
        client = message.rerun_script
        client.page_script_hash = self.page_script_hash
        client.page_name = "" if self.page_script_hash else self.page_name
        client.fragment_id = fragment_id
        client.query_string = self.query_string
        client.widget_states.widgets.extend(states or [])
        client.cached_message_hashes.extend(self.cached)
        started = time.perf_counter()
        try:
            await self._socket.send(message.SerializeToString())
            return await self._read_until_finished(started, timeout)
        except websockets.ConnectionClosed as closed:
            raise SessionGone(f"the websocket closed: {closed}") from closed

    def press(self, label: str) -> tuple[list[WidgetState], str]:
        """The widget states and fragment of a press of the button labelled `label`."""
        button = self.widgets[label]
        state = WidgetState(id=button.id, trigger_value=True)
        return [state], button.fragment_id

    def pick(self, label: str, option: str) -> list[WidgetState]:
        """The widget state of picking `option` (its text as shown) in the select box labelled `label`."""
        return [WidgetState(id=self.widgets[label].id, string_value=option)]

    def type(self, label: str, text: str) -> list[WidgetState]:
        """The widget state of `text` typed into the text input or text area labelled `label`."""
        self.values[label] = text
        return [WidgetState(id=self.widgets[label].id, string_value=text)]

    def held(self, label: str) -> list[WidgetState]:
        """The widget state the browser sends with every run for the text box labelled `label`: what it holds."""
        return [WidgetState(id=self.widgets[label].id, string_value=self.values[label])]

    def played(self, played: str) -> tuple[list[WidgetState], str]:
        """What the player hands the server of its actions in the browser (`s` a Step, `s.s` two: player.js
        `flush`), as its component state, in its fragment."""
        widget_id, data = self.components["loop_sandbox.player"]
        version = json.loads(data)[0]["version"]
        value = {"played": {"base": version, "played": played, "id": f"{version}:{played}"}}
        return ([WidgetState(id=widget_id, json_value=json.dumps(value))],
                self.component_fragments["loop_sandbox.player"])

    def step(self) -> tuple[list[WidgetState], str]:
        """A Step as the browser sends it: the page's own button, or the player's Step handed over."""
        if "Step" in self.widgets:
            return self.press("Step")
        return self.played("s")

    def reset(self) -> tuple[list[WidgetState], str]:
        """Reset as the browser sends it: the page's own button, or the player's Reset handed over."""
        if "Reset" in self.widgets:
            return self.press("Reset")
        return self.played("r")

    def trigger(self, component: str, event: str, value: Any) -> list[WidgetState]:
        """The widget state a v2 component's script sends when it triggers `event` with `value`."""
        widget_id = self.components[component][0]
        return [WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{widget_id}__events",
                            json_trigger_value=json.dumps([{"event": event, "value": value}]))]

    async def close(self) -> None:
        await self._socket.close()

    async def _read_until_finished(self, started: float, timeout: float) -> RunOutcome:
        messages = received = 0
        texts: list[str] = []
        self.toasts, self.alerts, self.expanders = [], [], []
        text_seconds: list[float] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no script_finished within {timeout}s")
            frame = await _receive(self._socket, left)
            messages += 1
            received += len(frame)
            forward = ForwardMsg()
            forward.ParseFromString(frame)
            if forward.WhichOneof("type") == "ref_hash" and forward.ref_hash in self.cached:
                forward.ParseFromString(self.cached[forward.ref_hash])  # the browser's copy, as it draws it
            elif forward.metadata.cacheable and forward.hash:
                self.cached[forward.hash] = frame
            kind = forward.WhichOneof("type")
            if kind == "new_session":
                self.session_id = forward.new_session.initialize.session_id
                self.page_script_hash = forward.new_session.page_script_hash
            elif kind == "page_info_changed":
                self.query_string = forward.page_info_changed.query_string
            elif kind == "navigation":  # st.navigation names the page it ran: the next run asks for that one
                self.page_script_hash = forward.navigation.page_script_hash
            elif kind == "delta":
                self._take_delta(forward.delta, texts)
                text_seconds += [time.perf_counter() - started] * (len(texts) - len(text_seconds))
            elif kind == "script_finished":
                status = forward.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue  # a newer run replaces this one: wait for that one's end
                self.last_texts = texts
                return RunOutcome(time.perf_counter() - started, messages, received, status, texts, text_seconds)

    def _take_delta(self, delta: Any, texts: list[str]) -> None:
        if delta.WhichOneof("type") == "add_block" and delta.add_block.WhichOneof("type") == "expandable":
            self.expanders.append(delta.add_block.expandable.label)
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "progress":
            texts.append(element.progress.text)
        elif kind == "markdown":
            texts.append(element.markdown.body)
        elif kind == "alert":
            texts.append(element.alert.body)
            self.alerts.append((element.alert.Format.Name(element.alert.format), element.alert.body))
        elif kind == "toast":
            self.toasts.append(element.toast.body)
        proto = getattr(element, kind) if kind else None
        if kind == "bidi_component":
            self.components[proto.component_name] = (proto.id, proto.json)
            self.component_fragments[proto.component_name] = delta.fragment_id
            if proto.component_name == "loop_sandbox.frames":
                frames = json.loads(proto.bytes)
                FRAMES_SEEN[frames["key"]] = frames
            elif proto.component_name == "loop_sandbox.player":
                texts.append(player_status(json.loads(proto.json)[0]))
        label, widget_id = getattr(proto, "label", None), getattr(proto, "id", None)
        if label and widget_id:
            self.widgets[label] = Widget(widget_id, kind, delta.fragment_id)
        if kind in ("text_area", "text_input") and (proto.set_value or label not in self.values):
            self.values[label] = proto.value if proto.set_value else proto.default


FRAMES_SEEN: dict[str, dict[str, Any]] = {}
"""The runs' frames the page has sent, by their key: kept as a browser tab keeps them (on globalThis), across
a reconnect, since the server sends them once a page."""


def player_status(said: dict[str, Any]) -> str:
    """The status line the player draws (player.js) where the server's run stands: its frame's, or the question's
    while one is open. AppTest and this client run no JavaScript; the browser tests hold the player to it."""
    frames = FRAMES_SEEN.get(said["frames_key"])
    if frames is None:
        return "the player, its frames not sent to this client"
    start = said["start"]
    frame = frames["frames"][start["at"]]
    asking = frames["predict"] and start["asked"] and len(start["picks"]) < len(frame.get("questions") or [])
    return frame["asking_status"] if asking else frame["status"]


async def _receive(socket: Any, timeout: float) -> bytes:
    try:
        frame = await asyncio.wait_for(socket.recv(), timeout)
    except websockets.ConnectionClosed as closed:
        raise SessionGone(f"the websocket closed: {closed}") from closed
    if isinstance(frame, str):
        raise SessionGone("the server sent a text frame; Streamlit sends binary protobufs")
    return frame


def server_tcp_sockets(pid: int) -> list[socket.socket]:
    """Duplicates of the TCP sockets process `pid` (a server this process started) holds, through pidfd_getfd.

    What the kernel says of the server's own end of a connection: its options, as the server set them.
    Raises OSError when the kernel will not hand them over (before Linux 5.6, or ptrace forbidden).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    found = []
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
            except FileNotFoundError:
                continue
            fd = libc.syscall(PIDFD_GETFD, pidfd, int(name), 0)
            if fd < 0:
                error = ctypes.get_errno()
                if error == 9:  # EBADF: closed meanwhile
                    continue
                raise OSError(error, f"pidfd_getfd on descriptor {name} of process {pid}: {os.strerror(error)}")
            sock = socket.socket(fileno=fd)
            if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
                found.append(sock)
            else:
                sock.close()
    finally:
        os.close(pidfd)
    return found
