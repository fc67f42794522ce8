"""The exercise's judge, part 2: correct loops pass, buggy ones fail by name, cheats fail, hostile code escapes nothing.

Every loop here runs in the learner's process as a learner's would. The
hostile cases need bubblewrap (`/usr/bin/bwrap`, which `.ci/run` installs);
without it they are skipped with the reason bubblewrap gave, and fail under CI.
"""

import json
import os
import socket
from pathlib import Path

import pytest
from process_support import with_marker
from test_exercise import (
    ANSWER,
    APPEND_REPLY,
    APPEND_RESULTS,
    CORRECT_LOOP,
    FAST,
    KEEP_RESULT,
    LIMIT_MESSAGE,
    RUN_CALL,
    STOP_CHECK,
    TURNS,
    check_one,
    with_bug,
)

from agent.exercise import MISTAKES, Limits, check_loop, exercise_script_names, format_check, protection
from agent.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
MESSAGES_LINE = '    messages = [{"role": "user", "content": task}]\n'
HEADER = "def run_agent(task, model, max_turns):\n"
CREATE = "        reply = model.create(messages)\n"
PROCESS = Limits(seconds=10.0, isolation="process")


def bwrap_or_skip():
    found = protection()
    if found.kind != "bubblewrap":
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs bubblewrap: {found.words}")
        pytest.skip(found.words)


# ---- correct loops that used to fail -------------------------------------------------------------------------

PRINT_BOUND_AT_LOAD = with_bug(
    ("import json\n", "import json\nimport sys\nfrom functools import partial\n\n"
                      "say = partial(print, file=sys.stdout)\n"),
    ("                print(f\"turn", "                say(f\"turn"))
TUPLE_MESSAGES = with_bug(
    (MESSAGES_LINE, '    messages = ({"role": "user", "content": task},)\n'),
    (APPEND_REPLY, '        messages += ({"role": "assistant", "content": reply["content"]},)\n'),
    (APPEND_RESULTS, '        messages += ({"role": "user", "content": results},)\n'))
GENERATOR_MESSAGES = with_bug((CREATE, "        reply = model.create(m for m in messages)\n"))
STANDARD_LIBRARY = with_bug(("import json\n", "import collections, copy, dataclasses, datetime, enum, itertools, json, "
                                              "logging, math, pprint, random, re, sys, textwrap, typing\n"),
                            (CREATE, "        reply = model.create(copy.deepcopy(messages))\n"
                                     '        print(pprint.pformat(reply["stop_reason"]), file=sys.stderr)\n'))


@pytest.mark.parametrize("isolation", ["auto", "process"])
@pytest.mark.parametrize("source", [PRINT_BOUND_AT_LOAD, TUPLE_MESSAGES, GENERATOR_MESSAGES, STANDARD_LIBRARY],
                         ids=["print bound at load time", "messages as a tuple", "messages as a generator",
                              "the standard library, and debugging on stderr"])
def test_correct_loops_written_otherwise_pass_every_script(source, isolation):
    check = check_loop(source, limits=Limits(seconds=10.0, isolation=isolation))
    assert check.passed, "\n".join(format_check(check))


def test_scripts_come_in_the_lessons_order_starting_with_the_reference_run():
    names = exercise_script_names()
    assert names[0] == "add_then_answer" and names[-2:] == ["runaway", "short_leash"]


def test_the_short_leash_is_a_limit_other_than_the_usual_one():
    from agent.scripts import load_script

    assert load_script("short_leash").max_turns == 3 < len(load_script("short_leash").replies)


# ---- buggy loops that used to pass, and mistakes that were named wrongly -------------------------------------

MODULE_MESSAGES = with_bug((HEADER + MESSAGES_LINE, 'messages = []\n\n\n' + HEADER +
                            '    messages.append({"role": "user", "content": task})\n'))
OWN_LIMIT = with_bug((TURNS, "    for turn in range(1, 41):\n"),
                     (LIMIT_MESSAGE, '    return "stopped: no answer after 40 turns"\n'))
