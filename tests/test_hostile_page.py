"""The page against hostile uploads and replies, in AppTest (issue 10): never a traceback, never a stranger's markdown
rendered, never the key on screen or in an export, never a huge text drawn whole."""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from page_support import choose_real, click, everything_shown, open_sandbox, open_tab, page_text, player_shows, run
from streamlit.testing.v1 import AppTest

from agent.page.safe_text import as_code_block, clip_text
from agent.real import running_server, script_json
from agent.scripts import parse_script

GOOD_REPLY = {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}
TRACKER = "http://127.0.0.1:9/track.png"


@pytest.fixture
def at(monkeypatch) -> AppTest:
    return open_sandbox(monkeypatch)


def upload(at: AppTest, data: bytes, name: str = "hostile.json") -> AppTest:
    return run(at.file_uploader(key="upload").upload(name, data, "application/json"))


def markdown_sources(at: AppTest) -> list[str]:
    """The markdown of every element Streamlit renders as markdown."""
    kinds = ("markdown", "caption", "error", "warning", "info", "success")
    return [element.value for kind in kinds for element in at.get(kind)]


def controls_still_there(at: AppTest) -> None:
    assert [b for b in at.button if b.label == "Step"] or player_shows(at)  # the page's Step, or the player's
    assert at.selectbox(key="script") and at.get("file_uploader")


