"""The exercise's judge, part 3: loops written with asyncio, threads and dataclasses pass under both protections,
and what those modules open up (a socket pair, threads, a process starter imported) lets nothing out.

Each loop runs in the learner's process as a learner's would, under bubblewrap
(skipped without it, as in part 2) and under process limits (`isolation="process"`,
forced even where bubblewrap runs).
"""

import socket

import pytest
from test_exercise import CORRECT_LOOP, TURNS, with_bug
from test_exercise_judge import BRANCH_ON_CALLS, CREATE, OWN_LIMIT, bwrap_or_skip

from agent.__main__ import main
from agent.exercise import Limits, Protection, check_loop, exercise_script_names, format_check, runner

ISOLATIONS = ["bubblewrap", "process"]
AWAITED_CREATE = "        reply = await asyncio.to_thread(model.create, messages)\n"


def limits_for(isolation):
    if isolation == "bubblewrap":
        bwrap_or_skip()
    return Limits(seconds=10.0, isolation=isolation)


def as_async(source, create=AWAITED_CREATE):
    """A loop as `async def run_agent`, asking the model through `create`."""
    assert source.count("def run_agent(") == 1 and source.count(CREATE) == 1
    return "import asyncio\n" + source.replace("def run_agent(", "async def run_agent(").replace(CREATE, create)


# ---- correct loops written with asyncio, threads and dataclasses ------------------------------------------

ASYNCIO_RUN_INSIDE = (with_bug(("def run_agent(", "async def agent("), (CREATE, AWAITED_CREATE))
                      + "\n\ndef run_agent(task, model, max_turns):\n"
                        "    return asyncio.run(agent(task, model, max_turns))\n").replace(
    "import json\n", "import asyncio\nimport json\n")
ASYNC_DEF_SYNC_CREATE = as_async(CORRECT_LOOP, CREATE)
ASYNC_DEF_GATHERED_TOOLS = '''import asyncio
import json


async def run_agent(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = await asyncio.to_thread(model.create, messages)
        await asyncio.sleep(0)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(block["text"] for block in reply["content"] if block["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        calls = [block for block in reply["content"] if block["type"] == "tool_use"]
        results = await asyncio.gather(*(asyncio.to_thread(run_tool, block) for block in calls))
        for block, result in zip(calls, results):
            shown = json.dumps(block["input"], sort_keys=True)
            print(f"turn {turn}: {block['name']} {shown} -> {result['content']}")
        messages.append({"role": "user", "content": list(results)})
    return f"stopped: no answer after {max_turns} turns"
'''
SYNC_RETURNS_COROUTINE = with_bug(("def run_agent(", "async def agent(")) + (
    "\n\ndef run_agent(task, model, max_turns):\n    return agent(task, model, max_turns)\n")
