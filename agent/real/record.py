"""Record a run, real or fake, as a FakeModel script that replays it offline.

The script holds the run's settings (task, system prompt, tools, turn limit)
and every answer the model gave, in order: each reply as it came back
(thinking blocks and signatures included), each failed attempt as an error
entry, and a refused request as a 400. Played by the FakeModel, it gives the
same console output as the run did; `expected_output` is set only when a replay
says so (a tool result edited or broken on purpose is not in a script). A run
holds no API key, so neither does its recording.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent.loop import RunState, TurnPath, TurnRecord, step
from agent.models.fake import FakeModel
from agent.scripts import Script, ScriptError, is_error_status, parse_script, save_script
from agent.summary import console_lines

# error_words' words for a failure that had a status: "529 overloaded_error: Overloaded".
_STATUS_ERROR = re.compile(r"^(\d{3}) ([A-Za-z_]+): (.*)$", re.DOTALL)
_BAD_REQUEST = "bad request: "


def reply_entry(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply as a script entry: its stop_reason, its content, and the whole-number counts of its usage."""
    entry: dict[str, Any] = {"stop_reason": reply.get("stop_reason"), "content": reply.get("content", [])}
    usage = reply.get("usage") or {}
    counts = {name: value for name, value in usage.items() if isinstance(value, int) and not isinstance(value, bool)}
    if counts:  # a script's usage holds whole numbers only; the breakdowns and the tier stay behind
        entry["usage"] = counts
    return entry


def _error_entry(record: TurnRecord) -> dict[str, Any] | None:
    """The script entry that fails the same way, or None when a script cannot say it (no status)."""
    match = _STATUS_ERROR.match(record.error or "")
    if match is None:
        return None
    status, kind, message = int(match[1]), match[2], match[3]
    if not is_error_status(status, mid_stream=status == 200):
        return None  # a status no script plays (a proxy's 418, say): left out, like a lost connection
    error: dict[str, Any] = {"status": status, "type": kind, "message": message}
    if status == 200:  # only an error event inside a stream comes with a 200
        error["mid_stream"] = True
    return {"error": error}


def record_script(state: RunState, name: str = "recorded", title: str = "", about: str = "") -> Script:
    """The script that replays this run; `expected_output` is set when the replay gives the same output."""
    replies: list[dict[str, Any]] = []
    left_out = 0
    for position, record in enumerate(state.records):
        if record.reply is not None:
            replies.append(reply_entry(record.reply))
        elif record.path == TurnPath.MODEL_ERROR:
            entry = _error_entry(record)
            if entry is None:
                left_out += 1
            else:
                replies.append(entry)
        elif record.path == TurnPath.BAD_REQUEST and position == len(state.records) - 1 \
                and (state.result or "").startswith(_BAD_REQUEST):
            replies.append({"error": {"status": 400, "type": "invalid_request_error",
                                      "message": (state.result or "")[len(_BAD_REQUEST):]}})
    if not replies:
        raise ScriptError("this run has no replies yet: step it at least once before saving it as a script")
    models = sorted({r.reply["model"] for r in state.records if r.reply and isinstance(r.reply.get("model"), str)})
    said = f"Recorded from a run of {', '.join(models) or 'a model'}: {len(replies)} answers, " \
           f"{'finished' if state.done else f'stopped after turn {state.turn}'}."
    if left_out:
        said += f" {left_out} failed attempt(s) without a status (a lost connection, a timeout) are left out."
    last = state.records[-1] if state.records else None
    ends_the_same = state.done or (state.error is not None and last is not None and not last.retryable)
    data = {"title": title or f"Recorded: {state.task[:60]}", "about": about or said, "task": state.task,
            "system": state.system, "tools": list(state.tool_names), "max_turns": state.max_turns,
            "replies": replies}
    try:
        script = parse_script(json.loads(json.dumps(data)), name=name, source=name)
    except ScriptError as exc:
        raise ScriptError(f"this run cannot be saved as a script: {exc}") from None
    if ends_the_same and not left_out:
        if replay_console(script, len(replies)) == console_lines(state):
            script.expected_output = console_lines(state)
        else:  # a script holds replies, not tool results: a result changed by hand or broken on purpose is lost
            script.about += (" Its tools run again when it replays and give other results than this run had "
                             "(a result edited or a tool broken on purpose), so it has no expected_output.")
    return script


def replay_console(script: Script, attempts: int) -> list[str]:
    """The console of `script` played from the start by a FakeModel, for at most `attempts` requests."""
    state = RunState(script.task, system=script.system, tool_names=list(script.tools), max_turns=script.max_turns)
    model = FakeModel(script)
    for _ in range(attempts):
        if state.done:
            break
        step(state, model)
    return console_lines(state)


def script_json(state: RunState, name: str = "recorded") -> str:
    """The recorded script as the text of its file, e.g. for a download."""
    return json.dumps(record_script(state, name=name).to_dict(), indent=2) + "\n"


def save_recording(state: RunState, path: str | Path) -> Script:
    """Write the run's script to `path` (named after the file) and return it."""
    path = Path(path)
    script = record_script(state, name=path.stem)
    save_script(script, path)
    return script
