"""What reading untrusted JSON costs: `agent.untrusted.parse_json` against a bare `json.loads`.

The body is a request of a long run (N turns of thinking, a tool call and its
result), as the stand-in server receives it. Prints both medians and their
ratio, for a body without and with a surrogate-pair escape (the second makes
every string be looked at for a lone surrogate), and, for scale, what the
request check (`agent.api.requests.check_body`) costs on the same body.

    python bench/untrusted_read.py [--turns 400] [--repeats 50]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from agent.api.requests import check_body
from agent.untrusted import MAX_FILE_BYTES, parse_json


def long_run_body(turns: int, task: str = "What is 2 + 3?") -> bytes:
    messages: list[dict] = [{"role": "user", "content": task}]
    for turn in range(turns):
        messages.append({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "add them " * 20, "signature": "sig" * 30},
            {"type": "tool_use", "id": f"toolu_{turn}", "name": "add", "input": {"a": 2, "b": 3}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn}",
                                                      "content": "5"}]})
    return json.dumps({"model": "m", "max_tokens": 1024, "messages": messages}).encode()


def median_ms(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    cases = (("plain text", "What is 2 + 3?"), ("with an emoji (a surrogate-pair escape)", "2 + 3 \U0001f600"))
    for label, task in cases:
        body = long_run_body(args.turns, task)
        bare = median_ms(lambda body=body: json.loads(body), args.repeats)
        checked = median_ms(lambda body=body: parse_json(body, "body", expect=dict, max_bytes=MAX_FILE_BYTES),
                            args.repeats)
        print(f"{label}: a {len(body):,}-byte body of {2 * args.turns + 1} messages: json.loads {bare:.2f} ms, "
              f"parse_json {checked:.2f} ms, ratio {checked / bare:.2f}x")
    parsed = json.loads(long_run_body(args.turns))
    request_check = median_ms(lambda: check_body(parsed, "lesson"), args.repeats)
    print(f"for scale, check_body on that body: {request_check:.2f} ms")

if __name__ == "__main__":
    main()