THREADED = '''import json
import threading
from concurrent.futures import ThreadPoolExecutor


def loop(task, model, max_turns):
    messages = [{"role": "user", "content": task}]
    for turn in range(1, max_turns + 1):
        reply = model.create(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply["stop_reason"] == "end_turn":
            return "".join(block["text"] for block in reply["content"] if block["type"] == "text")
        if reply["stop_reason"] != "tool_use":
            return f"stopped: {reply['stop_reason']}"
        calls = [block for block in reply["content"] if block["type"] == "tool_use"]
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(run_tool, calls))
        for block, result in zip(calls, results):
            shown = json.dumps(block["input"], sort_keys=True)
            print(f"turn {turn}: {block['name']} {shown} -> {result['content']}")
        messages.append({"role": "user", "content": results})
    return f"stopped: no answer after {max_turns} turns"


def run_agent(task, model, max_turns):
    answer = {}
    worker = threading.Thread(target=lambda: answer.update(text=loop(task, model, max_turns)))
    worker.start()
    worker.join()
    return answer["text"]
'''
DATACLASSES = '''import collections
import copy
import enum
import functools
import itertools
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any


class Stop(enum.Enum):
    END_TURN = "end_turn"
    TOOL_USE = "tool_use"


@dataclass
class Conversation:
    task: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    counts: collections.Counter = field(default_factory=collections.Counter)

    def __post_init__(self):
        self.messages.append({"role": "user", "content": self.task})

    def ask(self, model):
        reply = model.create(copy.deepcopy(self.messages))
        self.counts[reply["stop_reason"]] += 1
        self.messages.append({"role": "assistant", "content": reply["content"]})
        return reply


@functools.lru_cache(maxsize=None)
def shown(text):
    return re.sub(r"\\s+", " ", text)


def run_agent(task, model, max_turns):
    started = time.monotonic()
    talk = Conversation(task)
    for turn in itertools.count(1):
        if turn > max_turns:
            return f"stopped: no answer after {max_turns} turns"
        reply = talk.ask(model)
        if reply["stop_reason"] == Stop.END_TURN.value:
            assert time.monotonic() >= started
            return "".join(block["text"] for block in reply["content"] if block["type"] == "text")
        if reply["stop_reason"] != Stop.TOOL_USE.value:
            return f"stopped: {reply['stop_reason']}"
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                result = run_tool(block)
                print(f"turn {turn}: {block['name']} {shown(json.dumps(block['input'], sort_keys=True))} "
                      f"-> {result['content']}")
                results.append(result)
        talk.messages.append({"role": "user", "content": results})
'''
# Eight threads ask for every tool result at once: each must get the answer to its own block.
RACING_THREADS = with_bug(("import json\n", '''import json
import threading


def run_all(calls):
    results, wrong = {}, []

    def worker():
        for block in calls:
            result = run_tool(block)
            if result["tool_use_id"] != block["id"]:
                wrong.append((block["id"], result["tool_use_id"]))
            results[block["id"]] = result

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if wrong:
        raise RuntimeError(f"a result answered another block: {wrong[:3]}")
    return [results[block["id"]] for block in calls]
'''), ("                result = run_tool(block)\n", "                result = run_all([block])[0]\n"))

CORRECT = {"asyncio.run inside run_agent": ASYNCIO_RUN_INSIDE, "async def, model.create called as is":
           ASYNC_DEF_SYNC_CREATE, "async def, tools gathered from threads": ASYNC_DEF_GATHERED_TOOLS,
           "a sync run_agent returning a coroutine": SYNC_RETURNS_COROUTINE, "threads and a thread pool": THREADED,
           "dataclasses and the standard library": DATACLASSES, "eight threads racing for results": RACING_THREADS}


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("style", sorted(CORRECT))
def test_a_correct_loop_written_with_asyncio_threads_or_dataclasses_passes_every_script(style, isolation):
    check = check_loop(CORRECT[style], limits=limits_for(isolation))
    assert check.passed, "\n".join(format_check(check))
    assert check.protection == ("bubblewrap" if isolation == "bubblewrap" else "process limits")
    assert [result.script for result in check.scripts] == exercise_script_names()


