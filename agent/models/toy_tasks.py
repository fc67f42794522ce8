"""What the toy model reads in a typed task: the jobs it asks for, each worked out with the built-in tools.

A task is cut into clauses (at `?`, `.`, `;`, a new line, and at "and", "then"
or a comma that starts a new request: "What is 2 + 3, and how many words in
'a b c'?"). Each clause is one job: a sum, a word count, reading files,
shouting, or a polite "I cannot" for what the toy cannot read. Every job runs
at once, each turn making the next calls of every job still going.

The rule the toy keeps: it says a result only when it has read the whole
clause. A sum takes digits (`10`, `2.5`, `.5`, `1e3`), `+`, `-`, "plus",
"minus", "negative" and a short list of plain words ("what is", "add ... and
...", "the sum of"); any other word, sign or number shape in it (`*`, "times",
"squared", `1,500`, `3k`, `007`, brackets) makes it decline instead of
guessing. Subtraction is the `add` tool with the number negated. Numbers that a
floating-point `add` could not add exactly (more than 14 significant digits
between them) are declined too; a result the tool gives with float noise
(0.30000000000000004 for 0.1 + 0.2) is read at the precision the task's
numbers have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from agent.models.toy_clauses import Token, clauses

CANNOT = "I cannot"
"""How every decline starts."""
CAN_DO = ("I am a toy model: a few patterns, not a language model. I can add and subtract numbers "
          "(\"What is 10 - 3 + 2.5?\"), count words (\"How many words are in 'a b c'?\"), read the note files "
          "(\"What is in my notes?\") and shout (\"Shout hello\").")
# The sums a floating-point add works out exactly, read at the precision of their numbers: below 10**14 in units
# of the smallest decimal place, each add's rounding error stays far under half of that place.
_EXACT_BELOW = Decimal(10) ** 14

_FILLER = {"what", "whats", "what's", "is", "are", "the", "of", "please", "calculate", "compute", "work", "out",
           "tell", "me", "us", "can", "could", "would", "will", "you", "do", "does", "find", "give", "get", "result",
           "answer", "value", "equal", "equals", "hey", "hi", "hello", "quick", "question", "i", "need", "want",
           "know", "kindly", "solve", "evaluate", "it", "this", "for", "up", "a", "an", "now", "ok", "okay", "so",
           "just", "how", "much", "together", "numbers", "number", "both", "sums", "also", "and", "then", "thanks",
           "thank"}
_GREETING = {"hi", "hello", "hey", "please", "thanks", "thank", "you", "ok", "okay", "and", "then", "also", "so"}
_SUM_VERBS = {"add", "sum", "total"}
_LIST_JOINS = {",", "and", "then", "to", "with"}
_SIGNS = {"+": "+", "plus": "+", "-": "-", "−": "-", "–": "-", "minus": "-"}
_REFERRING = {"this", "that", "these", "those", "it", "my", "your", "above", "below", "following", "here"}


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


class Job:
    """One request of the task. `step` is given the results of the job's calls so far, one list per turn."""

    def step(self, got: list[list[str]]) -> Step:
        raise NotImplementedError

    def without(self, tool: str) -> str:
        """The sentence when the agent lacks a tool this job needs."""
        return f"I would use the `{tool}` tool for this, but this agent was not given it."


@dataclass
class Said(Job):
    """A job that needs no tool: a decline, or what the toy can do."""

    sentence: str

    def step(self, got: list[list[str]]) -> Step:
        return Step(text=self.sentence)


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
        return max(0, *(-Decimal(w).as_tuple().exponent for w in self.written))

    def words(self) -> str:
        return self.written[0] + "".join(f" {s} {w}" for s, w in zip(self.signs, self.written[1:], strict=True))

    def exact(self) -> bool:
        """Whether a floating-point `add` gives every partial sum exactly, once read at the numbers' precision."""
        if any(abs(Decimal(w).adjusted()) > 20 for w in self.written):  # far out of reach, before any arithmetic
            return False
        return sum(abs(t) for t in self.terms).scaleb(self.places) < _EXACT_BELOW

    def read(self, text: str) -> Decimal | None:
        """A result of `add` as a number; float noise below the numbers' last place is read away."""
        try:
            value = Decimal(text.strip())
            if not value.is_finite():
                return None
            rounded = value.quantize(Decimal(1).scaleb(-self.places))
            return rounded if abs(value - rounded) < Decimal(1).scaleb(-self.places - 3) else value
        except ArithmeticError:  # not a number, or one far out of range (a result a person edited)
            return None

    def step(self, got: list[list[str]]) -> Step:
        terms = self.terms
        so_far = terms[0]
        for results in got:
            value = self.read(results[0])
            if value is None:
                return Step(text=f"{CANNOT} say what {self.words()} is: `add` answered {results[0]!r}, "
                                 "which is not a number.")
            so_far = value
        if len(got) < len(terms) - 1:
            return Step([Call("add", {"a": as_json_number(so_far), "b": as_json_number(terms[len(got) + 1])})])
        return Step(text=f"{self.words()} is {show(so_far)}.")

    def without(self, tool: str) -> str:
        return f"I would use the `{tool}` tool for {self.words()}, but this agent was not given it."