BRANCH_ON_CALLS = with_bug(
    ('        if reply["stop_reason"] == "end_turn":\n', '        calls = [b for b in reply["content"] '
     'if b["type"] == "tool_use"]\n        if not calls:\n'),
    ('        if reply["stop_reason"] != "tool_use":\n            return f"stopped: {reply[\'stop_reason\']}"\n', ""))

NAMED_CASES = {
    "kept_state": (MODULE_MESSAGES, ["add_then_answer", "two_file_search"], "bad_request", 0),
    "own_turn_limit": (OWN_LIMIT, ["runaway", "short_leash"], "too_many_requests", None),
    "results_as_assistant": (with_bug((APPEND_RESULTS, APPEND_RESULTS.replace('"user"', '"assistant"'))),
                             ["add_then_answer"], "bad_request", 2),
    "reply_appended_twice": (with_bug((APPEND_REPLY, APPEND_REPLY * 2)), ["add_then_answer"], "bad_request", 2),
    "dropped_task": (with_bug((CREATE, "        reply = model.create(messages[-3:])\n")), ["two_file_search"],
                     "bad_request", 0),
    "reply_as_text": (with_bug((APPEND_REPLY, '        messages.append({"role": "assistant", "content": '
                                              'str(reply["content"])})\n')), ["add_then_answer"], "bad_request", 1),
    "extra_print": (with_bug((CREATE, CREATE + '        print("debug:", reply["stop_reason"])\n')),
                    ["add_then_answer"], "output", None),
    "openai_tool_role": (with_bug(
        (KEEP_RESULT, '                messages.append({"role": "tool", "tool_call_id": block["id"], '
                      '"content": result["content"]})\n'), (APPEND_RESULTS, "")),
        ["add_then_answer"], "bad_request", 2),
    "openai_system_message": (with_bug((MESSAGES_LINE, '    messages = [{"role": "system", "content": "Be brief."}, '
                                                       '{"role": "user", "content": task}]\n')),
                              ["add_then_answer"], "bad_request", 0),
    "openai_tool_calls": (with_bug((APPEND_REPLY, '        messages.append({"role": "assistant", "content": None, '
                                                  '"tool_calls": reply["content"][1:]})\n')),
                          ["add_then_answer"], "bad_request", 1),
}


@pytest.mark.parametrize("mistake", sorted(NAMED_CASES))
def test_each_mistake_is_named_with_the_marker_on_the_wrong_message(mistake):
    source, scripts, verdict, index = NAMED_CASES[mistake]
    *before, result = check_one(source, *scripts)
    assert all(r.passed for r in before)
    assert (result.verdict, result.mistake) == (verdict, mistake), result.summary
    assert result.mistake_text == MISTAKES[mistake]
    if index is not None:
        assert result.bad_request.offending_index == index


def test_an_openai_format_mistake_says_what_that_format_does_and_what_this_one_wants():
    text = MISTAKES["openai_tool_role"]
    assert "OpenAI" in text and 'role "tool"' in text and "ONE user message" in text and "tool_result" in text
    assert "not a message" in MISTAKES["openai_system_message"] and "system parameter" in MISTAKES[
        "openai_system_message"]


def test_an_earlier_message_changed_in_place_is_caught_since_every_request_is_checked_whole():
    source = with_bug((APPEND_RESULTS, APPEND_RESULTS + '        if len(messages) > 3:\n'
                       '            messages[1]["content"] = [{"type": "text", "text": "(trimmed)"}]\n'))
    [result] = check_one(source, "two_file_search")
    assert result.verdict == "bad_request" and result.bad_request.request == 3
    assert "unexpected `tool_use_id`" in result.bad_request.reason


def test_a_flood_into_the_protocol_is_a_crash_not_a_hang():
    source = with_bug((MESSAGES_LINE, MESSAGES_LINE + "    import os, sys\n"
                                                      "    os.write(int(sys.argv[1]), b'x' * (9 << 20))\n"))
    [result] = check_one(source, "add_then_answer")
    assert (result.verdict, result.summary) == ("crash", "the sandbox sent the judge more than 8 MB at once")


