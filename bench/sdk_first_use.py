"""How long the first request that needs the anthropic SDK stops the page, with and without the import ahead.

A script's error entry (the 529 script), the 529 and timeout faults and the real model all need the SDK.
Each figure comes from a fresh Python process, as a freshly started server is: the SDK's import alone; the
first Step of the 529 script's error entry with the SDK not yet imported (how the page was); and the same Step
after `agent.page.real_model.import_sdk_ahead()` has finished in the background (how the page is: it starts the
import as it is first drawn). Prints each run, the medians, and the ratio of the cold Step to the warmed one.

    python bench/sdk_first_use.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IMPORT_ONLY = """
import time
started = time.perf_counter()
import anthropic
print(time.perf_counter() - started)
"""
FIRST_ERROR_STEP = """
import sys, time
from agent.models.fake import FakeModel
from agent.loop import RunState, step
from agent.page import real_model
from agent.scripts import load_script
if sys.argv[1] == "ahead":
    real_model.import_sdk_ahead()
    real_model.wait_for_sdk()  # the person is still reading the page when it finishes
script = load_script("overloaded_529")
state, model = RunState(script.task, tool_names=script.tools), FakeModel(script)
step(state, model)  # turn 1: a reply
started = time.perf_counter()
record = step(state, model)  # the error entry: the SDK's OverloadedError
assert record.path == "model_error", record
print(time.perf_counter() - started)
"""


def seconds(code: str, *args: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          check=True, timeout=300)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    rows = {"import anthropic": [], "first error Step, SDK not imported": [],
            "first error Step, SDK imported ahead": []}
    for _ in range(runs):
        rows["import anthropic"].append(seconds(IMPORT_ONLY))
        rows["first error Step, SDK not imported"].append(seconds(FIRST_ERROR_STEP, "cold"))
        rows["first error Step, SDK imported ahead"].append(seconds(FIRST_ERROR_STEP, "ahead"))
    for name, values in rows.items():
        print(f"{name:40} median {statistics.median(values) * 1000:8.1f} ms   runs: "
              + ", ".join(f"{v * 1000:.1f}" for v in values))
    cold = statistics.median(rows["first error Step, SDK not imported"])
    ahead = statistics.median(rows["first error Step, SDK imported ahead"])
    print(f"the first error Step with the SDK imported ahead takes 1/{cold / ahead:,.0f} of the time it took cold")


if __name__ == "__main__":
    main()
