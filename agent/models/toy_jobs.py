"""The jobs the toy model does for a task, each worked out with the built-in tools, and how it declines.

A job is one request of the task: a sum (`add`, one call a turn), a word
count, listing or counting the note files (the count is `word_count`'s, on the
listing), reading them (and saying which holds a word: `toy_files.Mentions`),
shouting a text or a file's content, or shouting or counting the words of the
answer of the parts before it. `toy_tasks.py` reads which jobs a task asks for;
`toy.py` runs them all at once, each turn making every job's next calls.

A job says a result only when the tools gave it: a sum states the text `add`
returned, and the toy declines beforehand a sum a floating-point `add` would
not give exactly. A decline starts with `CANNOT`, quotes at most a short part
of the task (`short`), and the answer it is part of ends with `CAN_DO`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

CANNOT = "I cannot"
"""How every decline starts."""
CAN_DO = ("I am a toy model: a few patterns, not a language model. I can add and subtract numbers "
          "(\"What is 10 - 3 + 2.5?\"), count words (\"How many words are in 'a b c'?\"), list and read the note "
          "files (\"Which files are there?\", \"What is in my notes?\"), say which of them mentions a name "
          "(\"Which of notes.txt and todo.txt mentions Omid?\") and shout (\"Shout hello\").")
QUOTED_AT_MOST = 40
"""The most characters of the task a decline quotes; a longer part is cut at a word and ends in an ellipsis."""
# The sums a floating-point add works out exactly, read at the precision of their numbers: below 10**14 in units
# of the smallest decimal place, so a JSON client that reads numbers as doubles gets them exactly too.
_EXACT_BELOW = Decimal(10) ** 14


def short(text: str, at_most: int = QUOTED_AT_MOST) -> str:
    """A part of the task as a decline quotes it: on one line, and cut at a word with "…" when longer."""
    text = " ".join(text.split())
    if len(text) <= at_most:
        return text
    cut = text[:at_most]
    space = cut.rfind(" ")
    if space > at_most // 2:  # cut at a word unless that loses most of it (one very long word)
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


@dataclass
class Call:
    tool: str
    input: dict[str, Any]


@dataclass
class Step:
    """What a job does next: calls to make (with a few words before them), or its sentence for the answer."""

    calls: list[Call] = field(default_factory=list)
    text: str = ""
    """Words before the calls, or the job's sentence when it has no calls left."""
    waiting: bool = False
    """The job waits for the answer of parts before it, which still make calls."""


class Job:
    """One request of the task. `step` is given the results of the job's calls so far, one list per turn."""

    def step(self, got: list[list[str]]) -> Step:
        raise NotImplementedError

    def without(self, tool: str) -> str:
        """The sentence when the agent lacks a tool this job needs."""
        return f"I would use the `{tool}` tool for this, but this agent was not given it."


@dataclass
class Said(Job):
    """A job that needs no tool: a decline (`off_topic`: a part the toy has no pattern for at all)."""

    sentence: str
    off_topic: bool = False

    def step(self, got: list[list[str]]) -> Step:
        return Step(text=self.sentence)


def off_topic(text: str) -> Said:
    return Said(f"{CANNOT} answer “{short(text)}”.", off_topic=True)