def test_a_loop_that_branches_on_tool_calls_is_told_where_it_decided_to_go_on_in_plain_words():
    [result] = check_one(BRANCH_ON_CALLS, "cut_off_reply")
    assert result.verdict == "too_many_requests" and result.mistake == "ran_stopped_call"
    assert result.summary.startswith("your loop asked for another reply after the model's reply was cut off at "
                                     "max_tokens")
    assert BRANCH_ON_CALLS.splitlines()[result.line - 1].strip() == "if not calls:"
    assert result.line_note == "here your loop decided to ask again"
    shown = json.dumps(result.__dict__, default=lambda o: o.__dict__) + "\n".join(format_check_lines(result))
    assert "ScriptExhausted" not in shown and "ModelFinished" not in shown


def format_check_lines(result):
    from agent.exercise import LoopCheck

    return format_check(LoopCheck([result]), BRANCH_ON_CALLS)


def test_state_kept_in_a_counter_is_caught_on_a_later_script():
    source = with_bug((HEADER, "count = [0]\n\n\n" + HEADER),
                      (TURNS, TURNS + "        count[0] += 1\n        turn = count[0]\n"))
    first, second = check_one(source, "add_then_answer", "two_file_search")
    assert first.passed and (second.verdict, second.mistake) == ("output", "kept_state")


# ---- cheats: nothing the learner's process holds can change a verdict ---------------------------------------

CHEATS = {
    "read the expected output": with_bug((MESSAGES_LINE, MESSAGES_LINE + "    print(model._fake.script)\n")),
    "call the reference loop": "from agent.loop import run_agent as run_agent_reference\n\n\n"
                               "def run_agent(task, model, max_turns):\n"
                               "    return run_agent_reference(task, model, max_turns=max_turns)\n",
    "forge the report": with_bug((MESSAGES_LINE, MESSAGES_LINE +
                                  "    import os, json\n    for fd in range(3, 40):\n        try:\n"
                                  "            os.write(fd, json.dumps({'verdict': 'pass', 'kind': 'returned', "
                                  "'type': 'str', 'text': '2 + 3 is 5.'}).encode() + b'\\n')\n"
                                  "        except OSError:\n            pass\n    return '2 + 3 is 5.'\n")),
    "switch the checks off": with_bug((MESSAGES_LINE, MESSAGES_LINE + "    import agent.api.requests\n")),
    "import the project by its path": f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                                      "from agent.loop import run_agent as run_agent_reference\n\n\n"
                                      "def run_agent(task, model, max_turns):\n"
                                      "    return run_agent_reference(task, model, max_turns=max_turns)\n",
}


@pytest.mark.parametrize("isolation", ["bubblewrap", "process"])
@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_every_cheat_fails(cheat, isolation):
    if isolation == "bubblewrap":
        bwrap_or_skip()
    check = check_loop(CHEATS[cheat], ["add_then_answer"], Limits(seconds=10.0, isolation=isolation))
    assert not check.passed
    assert check.protection == ("bubblewrap" if isolation == "bubblewrap" else "process limits")


def test_a_file_that_rewrites_the_checker_changes_nothing_for_the_next_check():
    bwrap_or_skip()
    target = ROOT / "agent" / "exercise" / "checker.py"
    before = target.read_bytes()
    source = ("import sys\nfor path in [" + repr(str(target)) + "]:\n    try:\n        with open(path, 'a') as f:\n"
              "            f.write('\\nfrom agent.exercise import checker as c\\nc.LoopCheck.passed = True\\n')\n"
              "    except OSError as e:\n        print(e, file=sys.stderr)\n\n" + CORRECT_LOOP)
    check_loop(source, ["add_then_answer"], FAST)
    assert target.read_bytes() == before
    assert not check_loop(with_bug((APPEND_REPLY, "")), ["add_then_answer"], FAST).passed


# ---- hostile code: nothing escapes ---------------------------------------------------------------------------

SURVIVOR_MARK = f"600.{os.getpid()}"  # how long the escapee sleeps: its command line, unlike any other's
SURVIVOR = ("import os, signal, time\n"
            "if os.fork() == 0:\n    os.setsid()\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            f"    if os.fork() == 0:\n        os.execv('/bin/sleep', ['sleep', '{SURVIVOR_MARK}'])\n    os._exit(0)\n"
            "time.sleep(0.2)\n\n" + CORRECT_LOOP)