@dataclass
class WordCount(Job):
    """`word_count` on a text, or on each file's content read with `read_file` (after `list_files` if unnamed)."""

    texts: list[str] | None = None
    """The texts to count (quoted in the task), or None to count files."""
    files: list[str] | None = None
    """The files to count; empty: every file `list_files` names."""

    def step(self, got: list[list[str]]) -> Step:
        if self.texts is not None:
            if not got:
                return Step([Call("word_count", {"text": text}) for text in self.texts], "I will count them.")
            if len(self.texts) == 1:
                return Step(text=f"That text has {_words(got[0][0])}.")
            return Step(text="; ".join(f"“{text}” has {_words(n)}" for text, n in zip(self.texts, got[0], strict=False))
                        + ".")
        named, turn = list(self.files), 0
        if not named:
            if not got:
                return Step([Call("list_files", {})], "Let me see which files there are.")
            named, turn = got[0][0].split(), 1
            if not named:
                return Step(text="There are no files to count the words of.")
        if len(got) == turn:
            return Step([Call("read_file", {"path": name}) for name in named])
        if len(got) == turn + 1:
            return Step([Call("word_count", {"text": content}) for content in got[turn]], "I will count them.")
        return Step(text="; ".join(f"{name} has {_words(n)}" for name, n in zip(named, got[turn + 1], strict=False))
                    + ".")


def _words(count: str) -> str:
    return f"{count} word" if count.strip() == "1" else f"{count} words"


@dataclass
class Reading(Job):
    """`read_file` on the named files, or `list_files` and then the first file it names."""

    files: list[str]

    def step(self, got: list[list[str]]) -> Step:
        if self.files:
            if not got:
                return Step([Call("read_file", {"path": name}) for name in self.files])
            return Step(text="\n".join(f"{name} says:\n{text}" for name, text in zip(self.files, got[0], strict=False)))
        if not got:
            return Step([Call("list_files", {})], "Let me see which files there are.")
        files = got[0][0].split()
        if not files:
            return Step(text="There are no files.")
        if len(got) == 1:
            return Step([Call("read_file", {"path": files[0]})], f"There are {len(files)} files; I read {files[0]}.")
        return Step(text=f"{files[0]} says:\n{got[1][0]}")


@dataclass
class Shout(Job):
    """`upper` on a text; the answer is what it gives back."""

    text: str

    def step(self, got: list[list[str]]) -> Step:
        return Step([Call("upper", {"text": self.text})]) if not got else Step(text=got[0][0])


def jobs(task: str) -> list[Job]:
    """The jobs a task asks for, in order; empty when the toy reads nothing in it it can do."""
    found: list[Job] = []
    for clause in clauses(task):
        words = {t.word for t in clause if t.kind == "word"}
        text = task[clause[0].start:clause[-1].end]
        if "words" in words and words & {"many", "count", "number"} or {"word", "count"} <= words:
            found.append(_word_count(task, clause))
        elif words & {"shout", "upper", "uppercase", "capitals"}:
            found.append(_shout(task, clause))
        elif any(t.kind == "num" or t.kind == "mixed" and any(c.isdigit() for c in t.text)
                 or t.word in _SUM_VERBS | {"plus", "minus"} for t in clause):
            found.extend(_sums(text, clause))
        elif words & {"file", "files", "note", "notes"} or any(t.kind == "file" for t in clause):
            found.append(Reading([t.text for t in clause if t.kind == "file"]))
        elif not words <= _GREETING or any(t.kind not in ("word", "mark") for t in clause):
            found.append(Said(f"{CANNOT} answer “{text}”: {CAN_DO}"))
    if found and all(isinstance(j, Said) and j.sentence.endswith(CAN_DO) for j in found):
        return []  # nothing it can do at all: say what it can, once
    return found


def _word_count(task: str, clause: list[Token]) -> Job:
    quoted = [t.quoted for t in clause if t.kind == "quote"]
    if quoted:
        return WordCount(texts=quoted)
    files = [t.text for t in clause if t.kind == "file"]
    if files or {t.word for t in clause} & {"file", "files", "note", "notes"}:
        return WordCount(files=files)
    after = next((i for i, t in enumerate(clause) if t.word in ("in", "of")), None)
    if after is None or after + 1 == len(clause) or clause[after + 1].word in _REFERRING:
        return Said(f"{CANNOT} tell which text to count: put it in quotes (\"How many words are in 'a b c'?\").")
    return WordCount(texts=[task[clause[after + 1].start:clause[-1].end].lstrip(":").strip()])