@pytest.mark.parametrize("protection", ["bubblewrap", "process limits"])
def test_check_loop_command_passes_async_loops_under_each_protection(protection, tmp_path, monkeypatch, capsys):
    if protection == "bubblewrap":
        bwrap_or_skip()
    else:  # as on a machine without bubblewrap: `auto` then means process limits
        monkeypatch.setattr(runner, "protection", lambda: Protection("process limits", "limits only"))
    for name, source in [("inside.py", ASYNCIO_RUN_INSIDE), ("async_def.py", ASYNC_DEF_GATHERED_TOOLS)]:
        path = tmp_path / name
        path.write_text(source)
        assert main(["check-loop", str(path)]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[1:-1] == [f"pass  {script}" for script in exercise_script_names()], lines
        assert lines[-1].endswith("scripts pass: well done")


THIRTY_TWO_THREADS = with_bug(("import json\n", "import json\nimport threading\n"), (TURNS, """\
    meeting = threading.Barrier(33)  # 32 threads alive at once, each with memory of its own: a full thread pool
    def work():
        kept = [bytearray(200_000) for _ in range(4)]
        meeting.wait(5)
        return kept
    threads = [threading.Thread(target=work) for _ in range(32)]
    for thread in threads:
        thread.start()
    meeting.wait(5)
    for thread in threads:
        thread.join()
""" + TURNS))


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_thirty_two_threads_at_once_fit_in_the_default_memory_limit(isolation):
    limits = limits_for(isolation)
    assert limits.memory_mb == 512
    check = check_loop(THIRTY_TWO_THREADS, ["add_then_answer", "two_file_search"], limits)
    assert check.passed, "\n".join(format_check(check))


# ---- the mistakes are named, and their lines found, in async and threaded loops -----------------------------


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("style", ["async def", "in a thread"])
def test_the_line_that_decided_to_ask_again_is_found_in_an_async_or_threaded_loop(style, isolation):
    if style == "async def":
        source = as_async(BRANCH_ON_CALLS)
    else:
        source = "import threading\n" + BRANCH_ON_CALLS.replace("def run_agent(", "def loop(") + (
            "\n\ndef run_agent(task, model, max_turns):\n    box = []\n"
            "    worker = threading.Thread(target=lambda: box.append(loop(task, model, max_turns)))\n"
            "    worker.start()\n    worker.join()\n    return box[0]\n")
    [result] = check_loop(source, ["cut_off_reply"], limits_for(isolation)).scripts
    assert (result.verdict, result.mistake) == ("too_many_requests", "ran_stopped_call"), result.summary
    assert source.splitlines()[result.line - 1].strip() == "if not calls:"
    assert result.line_note == "here your loop decided to ask again"


def test_an_async_loop_with_a_turn_limit_of_its_own_is_named_for_it():
    *_, result = check_loop(as_async(OWN_LIMIT), ["runaway", "short_leash"], Limits(seconds=10.0)).scripts
    assert (result.verdict, result.mistake) == ("too_many_requests", "own_turn_limit")


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_awaiting_model_create_is_named_on_every_script_with_the_line_and_the_fix(isolation):
    source = as_async(CORRECT_LOOP, "        reply = await model.create(messages)\n")
    check = check_loop(source, limits=limits_for(isolation))
    assert [(r.verdict, r.error.type, r.mistake) for r in check.scripts] == \
        [("exception", "TypeError", "awaited_plain_call")] * len(exercise_script_names())
    result = check.scripts[0]
    assert source.splitlines()[result.line - 1].strip() == "reply = await model.create(messages)"
    shown = "\n".join(format_check(check, source))
    assert "model.create and run_tool are plain functions here" in shown and "async def" in shown


def test_an_async_run_agent_that_raises_names_its_line_and_one_with_the_wrong_arguments_is_refused():
    source = as_async(with_bug((TURNS, TURNS + '        raise ValueError("not today")\n')))
    [result] = check_loop(source, ["add_then_answer"], Limits(seconds=10.0)).scripts
    assert (result.verdict, result.error.type, result.error.code) == (
        "exception", "ValueError", 'raise ValueError("not today")')
    problem = check_loop("async def run_agent(task):\n    return task\n", ["add_then_answer"]).problem
    assert problem == "run_agent must take three arguments: run_agent(task, model, max_turns)"


def test_a_thread_left_running_after_run_agent_returned_does_not_hold_up_the_check():
    source = with_bug(("import json\n", "import json\nimport threading\nimport time\n"),
                      (TURNS, "    threading.Thread(target=time.sleep, args=(600,)).start()\n" + TURNS))
    check = check_loop(source, ["add_then_answer", "two_file_search"], Limits(seconds=10.0, total_seconds=20.0))
    assert check.passed, "\n".join(format_check(check))


# ---- what asyncio and threads open up lets nothing out ------------------------------------------------------

ESCAPES = '''
import builtins, os, posixpath, socket, sys, threading
def probe(what, action):
    try:
        if action():
            found.append(what)
    except Exception:
        pass
def fork_exec(starter):
    read, write = os.pipe()
    return starter(["/bin/true"], [b"/bin/true"], True, (), None, None, -1, -1, -1, -1, -1, -1, read, write, True,
                   False, 0, None, None, None, -1, None, False)
def imported_process_starter():
    import _posixsubprocess
    return fork_exec(_posixsubprocess.fork_exec)
def subprocess_process_starter():
    import subprocess
    return fork_exec(subprocess._fork_exec)
def fresh_process_starter():
    sys.modules.pop("_posixsubprocess", None)
    import _posixsubprocess
    return fork_exec(_posixsubprocess.fork_exec)
def renamed_process_starter():
    import _imp, importlib.machinery, importlib.util
    folder = next(path for path in sys.path if path.endswith("lib-dynload"))
    name = next(name for name in os.listdir(folder) if name.startswith("_posixsubprocess"))
    loader = importlib.machinery.ExtensionFileLoader("x._posixsubprocess", f"{folder}/{name}")
    return fork_exec(_imp.create_dynamic(importlib.util.spec_from_loader("x._posixsubprocess", loader)).fork_exec)
def process_starter_through_importlib():
    import importlib
    sys.modules.pop("_posixsubprocess", None)
    return fork_exec(importlib.import_module("_posixsubprocess").fork_exec)
def ctypes_through_importlib():
    import importlib
    return importlib.import_module("_ctypes").PyObj_FromPtr(id(found)) is found
def asyncio_subprocess():
    import asyncio
    async def run():
        return await (await asyncio.create_subprocess_exec("/bin/true")).wait() == 0
    return asyncio.run(run())
def inet_socket():
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect_ex(("127.0.0.1", PORT)) == 0
def unix_connect():
    socket.socket(socket.AF_UNIX).connect(UNIX_PATH)
    return True
def unix_datagram():
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", UNIX_PATH)
def swapped_realpath():
    os.path.realpath = lambda path: sys.prefix + "/x"
    posixpath._joinrealpath = lambda *args: (sys.prefix + "/x", True)
    return open("/etc/passwd").read()
def swapped_builtins():
    builtins.any = lambda *args: False
    return open(MARKER, "w").write("x")
def climbed_out():
    return open(sys.prefix + "/lib" + "/.." * 20 + "/etc/passwd").read()
def own_tracer_in_a_thread():
    seen = []
    threading.settrace(lambda *args: None)
    thread = threading.Thread(target=lambda: seen.append(sys.gettrace()))
    thread.start()
    thread.join()
    threading.settrace(None)
    return bool(seen)
def ctypes_memory():
    import ctypes
    return ctypes.string_at(id(found), 8)
def model_code_swapped():
    def forged(self, messages, **options):
        return None
    type(MODEL).create.__code__ = forged.__code__
    return True
found = []
real_any, real_realpath, real_join = builtins.any, os.path.realpath, posixpath._joinrealpath
for action in [imported_process_starter, subprocess_process_starter, fresh_process_starter,
               renamed_process_starter, process_starter_through_importlib, ctypes_through_importlib,
               asyncio_subprocess, inet_socket, unix_connect, unix_datagram, swapped_realpath, swapped_builtins,
               climbed_out, own_tracer_in_a_thread, ctypes_memory, model_code_swapped]:
    probe(action.__name__, action)
    builtins.any, os.path.realpath, posixpath._joinrealpath = real_any, real_realpath, real_join
pair = socket.socketpair()  # what asyncio's event loop makes: allowed
pair[0].send(b"x")
print("escaped:", ",".join(found) or "nothing", "| pair:", pair[1].recv(1) == b"x")
'''


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_what_asyncio_and_threads_open_up_lets_no_process_socket_or_file_out(isolation, tmp_path):
    limits = limits_for(isolation)
    unix_path, marker = str(tmp_path / "listener.sock"), tmp_path / "written_by_the_loop"
    unix_listener = socket.socket(socket.AF_UNIX)
    unix_listener.bind(unix_path)
    unix_listener.listen()
    unix_listener.setblocking(False)
    inet_listener = socket.create_server(("127.0.0.1", 0))
    inet_listener.setblocking(False)
    source = with_bug(("def run_agent(task, model, max_turns):\n",
                       "def run_agent(task, model, max_turns):\n    global MODEL\n    MODEL = model\n    escapes()\n")
                      ) + (f"\n\nPORT, UNIX_PATH, MARKER = {inet_listener.getsockname()[1]}, {unix_path!r}, "
                           f"{str(marker)!r}\nMODEL = None\n\n\ndef escapes():\n"
                           + "\n".join("    " + line for line in ESCAPES.strip().splitlines()) + "\n")
    [result] = check_loop(source, ["add_then_answer"], limits).scripts
    assert result.actual[0] == "escaped: nothing | pair: True", result.actual
    for listener in (unix_listener, inet_listener):
        with pytest.raises(BlockingIOError):
            listener.accept()
        listener.close()
    assert not marker.exists()