@pytest.mark.parametrize("isolation", ["bubblewrap", "process"])
def test_a_setsid_grandchild_that_ignores_sigterm_does_not_outlive_the_check(isolation):
    if isolation == "bubblewrap":
        bwrap_or_skip()
    # The audit hook would refuse the fork: switch it off to test the wall around it.
    limits = Limits(seconds=10.0, isolation=isolation, audit_guard=False)
    check = check_loop(SURVIVOR, ["add_then_answer"], limits)
    assert check.passed, "\n".join(format_check(check))
    assert with_marker(SURVIVOR_MARK.encode()) == []


def test_the_audit_hook_refuses_a_fork():
    assert check_loop(SURVIVOR, ["add_then_answer"], PROCESS).problem.startswith(
        "running the file raised PermissionError: the exercise's sandbox does not allow this (os.fork)")


PROBE = '''
import os, socket, sys
def probe(what, action):
    try:
        if action():
            found.append(what)
    except Exception:
        pass
def homes():
    # only the directories on the way to Python's own files may show
    return [f"{home}/{name}" for home in ("/root", "/home") if os.path.isdir(home) for name in os.listdir(home)
            if not sys.prefix.startswith(f"{home}/{name}")]
found = []
probe("passwd", lambda: open("/etc/passwd").read())
probe("home", homes)
probe("project", lambda: os.listdir(PROJECT))
probe("environ", lambda: [p for p in os.listdir("/proc")
                          if p.isdigit() and b"sk-ant" in open(f"/proc/{p}/environ", "rb").read()])
probe("processes", lambda: len([p for p in os.listdir("/proc") if p.isdigit()]) > 3)
probe("write", lambda: open(PROJECT + "/agent/hostile_was_here.py", "w").write("x"))
probe("host tmp", lambda: open(MARKER).read())
probe("connect", lambda: socket.create_connection(("127.0.0.1", PORT), timeout=1))
probe("key", lambda: os.environ["ANTHROPIC_API_KEY"])
try:
    open("/tmp/hostile_was_here", "w").write("x")  # its own empty /tmp is the learner's to use
except OSError:
    pass
print("escaped:", ",".join(found) or "nothing")
'''


@pytest.mark.parametrize("isolation", ["bubblewrap", "process"])
def test_hostile_code_sees_no_host_file_no_environment_no_network(isolation, tmp_path, monkeypatch):
    if isolation == "bubblewrap":
        bwrap_or_skip()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-canary-for-the-judge")
    marker = tmp_path / "host_tmp_marker"
    marker.write_text("here")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    source = with_bug((MESSAGES_LINE, MESSAGES_LINE + "    probe_all()\n")) + (
        f"\n\nPROJECT, PORT, MARKER = {str(ROOT)!r}, {port}, {str(marker)!r}\n\n\ndef probe_all():\n"
        + "\n".join("    " + line for line in PROBE.strip().splitlines()) + "\n")
    [result] = check_loop(source, ["add_then_answer"], Limits(seconds=10.0, isolation=isolation)).scripts
    assert result.actual[0] == "escaped: nothing", result.actual
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    assert not (ROOT / "agent" / "hostile_was_here.py").exists()
    assert not Path("/tmp/hostile_was_here").exists()
    assert "sk-ant-canary" not in json.dumps(result.__dict__, default=str)


# ---- the verdict's words --------------------------------------------------------------------------------------


def test_a_loop_that_asks_again_after_the_end_says_how_many_requests_the_reference_sent():
    [cut_off] = check_one(with_bug((STOP_CHECK, "")), "cut_off_reply")
    assert cut_off.summary == ("your loop asked for another reply after the model's reply was cut off at "
                               "max_tokens (request 2; the reference loop sent 1 request)")
    source = with_bug((TURNS, "    turn = 0\n    while True:\n        turn += 1\n"))
    [endless] = check_one(source, "runaway")  # every reply called a tool: the model never finished
    assert endless.summary == ("your loop went on past the turn limit: max_turns is 40, yet it sent request 41, "
                               "when the script had no reply left; the model never finished (every reply called a "
                               "tool), and the reference loop stopped after 40 requests")
    assert source.splitlines()[endless.line - 1].strip() == "while True:"
    assert endless.line_note == "here your loop went round again, past 40 turns"


