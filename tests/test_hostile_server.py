"""The stand-in server against hostile and careless requests, over real HTTP (raw sockets where no client would).

Every answer is the API's JSON error shape with a `request-id` header and the right 4xx; never the standard
library's HTML page, never a 500 naming an internal exception, never a held connection (issue 10).
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import anthropic
import pytest

import agent.real.http_transport as transport
from agent.real import running_server
from agent.real.server import StandInServer
from agent.scripts import parse_script
from helpers import reply, text
from raw_http import Answer, closed_by_server, connect, exchange, post_bytes, read_answer

GOOD = {"model": "m", "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]}
SCRIPT = parse_script({"replies": [reply("end_turn", text("hello there, friend"))]}, name="hostile")


@pytest.fixture
def server():
    with running_server(SCRIPT) as running:
        yield running


def assert_api_error(answer: Answer, status: int, kind: str = "invalid_request_error") -> str:
    """The API's error shape: the status, a JSON body with type/message/request_id, the request-id header."""
    assert answer.status == status, (answer.status, answer.body[:300])
    assert answer.headers.get("content-type") == "application/json"
    body = answer.json()
    assert body["type"] == "error" and body["error"]["type"] == kind, body
    assert body["request_id"] == answer.headers["request-id"] and body["request_id"].startswith("req_")
    return body["error"]["message"]


def post_json_text(server, text: str) -> Answer:
    return exchange(server.base_url, post_bytes("/v1/messages", text.encode()))


def test_a_good_request_over_a_raw_socket_is_answered(server):
    answer = post_json_text(server, json.dumps(GOOD))
    assert answer.status == 200 and answer.json()["content"][0]["text"] == "hello there, friend"


@pytest.mark.parametrize("body, words", [
    ("[]", "a JSON object is expected, not a JSON array"),
    ('[{"role": "user", "content": "hi"}]', "a JSON object is expected"),
    ('"text"', "a JSON object is expected"),
    ('{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than"),
    ('{"model": "m", "max_tokens": ' + "9" * 4301 + ', "messages": []}', "a number of 4,301 characters"),
    ('{"model": "m", "max_tokens": NaN, "messages": []}', "NaN is not a JSON number"),
    ('{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "\\ud800"}]}', "lone surrogate"),
    ("{not json", "not JSON"),
])
def test_a_body_that_is_not_a_sane_json_object_gets_400_in_words(server, body, words):
    message = assert_api_error(post_json_text(server, body), 400)
    assert words in message and "Error" not in message


def test_a_body_that_is_not_utf8_gets_400(server):
    answer = exchange(server.base_url, post_bytes("/v1/messages", b'{"model": "caf\xe9"}'))
    assert "not UTF-8" in assert_api_error(answer, 400)


@pytest.mark.parametrize("kind", [["text"], {"a": 1}])
def test_an_unhashable_block_type_never_gets_a_500_naming_the_exception(server, kind):
    body = {**GOOD, "messages": [{"role": "user", "content": [{"type": kind, "text": "x"}]}]}
    answer = post_json_text(server, json.dumps(body))
    message = answer.json()["error"]["message"]
    assert answer.headers["request-id"] and "TypeError" not in message and "unhashable" not in message


@pytest.mark.parametrize("kind", [["text"], {"a": 1}])
def test_an_unhashable_block_type_gets_400(server, kind):
    body = {**GOOD, "messages": [{"role": "user", "content": [{"type": kind, "text": "x"}]}]}
    assert_api_error(post_json_text(server, json.dumps(body)), 400)


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "BREW"])
def test_every_other_method_gets_405_in_the_api_shape(server, method):
    answer = exchange(server.base_url, f"{method} /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n"
                      .encode())
    assert method in assert_api_error(answer, 405)
    assert answer.headers["allow"] == "GET, HEAD, POST"


def test_head_is_answered_like_get_without_a_body_and_the_connection_goes_on(server):
    with connect(server.base_url) as sock:
        buffer = bytearray()
        sock.sendall(b"HEAD /health HTTP/1.1\r\nhost: x\r\n\r\n")
        head = read_answer(sock, buffer, head_only=True)
        assert head.status == 200 and int(head.headers["content-length"]) > 0 and head.headers["request-id"]
        sock.sendall(b"HEAD /nowhere HTTP/1.1\r\nhost: x\r\n\r\n")
        assert read_answer(sock, buffer, head_only=True).status == 404
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")  # no body was left over to be misread
        assert read_answer(sock, buffer).json()["script"] == "hostile"


