"""What the real-model adapter adds to a turn, against the bare SDK call on the same local server.

Starts the stand-in server on a free port with a script of `--turns` turns (one
`add` call each, then an answer), builds the conversation the loop sends at
every turn, and for each turn times, in turn and on the same request:

- `adapter`: `AnthropicModel.create` (the real-API check, the stream with its
  events handed on, the final message dumped to a plain dict);
- `sdk stream`: `client.messages.stream(...)` and `get_final_message()`;
- `sdk create`: `client.messages.create(...)`, no stream.

Prints the median time of each, the adapter's median overhead per turn, and
the ratios. The server runs in this process, so its share is the same for all three.

Run: python bench/adapter_overhead.py [--turns 30] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import anthropic

from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.real.anthropic_model import AnthropicModel
from agent.real.server import running_server
from agent.scripts import parse_script
from agent.tools import tool_schemas


def make_script(turns: int):
    replies = [{"stop_reason": "tool_use", "content": [
        {"type": "text", "text": f"Adding {k} and 1, as the task asks, one step at a time."},
        {"type": "tool_use", "id": f"toolu_{k}", "name": "add", "input": {"a": k, "b": 1}}]}
        for k in range(1, turns)]
    replies.append({"stop_reason": "end_turn", "content": [{"type": "text", "text": "All added."}]})
    return parse_script({"replies": replies, "tools": ["add"], "max_turns": turns, "system": "Add."}, name="bench")


def conversations(script) -> list[list[dict]]:
    """The messages the loop sends at each turn (offline, with the FakeModel)."""
    state = RunState("count up", system=script.system, tool_names=script.tools, max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return [state.messages[:record.sent] for record in state.records]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    script = make_script(args.turns)
    requests = conversations(script)
    tools = tool_schemas(script.tools)
    times: dict[str, list[float]] = {"adapter": [], "sdk stream": [], "sdk create": []}
    overheads: list[float] = []

    with running_server(script) as server:
        client = anthropic.Anthropic(api_key="bench", base_url=server.base_url, max_retries=0)
        model = AnthropicModel("bench", model="bench-model", base_url=server.base_url, max_retries=0,
                               on_event=lambda event: None)
        params = {"model": "bench-model", "max_tokens": 1024, "system": script.system, "tools": tools}

        def adapter(messages):
            model.create(messages, system=script.system, tools=tools, max_tokens=1024)

        def sdk_stream(messages):
            with client.messages.stream(messages=messages, **params) as stream:
                stream.get_final_message()

        def sdk_create(messages):
            client.messages.create(messages=messages, **params)

        calls = {"adapter": adapter, "sdk stream": sdk_stream, "sdk create": sdk_create}
        for call in calls.values():  # warm up: connections open, code paths imported
            call(requests[0])
        for repeat in range(args.repeats):
            for messages in requests:
                order = list(calls) if repeat % 2 == 0 else list(reversed(calls))  # no kind always goes first
                taken = {}
                for name in order:
                    started = time.perf_counter()
                    calls[name](messages)
                    taken[name] = time.perf_counter() - started
                    times[name].append(taken[name])
                overheads.append(taken["adapter"] - taken["sdk stream"])

    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.turns} turns x {args.repeats} repeats against the stand-in server at {server.base_url}")
    for name, value in median.items():
        print(f"  {name:<11} median {value * 1000:7.3f} ms per turn")
    print(f"  adapter overhead over the bare SDK stream: median {statistics.median(overheads) * 1000:.3f} ms per turn")
    print(f"  ratio adapter / sdk stream: {median['adapter'] / median['sdk stream']:.3f}")
    print(f"  ratio adapter / sdk create: {median['adapter'] / median['sdk create']:.3f}")


if __name__ == "__main__":
    main()