def test_an_exception_raised_where_no_line_of_the_learners_ran_names_no_line():
    [result] = check_one("run_agent = max\n", "add_then_answer")
    assert (result.verdict, result.line, result.error.line, result.error.code) == ("exception", None, None, "")
    assert result.summary == "TypeError: '>' not supported between instances of 'Model' and 'str'"


def test_a_loop_that_gives_up_well_before_the_limit_is_not_named_off_by_one():
    [result] = check_one(with_bug((TURNS, "    for turn in range(1, max_turns - 5):\n")), "runaway")
    assert (result.verdict, result.mistake) == ("output", None)



def test_a_loop_that_never_sends_its_results_is_named_even_when_it_ran_no_tool():
    # Its second request is not its first again: it did not throw the reply away, it kept it and sent no results.
    source = with_bug((RUN_CALL, '                result = {"type": "tool_result", "tool_use_id": block["id"], '
                                 '"content": "5"}\n'), (APPEND_RESULTS, ""))
    [result] = check_one(source, "add_then_answer")
    assert (result.verdict, result.mistake) == ("bad_request", "results_not_appended")


def test_a_loop_that_goes_on_after_the_model_finished_without_keeping_the_reply_is_named():
    # It asks again with the very same messages, after a reply that was not tool_use: not a thrown-away call.
    source = with_bug((APPEND_REPLY, ""), (STOP_CHECK, '        if reply["stop_reason"] != "tool_use":\n'
                                                       "            continue\n" + APPEND_REPLY))
    [result] = check_one(source, "refusal")
    assert (result.verdict, result.mistake) == ("too_many_requests", "kept_going")


def test_a_loop_that_stops_at_a_count_of_its_own_and_says_so_is_named_for_its_own_limit():
    source = with_bug((TURNS, "    for turn in range(1, max_turns - 5):\n"),
                      (LIMIT_MESSAGE, '    return f"stopped: no answer after {turn} turns"\n'))
    [result] = check_one(source, "runaway")
    assert (result.verdict, result.mistake) == ("output", "own_turn_limit")
    assert result.mistake_text == MISTAKES["own_turn_limit"]


def test_a_refusal_raised_where_the_request_was_sent_points_at_no_line_of_the_learners():
    [result] = check_one(with_bug((APPEND_REPLY, "")), "add_then_answer")
    assert (result.verdict, result.error.type, result.error.line) == ("bad_request", "BadRequestError", 7)
    assert (result.line, result.line_note) == (None, "")  # the refusal is the news, not the line that sent it


def test_an_exception_points_at_the_line_it_was_raised_from():
    [result] = check_one(with_bug((ANSWER, '            return "".join(b["text"] for b in reply["content"])\n')),
                         "thinking_then_answer")
    assert (result.line, result.line_note) == (result.error.line, "KeyError raised here")


def test_a_request_after_the_reference_had_stopped_has_no_reference_to_show():
    source = with_bug((STOP_CHECK, '        if reply["stop_reason"] != "tool_use":\n            continue\n'))
    [result] = check_one(source, "refusal")
    assert (result.verdict, result.bad_request.request, result.bad_request.reference_messages) == (
        "bad_request", 2, None)


def test_output_past_the_kept_bytes_is_said_to_be_cut():
    source = with_bug((HEADER, HEADER + '    print("x" * 300000)\n'))
    [result] = check_one(source, "add_then_answer")
    assert result.summary == ("the output differs from the reference at line 1 (your loop printed more than "
                              "200,000 bytes: the rest was not kept)")


def test_a_loop_that_keeps_the_first_task_for_the_next_script_fails_it_in_words():
    source = with_bug(("import json\n", "import json\n\nFIRST_TASK = []\n"),
                      (MESSAGES_LINE, "    FIRST_TASK.append(task)\n"
                                      '    messages = [{"role": "user", "content": FIRST_TASK[0]}]\n'))
    first, second = check_one(source, "add_then_answer", "two_file_search")
    assert first.passed and first.title == load_script("add_then_answer").title
    assert (second.verdict, second.mistake) == ("output", "kept_state")
    assert second.summary == "request 1 carried the task of a script run before this one"