@pytest.mark.parametrize("line", [b"GARBAGE", b"\x00\x01\x02 \xff", b"GET /", b"GET / HTTP/2.0", b"GET / HTTP/9",
                                  b"GET / SPDY/1.1", b"POST /v1/messages HTTP/1.1 extra"])
def test_a_malformed_request_line_gets_400_with_a_status_line_and_a_request_id(server, line):
    answer = exchange(server.base_url, line + b"\r\nhost: x\r\n\r\n")
    assert_api_error(answer, 400)


def test_http_2_is_told_to_speak_http_1_1(server):
    assert "HTTP/1.1" in assert_api_error(exchange(server.base_url, b"GET / HTTP/2.0\r\n\r\n"), 400)


def test_a_request_line_too_long_gets_414(server):
    assert_api_error(exchange(server.base_url, b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n"), 414)


def chunked(data: bytes, size: int = 7) -> bytes:
    pieces = [data[i:i + size] for i in range(0, len(data), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def test_a_chunked_body_is_read_and_the_kept_alive_connection_stays_in_step(server):
    head = "POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: k\r\ntransfer-encoding: chunked\r\n\r\n"
    with connect(server.base_url) as sock:
        buffer = bytearray()
        for _ in range(2):  # the second request is read as a request, not as the first one's leftovers
            sock.sendall(head.encode() + chunked(json.dumps(GOOD).encode()))
            answer = read_answer(sock, buffer)
            assert answer.status == 200, answer.body
            assert answer.json()["content"][0]["text"] == "hello there, friend"


@pytest.mark.parametrize("broken", [b"zz\r\nabc\r\n0\r\n\r\n", b"5\r\nab", b"3\r\nabcXX0\r\n\r\n", b"-1\r\n"])
def test_a_broken_chunked_body_gets_400_and_the_connection_closes(server, broken):
    head = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: k\r\ntransfer-encoding: chunked\r\n\r\n"
    with connect(server.base_url) as sock:
        sock.sendall(head + broken)
        if broken == b"5\r\nab":
            sock.shutdown(socket.SHUT_WR)
        assert_api_error(read_answer(sock), 400)
        assert closed_by_server(sock)


def test_a_post_without_content_length_gets_411_and_is_not_held(server):
    with connect(server.base_url) as sock:
        sock.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: k\r\n\r\n" + json.dumps(GOOD).encode())
        answer = read_answer(sock)
        assert_api_error(answer, 411)
        assert answer.headers.get("connection") == "close" and closed_by_server(sock)


def test_a_body_cut_short_by_a_half_close_gets_400_never_an_answer(server):
    raw = post_bytes("/v1/messages", json.dumps(GOOD).encode())
    truncated = raw.replace(b"content-length: ", b"content-length: 1").rsplit(b"}", 1)[0]  # promises more
    message = assert_api_error(exchange(server.base_url, truncated, half_close=True), 400)
    assert "ended after" in message


def test_a_body_that_never_arrives_gets_408_and_frees_its_thread(server, monkeypatch):
    monkeypatch.setattr(transport, "BODY_TIMEOUT", 0.5)
    before = threading.active_count()
    socks = [connect(server.base_url) for _ in range(30)]
    try:
        for sock in socks:
            sock.sendall(post_bytes("/v1/messages", b"{}").replace(b"content-length: 2", b"content-length: 900")[:-2])
        for sock in socks:
            assert_api_error(read_answer(sock), 408)
            assert closed_by_server(sock)
        deadline = time.monotonic() + 5
        while threading.active_count() > before + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() <= before + 2
    finally:
        for sock in socks:
            sock.close()


@pytest.mark.parametrize("length", ["-1", "abc", "1e3", str(transport.MAX_BODY_BYTES + 1)])
def test_a_content_length_that_is_no_length_is_refused(server, length):
    answer = exchange(server.base_url, post_bytes("/v1/messages", b"{}").replace(b"content-length: 2",
                                                                                  f"content-length: {length}".encode()))
    assert answer.status in (400, 413) and answer.json()["type"] == "error"


def test_a_fault_of_the_server_is_a_generic_500_and_its_cause_only_in_the_log(monkeypatch):
    lines = []

    def broken(self, *request):
        raise RuntimeError("internal detail")

    monkeypatch.setattr(StandInServer, "answer", broken)
    with running_server(SCRIPT, log=lines.append) as running:
        message = assert_api_error(post_json_text(running, json.dumps(GOOD)), 500, "api_error")
    assert "RuntimeError" not in message and "internal detail" not in message
    assert any("RuntimeError: internal detail" in line for line in lines)


def test_a_fault_of_the_http_layer_itself_is_the_same_generic_500(monkeypatch):
    lines = []

    async def broken(receive):
        raise RuntimeError("frame detail")

    monkeypatch.setattr(transport, "_read_body", broken)
    with running_server(SCRIPT, log=lines.append) as running:
        message = assert_api_error(post_json_text(running, json.dumps(GOOD)), 500, "api_error")
    assert "frame detail" not in message and any("RuntimeError: frame detail" in line for line in lines)


def test_the_sdk_still_works_after_hostile_neighbours(server):
    for raw in (b"GARBAGE\r\n\r\n", b"PUT / HTTP/1.1\r\n\r\n"):
        exchange(server.base_url, raw)
    sdk = anthropic.Anthropic(api_key="k", base_url=server.base_url, max_retries=0)
    assert sdk.messages.create(**GOOD).content[0].text == "hello there, friend"


# ---------------------------------------------------------------- the CLI's server: whole log lines, a graceful stop

LOG_LINE = re.compile(r"^(POST|GET|PUT) /\S* -> \d{3}( .*)?$")


def start_cli_server(*options):
    process = subprocess.Popen([sys.executable, "-m", "agent", "serve", "add_then_answer", "--port", "0", *options],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in process.stdout:
        if line.startswith("Base URL: "):
            return process, line.split(": ", 1)[1].strip()
    raise AssertionError(process.stderr.read())


def stream_request(base_url):
    body = json.dumps({**GOOD, "stream": True}).encode()
    sock = connect(base_url, timeout=30)
    sock.sendall(post_bytes("/v1/messages", body))
    return sock


def test_sigterm_under_50_streams_lets_them_finish_says_stopped_and_exits_0():
    process, base_url = start_cli_server("--delay", "1.5")
    try:
        socks = [stream_request(base_url) for _ in range(50)]
        time.sleep(0.5)  # every request is in, each waiting out its delay
        process.send_signal(signal.SIGTERM)
        answers = [read_answer(sock) for sock in socks]
        output, errors = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, errors
    assert all(a.status == 200 and a.body.rstrip().endswith(b'data: {"type": "message_stop"}') for a in answers)
    lines = output.splitlines()
    assert lines[-1].startswith("stopped: ") and "every request in flight was answered" in lines[-1]
    log = [line for line in lines if " -> " in line]
    assert len(log) == 50 and all(LOG_LINE.match(line) for line in log), log
    with pytest.raises(OSError):  # no longer accepting
        connect(base_url, timeout=2).sendall(b"GET / HTTP/1.1\r\n\r\n")
    for sock in socks:
        sock.close()


def test_concurrent_log_lines_never_run_into_each_other():
    process, base_url = start_cli_server()
    try:
        results = []

        def client():
            for _ in range(5):
                results.append(exchange(base_url, post_bytes("/v1/messages", json.dumps(GOOD).encode())).status)
                results.append(exchange(base_url, b"PUT /x HTTP/1.1\r\ncontent-length: 0\r\n\r\n").status)

        threads = [threading.Thread(target=client) for _ in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        os.kill(process.pid, signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    log = [line for line in output.splitlines() if " -> " in line]
    assert len(log) == len(results) == 400 and all(LOG_LINE.match(line) for line in log)


def test_a_newline_from_a_script_or_a_client_never_splits_a_log_line():
    lines = []
    script = parse_script({"replies": [reply("stopped\nPOST /forged -> 200", text("x"))]}, name="newlines")
    with running_server(script, log=lines.append) as running:
        post_json_text(running, json.dumps(GOOD))
        post_json_text(running, json.dumps({**GOOD, "messages": [{"role": "user\nGET /x", "content": "hi"}]}))
        exchange(running.base_url, b"GET /a%0Ab\x01 HTTP/1.1\r\n\r\n")
    assert len(lines) == 3 and not any("\n" in line for line in lines), lines


def test_a_get_with_a_body_is_answered_and_its_body_never_read_as_the_next_request(server):
    with connect(server.base_url) as sock:
        buffer = bytearray()
        body = b"PUT /x HTTP/1.1\r\n\r\nab"  # were it left unread, this would be answered as a request
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        assert read_answer(sock, buffer).json()["script"] == "hostile"
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
        assert read_answer(sock, buffer).status == 200


# ---------------------------------------------------------------- what uvicorn's h11 layer meets before any route

def test_a_request_h11_refuses_is_answered_in_the_api_shape_and_logged_with_its_method_and_path():
    lines = []
    with running_server(SCRIPT, log=lines.append) as running:
        message = assert_api_error(exchange(running.base_url, b"PUT /x HTTP/1.1\r\ncontent-length: 0\r\n\r\n"), 400)
    assert message == "an HTTP/1.1 request needs a host header"
    assert lines == ["PUT /x -> 400 invalid_request_error: an HTTP/1.1 request needs a host header"]


def test_headers_too_long_get_431(server):
    head = b"GET / HTTP/1.1\r\nhost: x\r\n" + b"x-filler: " + b"a" * 70_000 + b"\r\n\r\n"
    assert_api_error(exchange(server.base_url, head), 431)


def test_a_whole_request_then_a_half_close_is_still_answered():
    with running_server(SCRIPT, delay=0.3) as running:  # the close has arrived long before the answer is ready
        answer = exchange(running.base_url, post_bytes("/v1/messages", json.dumps(GOOD).encode()), half_close=True)
    assert answer.status == 200 and answer.json()["content"][0]["text"] == "hello there, friend"


@pytest.mark.parametrize("sent", [b"", b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n"])
def test_a_connection_that_never_finishes_its_head_is_closed_after_the_idle_time(monkeypatch, sent):
    monkeypatch.setattr(transport, "IDLE_TIMEOUT", 0.5)  # read when the server is made
    with running_server(SCRIPT) as running, connect(running.base_url) as sock:
        sock.sendall(sent)
        assert closed_by_server(sock, wait=5)


def test_every_connection_it_accepts_has_nagle_off(server):
    """An answer in two writes on a connection with Nagle on waits for the client's delayed ACK (about 40 ms)."""
    with connect(server.base_url) as sock:
        buffer = bytearray()
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
        assert read_answer(sock, buffer).status == 200
        accepted = [connection.transport.get_extra_info("socket")
                    for connection in server.uvicorn.server_state.connections]
        assert accepted and all(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) for s in accepted)


def chunks_of(framed: bytes) -> list[bytes]:
    """The chunks of a chunked body, as they were framed."""
    chunks = []
    while True:
        size_line, _, framed = framed.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return chunks
        chunks.append(framed[:size])
        framed = framed[size + 2:]


@pytest.mark.parametrize("delay", [0.0, 0.05])
def test_a_paced_stream_sends_its_events_one_by_one_and_an_unpaced_one_at_once(delay):
    """With a delay each event leaves on its own (a learner watches the reply arrive); without, in one write."""
    with running_server(SCRIPT, delay=delay) as running, connect(running.base_url) as sock:
        sock.sendall(post_bytes("/v1/messages", json.dumps({**GOOD, "stream": True}).encode()))
        raw = bytearray()
        while not raw.endswith(b"\r\n0\r\n\r\n"):
            raw += sock.recv(65536)
    chunks = chunks_of(bytes(raw).partition(b"\r\n\r\n")[2])
    events = b"".join(chunks).count(b"event: ")
    assert events > 5 and len(chunks) == (events if delay else 1)
    assert all(chunk.startswith(b"event: ") and chunk.endswith(b"\n\n") for chunk in chunks)


def test_a_stop_whose_grace_runs_out_answers_what_it_cuts_off_in_the_api_shape():
    process, base_url = start_cli_server("--delay", "5", "--grace", "0.5")
    try:
        socks = [stream_request(base_url) for _ in range(3)]
        time.sleep(0.5)  # every request is in, each waiting out its delay
        process.send_signal(signal.SIGTERM)
        answers = [read_answer(sock) for sock in socks]
        output, errors = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, errors
    for answer in answers:
        assert "stopped before it answered" in assert_api_error(answer, 503, "api_error")
        assert answer.headers["x-should-retry"] == "true"
    assert output.splitlines()[-1] == "stopped: 3 request(s) still being answered after 0.5 s were cut off"
    for sock in socks:
        sock.close()