def show(value: Decimal) -> str:
    """A number as a person writes it: 1001, 17.5, -0.25 (never 1E+3)."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")


def as_json_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


@dataclass
class Sum(Job):
    """A chain of additions, one `add` call a turn, each on the last result; `-` adds the number negated."""

    written: list[str]
    """The numbers as the task writes them, signed (`-3` for "negative 3")."""
    signs: list[str]
    """`+` or `-` before each number after the first."""

    @property
    def terms(self) -> list[Decimal]:
        values = [Decimal(w) for w in self.written]
        return values[:1] + [v if s == "+" else -v for s, v in zip(self.signs, values[1:], strict=True)]

    @property
    def places(self) -> int:
        return max(0, *(-cast(int, Decimal(w).as_tuple().exponent) for w in self.written))  # finite: an int

    def words(self) -> str:
        return self.written[0] + "".join(f" {s} {w}" for s, w in zip(self.signs, self.written[1:], strict=True))

    def inexact(self) -> str:
        """Why a floating-point `add`, called as the toy calls it, would not give every partial sum exactly, or ''."""
        too_far = any(abs(Decimal(w).adjusted()) > 20 for w in self.written)  # before any arithmetic on them
        if too_far or sum((abs(t) for t in self.terms), Decimal(0)).scaleb(self.places) >= _EXACT_BELOW:
            return "numbers this large or this precise would come back rounded"
        terms = self.terms
        so_far = terms[0]
        for term in terms[1:]:
            # What `add` gives for these JSON numbers, as its result's text (0.1 + 0.2 gives 0.30000000000000004).
            given = as_json_number(so_far) + as_json_number(term)
            so_far += term
            if Decimal(repr(given)) != so_far:
                return "these decimals have no exact binary value, so its sum would come back rounded"
        return ""

    def step(self, got: list[list[str]]) -> Step:
        terms = self.terms
        said = ""
        for results in got:
            said = results[0].strip()
            if _number(said) is None:
                return Step(text=f"{CANNOT} say what {short(self.words())} is: `add` answered "
                                 f"{short(results[0])!r}, which is not a number.")
        if len(got) < len(terms) - 1:
            so_far = terms[0] if not got else _number(said)
            assert so_far is not None  # every result was read as a number above
            return Step([Call("add", {"a": as_json_number(so_far), "b": as_json_number(terms[len(got) + 1])})])
        return Step(text=f"{self.words()} is {said}.")  # the number as `add` returned it, never one of the toy's

    def without(self, tool: str) -> str:
        return f"I would use the `{tool}` tool for {short(self.words())}, but this agent was not given it."


def _number(text: str) -> Decimal | None:
    """A result of `add` as a number, or None for one that is not (a result a person edited)."""
    try:
        value = Decimal(text)
    except ArithmeticError:
        return None
    return value if value.is_finite() and abs(value.adjusted()) <= 400 else None


@dataclass
class WordCount(Job):
    """`word_count` on each text quoted (or named) in the task."""

    texts: list[str]

    def step(self, got: list[list[str]]) -> Step:
        if not got:
            return Step([Call("word_count", {"text": text}) for text in self.texts], "I will count them.")
        if len(self.texts) == 1:
            return Step(text=f"That text has {_words(got[0][0])}.")
        return Step(text="; ".join(f"“{text}” has {_words(n)}" for text, n in zip(self.texts, got[0], strict=False))
                    + ".")


def _words(count: str) -> str:
    return f"{count} word" if count.strip() == "1" else f"{count} words"


def _names(listing: str) -> list[str]:
    """The file names a `list_files` result gives, one a line."""
    return [line.strip() for line in listing.splitlines() if line.strip()]


def both(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _stem(name: str) -> str:
    """A file name as a word may name it: "todo" for todo.txt (and for "to-do")."""
    return re.sub(r"[\W_]", "", name.split(".")[0].lower())


@dataclass
class FileJob(Job):
    """A job on the content of note files: the files named, or the ones `list_files` gives, each read with
    `read_file`; `done` then says or works on what they hold."""

    files: list[str] = field(default_factory=list)
    """The files the task names; empty: found with `list_files` first."""
    called: str = ""
    """A word naming a file without its extension ("todo" of "my todo list"), looked for among the listed files."""
    every: bool = False
    """With no file named, every listed file, not the first."""

    def step(self, got: list[list[str]]) -> Step:
        names, turn, before = list(self.files), 0, ""
        if not names:
            if not got:
                return Step([Call("list_files", {})], "Let me see which files there are.")
            listed, turn = _names(got[0][0]), 1
            if not listed:
                return Step(text=self.no_files())
            if self.called:
                names = [name for name in listed if _stem(name) == self.called]
                if not names:
                    return Step(text=f"{CANNOT} find a file called “{short(self.called)}”: the files are "
                                     f"{both(listed)}.")
                before = f"The {short(self.called)} file is {both(names)}; I read it."
            else:
                names = listed if self.every else listed[:1]
                before = "" if self.every else f"There are {len(listed)} files; I read {names[0]}."
        if len(got) == turn:
            return Step([Call("read_file", {"path": name}) for name in names], before)
        return self.done(names, got[turn], got[turn + 1:])

    def no_files(self) -> str:
        return "There are no files."

    def done(self, names: list[str], contents: list[str], got: list[list[str]]) -> Step:
        """Its step once the files are read: `got` holds the results of the calls it made on their content."""
        raise NotImplementedError


@dataclass
class Reading(FileJob):
    """The files' content, said as `read_file` gave it."""

    def done(self, names: list[str], contents: list[str], got: list[list[str]]) -> Step:
        return Step(text="\n".join(f"{name} says:\n{text}" for name, text in zip(names, contents, strict=False)))


