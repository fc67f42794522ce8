"""What the toy model reads in a typed task: the jobs it asks for (`toy_jobs.py`), one clause at a time.

A task is cut into clauses (`toy_clauses.py`: at `?`, `.`, `;`, a new line,
and at "and", "then" or a comma that starts a new request). Each clause asks
for a word count or shouting (`toy_texts.py`), a sum (`toy_sums.py`), listing
or reading the note files (`toy_files.py`), or something the toy has no
pattern for (it then says what it can do). A clause with numbers is a sum
only when it reads as arithmetic: "I was born in 1990" is not a failed sum.

The rule the toy keeps: it says a result only when it has read the whole
clause. What that takes of a sum is in `toy_sums.py`, of a question about the
files in `toy_files.py`; a clause it cannot read so is declined, not guessed.
"""

from __future__ import annotations

from agent.models.toy_clauses import Token, clauses
from agent.models.toy_files import FILE_WORDS, GREETING, file_called, files_job
from agent.models.toy_jobs import Job, Said, off_topic
from agent.models.toy_sums import SUM_VERBS, arithmetic, sums
from agent.models.toy_texts import shout_at, shouting, word_count

__all__ = ["jobs"]


def jobs(task: str) -> list[Job]:
    """The jobs a task asks for, in order; empty when the toy reads nothing in it it can do."""
    found: list[Job] = []
    asked: list[list[int]] = []  # the jobs of each clause that asked for any, by their place in `found`
    for clause in clauses(task):
        start = len(found)
        found.extend(_clause_jobs(task, clause, start, asked))
        if len(found) > start:
            asked.append(list(range(start, len(found))))
    if all(isinstance(j, Said) and j.off_topic for j in found):
        return []  # nothing it can do at all: say what it can, once
    return found


def _clause_jobs(task: str, clause: list[Token], start: int, asked: list[list[int]]) -> list[Job]:
    """The jobs of one clause; `start` is where they go among the task's jobs, after those `asked` before."""
    words = {t.word for t in clause if t.kind == "word"}
    text = task[clause[0].start:clause[-1].end]
    if "words" in words and words & {"many", "count", "number"} or {"word", "count"} <= words:
        return [word_count(task, clause, asked)]
    keyword = shout_at(clause)
    if keyword is not None:
        return shouting(task, clause, keyword, start, asked, _clause_jobs)
    if any(t.kind == "num" or t.kind == "mixed" and any(c.isdigit() for c in t.text) for t in clause):
        return sums(text, clause) if arithmetic(clause) else [off_topic(text)]
    if words & FILE_WORDS or any(t.kind == "file" for t in clause) or file_called(clause):
        return [files_job(text, clause)]
    if words & (SUM_VERBS | {"plus", "minus"}):
        return sums(text, clause)
    if not words <= GREETING or any(t.kind not in ("word", "mark") for t in clause):
        return [off_topic(text)]
    return []
