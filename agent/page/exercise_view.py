"""What the `Write your loop` view shows of a check: words and HTML, no widgets and no streamlit here.

The page runs `agent.exercise.iter_check_apart` and draws each script's verdict with
these: a label for the script's row, the failure said in a sentence, the
expected and actual output line against line, the messages the learner's loop
sent next to the ones the reference loop sent (the refused one marked), and
the learner's own code around the line that failed. Message cards come from
`agent.page.html_cards`; everything the learner's code produced is escaped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agent.exercise import BadRequest, LoopCheck, ScriptCheck, iter_check_apart
from agent.page.html_cards import escape as _e
from agent.page.html_cards import message_html, source_html
from agent.page.safe_text import md_escape
from agent.page.view import LoopSource
from agent.scripts import ScriptError
from agent.summary import message_line

EXERCISE_CSS = """
.lx-grid {display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 18px; align-items: start;}
.lx-head {font-size: .8rem; font-weight: 700; color: #52606d; padding: 2px 0 6px 0;}
.lx-head span {font-weight: 400; color: #7b8794;}
.lx-none {color: #9aa5b1; font-style: italic; font-size: .85rem; padding: 8px 0;}
.lx-bad .ls-msg {border-color: #ffa8a8; border-left-color: #e03131; background: #fff5f5; box-shadow: none;}
.lx-bad .ls-badge {background: #e03131; color: #ffffff;}
.lx-good .ls-msg {border-color: #b2f2bb; border-left-color: #2f9e44; background: #f4fcf5; box-shadow: none;}
.lx-good .ls-badge {background: #b2f2bb; color: #2b8a3e;}
.lx-fold {grid-column: 1 / -1; margin: 0 0 8px 0; font-size: .8rem; color: #52606d;}
.lx-fold summary {cursor: pointer; color: #7b8794;}
.lx-fold pre {margin: 4px 0 0 0; white-space: pre-wrap; font-size: .75rem;}
.lx-out {display: grid; grid-template-columns: 3.2em 1fr 1fr; font-family: ui-monospace, SFMono-Regular, Menlo,
  monospace; font-size: 12px; line-height: 1.45; border: 1px solid #e4e7eb; border-radius: 10px; overflow: hidden;}
.lx-out > div {padding: 2px 10px; white-space: pre-wrap; word-break: break-word; border-top: 1px solid #f1f3f5;}
.lx-out > .lx-th {font-family: Helvetica, Arial, sans-serif; font-weight: 700; font-size: .75rem; color: #52606d;
  background: #f8f9fa; border-top: none; padding: 6px 10px;}
.lx-out > .lx-n {color: #adb5bd; text-align: right; padding-right: 8px; user-select: none;}
.lx-out > .lx-want {background: #ebfbee;}
.lx-out > .lx-got {background: #fff5f5;}
.lx-out > .lx-first {box-shadow: inset 3px 0 0 #e03131;}
.lx-out > .lx-missing {color: #9aa5b1; font-style: italic;}
.lx-out > .lx-same {grid-column: 1 / -1; color: #7b8794; font-family: Helvetica, Arial, sans-serif;
  font-size: .75rem; background: #fbfcfd;}
"""
"""The rules of the HTML this module writes; `views/page_css.py` puts them in the page's style sheet."""

# How each verdict reads in a script's row.
VERDICT_WORDS = {"pass": "pass", "output": "output differs", "bad_request": "bad request",
                 "too_many_requests": "asked once too often", "exception": "raised an exception",
                 "time_limit": "time limit", "too_slow": "too slow", "memory_limit": "memory limit", "crash": "crashed",
                 "not_run": "not run"}
PROTECTION_ICONS = {"bubblewrap": ":material/shield:", "process limits": ":material/gpp_maybe:"}
CONTEXT = 3  # rows shown either side of where two outputs or two arrays part ways; farther ones fold away


def stream_check(source: str, tick: Callable[[], None] | None = None) -> Iterator[ScriptCheck | str]:
    """`iter_check` on every exercise script, each verdict as it comes; a problem (the file's, or a built-in
    script that cannot be used) comes as one string. Closing the iterator ends the learner's process. It runs
    in a process of its own (`agent.exercise.check_process`): judging takes no time from the page's Steps."""
    try:
        yield from iter_check_apart(source, tick=tick)
    except (ValueError, ScriptError) as exc:
        yield f"the built-in scripts could not be used: {exc}"


def script_label(check: ScriptCheck) -> str:
    """The script's row: its title, its name, and the verdict (with the mistake's name) in colour; markdown."""
    verdict = VERDICT_WORDS.get(check.verdict, check.verdict)
    if check.passed:
        mark, shown = ":green[:material/check_circle:]", f":green[{verdict}]"
    else:
        mark, shown = ":red[:material/cancel:]", f":red[**{verdict}**]"
    mistake = f" · :gray[{md_escape(check.mistake.replace('_', ' '))}]" if check.mistake else ""
    return f"{mark} {md_escape(check.title)} · `{check.script}` · {shown}{mistake}"


def progress_headline(done: int, total: int) -> str:
    """While a check runs: how far it has got; markdown."""
    return f"**Checking your loop:** {done} of {total} scripts done…"


def check_headline(check: LoopCheck, cancelled: bool = False) -> str:
    """The whole check in a sentence; markdown."""
    if cancelled:
        return (f"**Check cancelled** after {len(check.scripts)} script{'' if len(check.scripts) == 1 else 's'}. "
                "Check again to run them all.")
    if check.problem:
        return f"**Not checked:** {md_escape(check.problem)}"
    if check.passed:
        return (f"**{md_escape(check.summary)}.** Your loop prints what the reference loop prints and sends "
                "every request the way the API wants it, on every script.")
    failing = len(check.scripts) - sum(c.passed for c in check.scripts)
    where = ("The failing script is open below" if failing == 1
             else f"The first of {failing} failing scripts is open below")
    return f"**{md_escape(check.summary)}.** {where}: it shows where your loop parts from the reference."


def failure_headline(check: ScriptCheck) -> str:
    """What went wrong on one script, in a sentence; markdown."""
    bad = check.bad_request
    if bad is not None:
        return (f"**Request {bad.request} was refused**, as the real API would refuse it: "
                f"{md_escape(bad.reason)}")
    summary = check.summary[:1].upper() + check.summary[1:]
    return f"**{md_escape(summary)}**"


def mistake_words(check: ScriptCheck) -> str | None:
    """The classic mistake the evidence points to, explained; markdown; None when none was named."""
    if not check.mistake:
        return None
    return f"**This looks like a classic mistake** (`{check.mistake}`). {md_escape(check.mistake_text)}"


def problem_line(problem: str) -> int | None:
    """The line of the learner's file a `LoopCheck.problem` names (`line 3: ...`), or None."""
    match = re.match(r"line (\d+):", problem)
    return int(match.group(1)) if match else None


# ---- the output, line against line ------------------------------------------------------------------------


@dataclass(frozen=True)
class LinePair:
    """One line of the reference loop's output next to the same line of the learner's."""

    number: int
    """The line's number, from 1."""
    expected: str | None
    """The reference's line; None past its end."""
    actual: str | None
    """The learner's line; None past its end."""

    @property
    def same(self) -> bool:
        return self.expected == self.actual


def aligned_lines(expected: list[str], actual: list[str]) -> list[LinePair]:
    """The two outputs line by line, the shorter one padded with None."""
    count = max(len(expected), len(actual))
    return [LinePair(i + 1, expected[i] if i < len(expected) else None, actual[i] if i < len(actual) else None)
            for i in range(count)]


def shown_rows(count: int, focus: list[int], keep: tuple[int, ...] = ()) -> list[int | range]:
    """Rows 0..count-1 as they are drawn: an index for each row within CONTEXT of a focus row (or in `keep`),
    and one range for each run of rows folded away between them."""
    near = {i for f in focus for i in range(f - CONTEXT, f + CONTEXT + 1)} | set(keep)
    out: list[int | range] = []
    start = None
    for i in range(count + 1):
        if i < count and i not in near:
            start = i if start is None else start
            continue
        if start is not None:
            out.append(range(start, i))
            start = None
        if i < count:
            out.append(i)
    return out


def _cell(line: str | None, css: str) -> str:
    if line is None:
        return f'<div class="{css} lx-missing">(no line)</div>'
    return f'<div class="{css}">{_e(line) or " "}</div>'


def output_html(check: ScriptCheck) -> str:
    """The reference's output and the learner's side by side, differing lines tinted, equal runs folded."""
    pairs = aligned_lines(check.expected, check.actual)
    differing = [i for i, pair in enumerate(pairs) if not pair.same]
    rows = ['<div class="lx-th"></div><div class="lx-th">The reference loop prints</div>'
            '<div class="lx-th">Your loop printed</div>']
    for row in shown_rows(len(pairs), differing):
        if isinstance(row, range):
            rows.append(f'<div class="lx-same">lines {row.start + 1}–{row.stop} are the same in both</div>'
                        if len(row) > 1 else f'<div class="lx-same">line {row.start + 1} is the same in both</div>')
            continue
        pair = pairs[row]
        first = " lx-first" if row == check.first_difference else ""
        want, got = ("lx-want", "lx-got") if not pair.same else ("", "")
        rows.append(f'<div class="lx-n{first}">{pair.number}</div>{_cell(pair.expected, want)}'
                    f"{_cell(pair.actual, got)}")
    return f'<div class="lx-out">{"".join(rows)}</div>'


# ---- the refused request next to the reference's ----------------------------------------------------------


def sent_message_html(message: Any, index: int, badge: str = "") -> str:
    """A message card for whatever the learner's loop sent: the page's card for a well-formed message, the
    JSON as it is for anything else (a reply dict as content, a string where a message should be)."""
    if isinstance(message, dict) and isinstance(message.get("content"), str | list):
        return message_html(message, index, badge)
    role = message.get("role", "?") if isinstance(message, dict) else "not a message"
    what = ("content that is neither a string nor a list of blocks" if isinstance(message, dict)
            else f"a {type(message).__name__}, not a message dict")
    shown = message.get("content") if isinstance(message, dict) else message
    badge_html = f'<span class="ls-badge">{_e(badge)}</span>' if badge else ""
    return (f'<div class="ls-msg ls-new"><div class="ls-head"><span class="ls-role">{_e(role)}</span>'
            f'<span class="ls-index">messages[{index}]</span>{badge_html}</div>'
            f'<div class="ls-block"><span class="ls-kind ls-error">{_e(what)}</span><div class="ls-body">'
            f"<code>{_e(json.dumps(shown, ensure_ascii=False, default=str))}</code></div></div></div>")


def _fold_html(rows: range, sent: list[Any], reference: list[Any]) -> str:
    def outline(messages: list[Any]) -> str:
        return "\n".join(f"[{i}] {message_line(messages[i])}" for i in rows if i < len(messages)) or "(none)"

    return (f'<details class="lx-fold"><summary>messages[{rows.start}]–[{rows.stop - 1}], one line each</summary>'
            f'<div class="lx-grid"><pre>{_e(outline(sent))}</pre><pre>{_e(outline(reference))}</pre></div>'
            "</details>")


def request_pair_html(bad: BadRequest) -> str:
    """The messages the learner's loop sent in the refused request, the offending one marked, next to the
    messages the reference loop sent in its request of the same number, row for row by index."""
    sent = bad.messages if isinstance(bad.messages, list) else [bad.messages]
    reference = bad.reference_messages or []
    focus = bad.offending_index if bad.offending_index is not None else len(sent) - 1
    plural = "" if len(sent) == 1 else "s"
    cells = [f'<div class="lx-head">Your loop sent <span>request {bad.request}, {len(sent)} message{plural}</span>'
             "</div>"]
    if bad.reference_messages is None:
        cells.append(f'<div class="lx-head">The reference loop <span>had already stopped: it sends no request '
                     f"{bad.request}</span></div>")
    else:
        cells.append(f'<div class="lx-head">The reference loop sent <span>request {bad.request}, '
                     f"{len(reference)} message{'' if len(reference) == 1 else 's'}</span></div>")
    for row in shown_rows(max(len(sent), len(reference)), [focus], keep=(0,)):
        if isinstance(row, range):
            cells.append(_fold_html(row, sent, reference))
            continue
        marked = row == bad.offending_index
        if row < len(sent):
            card = sent_message_html(sent[row], row, "refused here" if marked else "")
            cells.append(f'<div class="lx-bad">{card}</div>' if marked else f"<div>{card}</div>")
        else:
            cells.append('<div class="lx-none">(nothing here)</div>')
        if row < len(reference):
            card = message_html(reference[row], row, "expected here" if marked else "")
            cells.append(f'<div class="lx-good">{card}</div>' if marked else f"<div>{card}</div>")
        else:
            cells.append('<div class="lx-none">(nothing here)</div>' if bad.reference_messages is not None
                         else "<div></div>")
    return f'<div class="lx-grid">{"".join(cells)}</div>'


# ---- the learner's own code ---------------------------------------------------------------------------------


def code_at_line_html(source: str, line: int, note: str, context: int = CONTEXT) -> str:
    """The learner's code around `line` (from 1), that line lit with `note` beside it; "" if it has no such line."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    start, stop = max(1, line - context), min(len(lines), line + context)
    at = line - start
    return source_html(LoopSource(lines[start - 1:stop], start, frozenset({at}), at), note)