@dataclass
class FileWords(FileJob):
    """`word_count` on each file's content (every file `list_files` names, when none is named)."""

    every: bool = True

    def no_files(self) -> str:
        return "There are no files to count the words of."

    def done(self, names: list[str], contents: list[str], got: list[list[str]]) -> Step:
        if not got:
            return Step([Call("word_count", {"text": content}) for content in contents], "I will count them.")
        return Step(text="; ".join(f"{name} has {_words(n)}" for name, n in zip(names, got[0], strict=False)) + ".")


@dataclass
class ShoutFiles(FileJob):
    """`upper` on each file's content; the answer is what it gives back."""

    def done(self, names: list[str], contents: list[str], got: list[list[str]]) -> Step:
        if not got:
            return Step([Call("upper", {"text": content}) for content in contents])
        if len(names) == 1:
            return Step(text=got[0][0])
        return Step(text="\n".join(f"{name}, shouted:\n{text}" for name, text in zip(names, got[0], strict=False)))


@dataclass
class Listing(Job):
    """`list_files`; the answer names every file it gives, and with `count`, how many there are: `word_count`
    on the listing counts them, so the number said is a tool's."""

    count: bool = False

    def step(self, got: list[list[str]]) -> Step:
        if not got:
            return Step([Call("list_files", {})])
        files = _names(got[0][0])
        if not files:
            return Step(text="There are no files.")
        if not self.count:
            if len(files) == 1:
                return Step(text=f"The only file is {files[0]}.")
            return Step(text=f"The files are {both(files)}.")
        if any(len(name.split()) > 1 for name in files):  # `word_count` would count a name's words, not the name
            return Step(text=f"{CANNOT} count the files with `word_count`: a file name has a space in it. "
                             f"The files are {both(files)}.")
        if len(got) == 1:
            return Step([Call("word_count", {"text": got[0][0]})], "I will count them.")
        counted = got[1][0].strip()
        return Step(text=f"There {'is' if counted == '1' else 'are'} {counted} file{'' if counted == '1' else 's'}: "
                         f"{both(files)}.")


@dataclass
class Shout(Job):
    """`upper` on a text; the answer is what it gives back."""

    text: str

    def step(self, got: list[list[str]]) -> Step:
        return Step([Call("upper", {"text": self.text})]) if not got else Step(text=got[0][0])


@dataclass
class OfAnswer(Job):
    """A tool on the answer of the jobs before it ("..., then shout the answer"), once they have answered."""

    of: list[int]
    """The jobs whose answer it works on, by their place in the task's jobs."""
    doing = ""
    """What it does with the answer, as its decline says it."""

    def after(self, answered: list[tuple[Job, str]], got: list[list[str]]) -> Step:
        """Its step, given the jobs it works on with their sentences, once they have no calls left."""
        if any(isinstance(job, Said) or text.startswith(CANNOT) for job, text in answered):
            return Step(text=f"{CANNOT} {self.doing} the answer: there is no answer I worked out to "
                             f"{self.doing.split()[0]}.")
        return self.on(joined([job for job, _ in answered], [text for _, text in answered]), got)

    def on(self, answer: str, got: list[list[str]]) -> Step:
        raise NotImplementedError


@dataclass
class ShoutAnswer(OfAnswer):
    """`upper` on the answer before."""

    doing = "shout"

    def on(self, answer: str, got: list[list[str]]) -> Step:
        return Shout(answer).step(got)


@dataclass
class CountAnswer(OfAnswer):
    """`word_count` on the answer before."""

    doing = "count the words of"

    def on(self, answer: str, got: list[list[str]]) -> Step:
        if not got:
            return Step([Call("word_count", {"text": answer})])
        return Step(text=f"That answer has {_words(got[0][0])}.")


def joined(work: list[Job], sentences: list[str]) -> str:
    """The sentences of jobs as one answer: sums in one line ("2 + 3 is 5; 4 + 4 is 8."), other parts a line each."""
    if all(isinstance(job, Sum) for job in work):
        return "; ".join(s.removesuffix(".") for s in sentences) + "."
    return "\n".join(sentences)
