"""Many clients run whole loops against one stand-in server at once; none gets another's reply.

Bounded: CLIENTS clients of TURNS turns each, and a time limit on the whole. The
server's estimate of a request's input tokens depends on that request alone,
and every client's task has its own length, so a reply that went to the wrong
client shows up as a wrong `input_tokens`, besides a wrong console.
"""

import threading
import time

import anthropic  # imported before the clients start, so the figures time requests, not the first import

from agent.loop import RunState, run_to_end, step
from agent.models.fake import FakeModel
from agent.real.anthropic_model import AnthropicModel
from agent.real.server import estimate_tokens, running_server
from agent.scripts import parse_script
from agent.summary import console_lines
from agent.tools import tool_schemas
from helpers import reply, text, tool_use

CLIENTS = 24
TURNS = 5
TIME_LIMIT = 120.0  # seconds for the whole crowd; a hang fails the test instead of stalling CI

REPLIES = [reply("tool_use", tool_use(f"toolu_{k}", tool_input={"a": k, "b": 1})) for k in range(1, TURNS)]
REPLIES.insert(2, {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}})
REPLIES.append(reply("end_turn", text("All added.")))
SCRIPT = parse_script({"replies": REPLIES, "tools": ["add"], "system": "Add as asked."}, name="crowd")


def new_state(client):
    task = f"client {client}: add the numbers " + "x" * (13 * client)
    return RunState(task, system=SCRIPT.system, tool_names=SCRIPT.tools)


def run_client(client, base_url, outcomes):
    state = new_state(client)
    model = AnthropicModel("sk-load-test-key", base_url=base_url, max_retries=0, timeout=60)
    while not state.done and len(state.records) < 3 * TURNS:
        step(state, model)
    outcomes[client] = state


def test_many_clients_at_once_each_get_their_own_run():
    assert anthropic.Anthropic  # already imported: see the import above
    outcomes = {}
    with running_server(SCRIPT) as server:
        threads = [threading.Thread(target=run_client, args=(c, server.base_url, outcomes), daemon=True)
                   for c in range(CLIENTS)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=max(0.0, TIME_LIMIT - (time.perf_counter() - started)))
        seconds = time.perf_counter() - started
        answered = server.requests_answered
    assert not any(thread.is_alive() for thread in threads), f"clients still running after {TIME_LIMIT:g} s"
    assert sorted(outcomes) == list(range(CLIENTS))

    for client, state in outcomes.items():
        expected = new_state(client)
        run_to_end(expected, FakeModel(SCRIPT))
        got, want = console_lines(state), console_lines(expected)
        # The real model's failure adds its hint after the API's words: "... Overloaded (the API is overloaded: ...)".
        assert len(got) == len(want), f"client {client}"
        assert all(g.startswith(w) for g, w in zip(got, want, strict=True)), f"client {client}"
        assert [r.path for r in state.records].count("model_error") == 1, f"client {client}"
        for record in state.records:
            if record.reply is not None:  # the server sized this reply's input from the request it answered
                sent = estimate_tokens(SCRIPT.system, tool_schemas(SCRIPT.tools), state.messages[:record.sent])
                assert record.reply["usage"]["input_tokens"] == sent, f"client {client}, turn {record.turn}"
    assert answered == CLIENTS * (TURNS + 1)

    # A client's first request also builds its SDK client (an SSL context: tens of ms), so it is timed apart.
    first = [s.records[0].model_seconds for s in outcomes.values()]
    later = [r.model_seconds for s in outcomes.values() for r in s.records[1:]]
    print(f"\nload: {CLIENTS} clients x {TURNS} turns (+1 injected 529 each) = {answered} requests in "
          f"{seconds:.2f} s, {answered / seconds:.0f} requests/s; per request: median {ms(later)} ms, "
          f"p95 {ms(later, 0.95)} ms; a client's first request (SDK client built) median {ms(first)} ms")


def ms(seconds, quantile=0.5):
    ordered = sorted(seconds)
    return f"{ordered[min(len(ordered) - 1, int(quantile * len(ordered)))] * 1000:.1f}"