HOSTILE_UPLOADS = {
    "nested 100,000 deep": (b'{"replies": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested more than"),
    "a 4,301-digit integer": (json.dumps({"replies": [GOOD_REPLY], "max_turns": 1}).replace(
        '"max_turns": 1', '"max_turns": ' + "7" * 4301).encode(), "a number of 4,301 characters"),
    "an unhashable block type": (json.dumps({"replies": [{"stop_reason": "end_turn", "content": [
        {"type": ["text"], "text": "x"}]}]}).encode(), "type must be a string"),
    "an unhashable tool": (json.dumps({"replies": [GOOD_REPLY], "tools": [{"a": 1}]}).encode(), "named by a string"),
    "a lone surrogate": (json.dumps({"replies": [GOOD_REPLY]}).replace('"done"', '"\\ud800"').encode(),
                         "lone surrogate"),
    "huge usage numbers": (json.dumps({"replies": [{**GOOD_REPLY, "usage": {"input_tokens": 10**30}}]}).encode(),
                           "usage must be"),
    "an error status of 10**30": (json.dumps({"replies": [{"error": {"status": 10**30, "type": "x", "message": "m"}},
                                                          GOOD_REPLY]}).encode(), "not a status"),
    "a retry_after of NaN": (b'{"replies": [{"error": {"status": 429, "type": "rate_limit_error", "message": "m", '
                             b'"retry_after": NaN}}, {"stop_reason": "end_turn", "content": []}]}', "NaN"),
}


@pytest.mark.parametrize("case", HOSTILE_UPLOADS)
def test_a_hostile_upload_is_said_in_words_and_the_page_goes_on(at, case):
    data, words = HOSTILE_UPLOADS[case]
    upload(at, data)
    assert len(at.error) == 1 and words in at.error[0].value.replace("\\", "")
    controls_still_there(at)
    click(at, "Step")  # the reference run is still there, and still steps
    assert at.session_state["sandbox"].run.turn == 1


def test_usage_numbers_at_the_limit_run_to_the_end_without_a_traceback(at):
    huge = {"input_tokens": 10**12, "output_tokens": 10**12, "cache_read_input_tokens": 10**12}
    upload(at, json.dumps({"replies": [{**GOOD_REPLY, "usage": huge}] * 2}).encode())
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.done


MARKDOWN = f"![x]({TRACKER}) # heading **bold** <img src={TRACKER}> `tick` :red[red] $x$\n# line heading\n==="


def markdown_script() -> bytes:
    return json.dumps({
        "title": MARKDOWN, "about": MARKDOWN,
        "replies": [{"error": {"status": 529, "type": "overloaded_error", "message": MARKDOWN}},
                    {"stop_reason": MARKDOWN, "content": [{"type": "text", "text": MARKDOWN}]}]}).encode()


RENDERED = [re.compile(pattern, re.MULTILINE) for pattern in (
    r"(?<!\\)!(?<!\\)\[", r"(?<!\\)\]\(", r"(?<!\\)<img", r"(?<!\\)\*\*bold", r"(?<!\\):red\[", r"(?<!\\)\$x",
    r"^\s*#+ (line )?heading", r"^\s*=+\s*$", r"(?<!\\)`tick")]
"""The markdown of `MARKDOWN`, unescaped: an image, a link, HTML, bold, colour, LaTeX, headings, a code span."""


CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
"""A markdown code span (`as_code`): what it holds is shown literally, so it is left out of the search."""


def assert_no_markdown_of_ours_rendered(at: AppTest) -> None:
    for source in map(lambda text: CODE_SPAN.sub("", text), markdown_sources(at)):
        for structure in RENDERED:
            assert not structure.search(source), (structure.pattern, source)
    for card in at.get("html"):
        assert "<img" not in card.proto.body  # the cards escape HTML: it reaches the browser as &lt;img


def test_markdown_in_a_scripts_title_about_error_message_and_stop_reason_is_shown_as_text(at):
    upload(at, markdown_script())
    assert at.session_state["script"].endswith("(your file)")
    assert_no_markdown_of_ours_rendered(at)
    assert any("heading" in source for source in markdown_sources(at))  # the words are there, as text
    click(at, "Step")  # the error entry: its message is shown
    assert at.session_state["sandbox"].run.error and "heading" in page_text(at)
    assert_no_markdown_of_ours_rendered(at)
    click(at, "Step")  # the reply with a markdown stop reason: the run stops, said in the outcome and the details
    assert at.session_state["sandbox"].run.done
    assert_no_markdown_of_ours_rendered(at)
    click(at, "Step")  # "the loop has finished (...)" quotes the result
    assert_no_markdown_of_ours_rendered(at)


def test_markdown_in_an_unknown_keys_name_in_a_load_error_is_shown_as_text(at):
    upload(at, json.dumps({"replies": [GOOD_REPLY], MARKDOWN: 1}).encode())
    assert "unknown key" in at.error[0].value
    assert_no_markdown_of_ours_rendered(at)


@pytest.mark.parametrize("max_turns", [501, 2000])
def test_a_turn_limit_above_the_pages_maximum_is_capped_and_said(at, max_turns):
    calls = [{"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "add",
                                                      "input": {"a": 1, "b": 2}}]} for n in range(3)]
    upload(at, json.dumps({"replies": [*calls, GOOD_REPLY], "max_turns": max_turns}).encode())
    assert at.session_state["max_turns"] == 500 and at.session_state["sandbox"].run.max_turns == 500
    warning = " ".join(w.value for w in at.warning).replace("\\", "")
    assert f"{max_turns:,}" in warning and "500" in warning
    click(at, "Run to end")
    assert at.session_state["sandbox"].run.result == "done"  # not "no answer after 1 turns"


# ---------------------------------------------------------------- the real model: huge replies, echoed keys, garbage



def test_a_20_mb_reply_is_drawn_clipped_and_whole_in_the_exports(at):
    huge = "x" * (20 * 1024 * 1024)  # no spaces: one streamed piece, so the test spends its time on the page
    script = parse_script({"replies": [{"stop_reason": "end_turn", "content": [{"type": "text", "text": huge}]}]})
    with running_server(script) as server:
        choose_real(at, server.base_url, "local")
        click(at, "Step")
        for tab in ("Run", "Messages", "Export"):
            open_tab(at, tab)
            sizes = [len(text) for text in everything_shown(at)]
            assert max(sizes) < 300_000, (tab, max(sizes))  # clipped: no element carries megabytes to the browser
        assert at.session_state["sandbox"].run.result == huge  # the run holds the whole, and so do the exports
        assert huge in json.loads(at.session_state["sandbox"].run.to_json())["result"]