def _shout(task: str, clause: list[Token]) -> Job:
    quoted = next((t for t in clause if t.kind == "quote"), None)
    if quoted is not None:
        return Shout(quoted.quoted)
    keyword = next(i for i, t in enumerate(clause) if t.word in ("shout", "upper", "uppercase", "capitals"))
    rest = clause[keyword + 1:]
    if rest and rest[0].text == ":":
        rest = rest[1:]
    if not rest:
        return Said(f"{CANNOT} tell what to shout: say it after the word (\"Shout good morning\").")
    return Shout(task[rest[0].start:rest[-1].end])


def _sums(text: str, clause: list[Token]) -> list[Job]:
    """The sums of an arithmetic clause, or one decline saying why it cannot be read."""
    why = _unreadable(clause)
    if why:
        return [Said(f"{CANNOT} work out “{text}”: {why}")]
    symbols = _symbols(clause)
    numbers = sum(1 for s in symbols if s[0] == "num")
    has_signs = any(s[0] in "+-" for s in symbols)
    if not has_signs and any(t.word in _SUM_VERBS for t in clause):
        listed = _listed(symbols)
        found: list[Sum] = [listed] if listed else []
    else:
        found = _expressions(symbols)
    if not found or sum(len(s.written) for s in found) != numbers:
        return [Said(f"{CANNOT} work out “{text}”: I read sums like 10 - 3 + 2.5, \"add 7 and 5\" or "
                     "\"2 + 3 and 4 + 5\", and I cannot tell what every number in it is for.")]
    return [s if s.exact() else Said(f"{CANNOT} add {s.words()} exactly: the `add` tool works in floating "
                                     "point, and numbers this large or this precise would come back rounded.")
            for s in found]


def _unreadable(clause: list[Token]) -> str:
    """Why an arithmetic clause holds something the toy cannot read, or '' when it holds only what it reads."""
    for i, token in enumerate(clause):
        if token.kind == "mixed":
            return f"I do not read “{token.text}” as a number."
        if token.kind == "num" and re.match(r"0\d", token.text):
            return f"I do not read “{token.text}” (a leading zero) as a number."
        if token.kind == "mark" and token.text == "," and 0 < i < len(clause) - 1 \
                and clause[i - 1].kind == "num" == clause[i + 1].kind \
                and clause[i - 1].end == token.start and token.end == clause[i + 1].start:
            return (f"I cannot tell whether the comma in {clause[i - 1].text},{clause[i + 1].text} separates two "
                    "numbers or groups thousands.")
        if token.kind == "mark" and token.text not in (",", ":", "=", "?", "!", "."):
            return f"I only add and subtract, and I do not read “{token.text}”."
        if token.kind in ("quote", "file"):
            return f"I do not read {token.text} in a sum."
        if token.kind == "word" and token.word not in _FILLER | _SUM_VERBS | _LIST_JOINS | set(_SIGNS) | {"negative"}:
            return f"I only add and subtract, and I do not read “{token.text}” in a sum."
    return ""


def _symbols(clause: list[Token]) -> list[tuple[str, str]]:
    """The clause as numbers (`num`, written with their sign), binary `+` and `-`, and `join` between them."""
    out: list[tuple[str, str]] = []
    negate = False
    for token in clause:
        sign = _SIGNS.get(token.word) or ("-" if token.word == "negative" else None)
        if token.kind == "num":
            out.append(("num", ("-" if negate else "") + token.text))
            negate = False
        elif sign is not None:
            if sign == "-" and (token.word == "negative" or not out or out[-1][0] != "num"):
                negate = not negate  # a unary minus: "-3", "5 - -3", "negative 3"
            else:
                out.append((sign, sign))
        elif token.word in _LIST_JOINS:
            out.append(("join", token.word))
    return out


def _expressions(symbols: list[tuple[str, str]]) -> list[Sum]:
    """The runs `number (sign number)+`; a lone number belongs to none (the caller then declines)."""
    found: list[Sum] = []
    run: list[tuple[str, str]] = []
    for kind, value in [*symbols, ("end", "")]:
        if kind == "num" and (not run or run[-1][0] in "+-"):
            run.append((kind, value))
        elif kind in "+-" and run and run[-1][0] == "num":
            run.append((kind, value))
        else:
            if len(run) >= 3 and run[-1][0] == "num":
                found.append(Sum([v for k, v in run if k == "num"], [v for k, v in run if k in "+-"]))
            run = [(kind, value)] if kind == "num" else []
    return found


def _listed(symbols: list[tuple[str, str]]) -> Sum | None:
    """"add 1, 2 and 3": the numbers of a sum with a verb, with a join between every two."""
    numbers = [v for k, v in symbols if k == "num"]
    kinds = [k for k, _ in symbols]
    between = "".join("n" if k == "num" else "j" for k in kinds).strip("j")
    if len(numbers) < 2 or "nn" in between:
        return None
    return Sum(numbers, ["+"] * (len(numbers) - 1))