def test_a_key_echoed_inside_a_successful_reply_reaches_no_element_and_no_export(at):
    secret = "sk-ant-api03-ECHOED-CANARY-0123456789"
    echo = {"stop_reason": "tool_use", "content": [
        {"type": "text", "text": f"your key is {secret}"},
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2, secret: secret}}]}
    script = parse_script({"replies": [echo, {"stop_reason": "end_turn",
                                              "content": [{"type": "text", "text": f"{secret}!"}]}]})
    with running_server(script, mode="real-api") as server:
        choose_real(at, server.base_url, secret)
        click(at, "Run to end")
        for tab in ("Run", "Messages", "Export"):
            open_tab(at, tab)
            assert not any(secret in text for text in everything_shown(at)), tab
        run_state = at.session_state["sandbox"].run
        assert "[the key]" in run_state.to_json() and secret not in run_state.to_json()
        assert secret not in json.dumps(run_state.messages) and secret not in script_json(run_state)


class _Garbage(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = b"\xff\xfe\x00garbage \x80\x81 not a message"
        self.send_response(200)
        self.send_header("content-type", self.server.content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("content_type", ["application/json", "text/event-stream"])
def test_a_garbage_200_body_is_said_in_words(at, content_type):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    server.content_type = content_type
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        choose_real(at, f"http://127.0.0.1:{server.server_address[1]}", "local")
        click(at, "Step")
    finally:
        server.shutdown()
        server.server_close()
    error = " ".join(e.value for e in at.error).replace("\\", "")
    assert "did not answer like the Messages API" in error, error
    assert "codec" not in error and "UnicodeDecodeError:" not in error


def test_usage_no_real_reply_has_from_a_server_is_said_in_words(at):
    from agent.scripts import Script

    # Built directly, past the script checks: a server's garbage, not a script anyone could load.
    garbage = Script(replies=[{"stop_reason": "end_turn", "content": [{"type": "text", "text": "hi"}],
                               "usage": {"input_tokens": 10**400, "output_tokens": 1}}])
    with running_server(garbage) as server:
        choose_real(at, server.base_url, "local")
        click(at, "Run to end")
    error = " ".join(e.value for e in at.error).replace("\\", "")
    assert "did not answer like the Messages API" in error and "a number of 401 digits" in error, error


def test_a_lone_surrogate_from_a_server_is_said_in_words_and_the_page_goes_on(at):
    from agent.scripts import Script

    garbage = Script(replies=[{"stop_reason": "end_turn", "content": [{"type": "text", "text": "a\ud800b"}]}])
    with running_server(garbage) as server:
        choose_real(at, server.base_url, "local")
        click(at, "Step")
    error = " ".join(e.value for e in at.error).replace("\\", "")
    assert "did not answer like the Messages API" in error and "lone surrogate" in error, error
    run(at.radio(key="model_choice").set_value("Script"))  # the page goes on: back to the script, and it steps
    controls_still_there(at)
    click(at, "Reset")
    click(at, "Step")
    assert at.session_state["sandbox"].run.turn == 1


LINES = hs.lists(hs.one_of(
    hs.sampled_from(["```", "````", "   ```", "``` python", "~~~", "`", "``"]),  # fences and near-fences
    hs.text(alphabet=hs.characters(whitelist_categories=("L", "N", "P", "S", "Zs"),
                                              whitelist_characters="` "), max_size=20)))


@settings(max_examples=300, deadline=None)
@given(lines=LINES)
def test_a_code_block_holds_any_text_whole_and_nothing_inside_can_close_it(lines):
    text = "\n".join(lines)
    block = as_code_block(text).split("\n")
    fence = block[0]
    assert block[-1] == fence and set(fence) == {"`"} and len(fence) >= 3
    inside = block[1:-1]
    assert "\n".join(inside) == clip_text(text)
    # CommonMark closes a backtick block at a line of at least as many backticks, indented up to three spaces.
    assert not any(line.lstrip(" ").startswith(fence) and len(line) - len(line.lstrip(" ")) <= 3 for line in inside)
