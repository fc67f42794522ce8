"""The sums the toy reads in a clause, or why it declines one: `toy_tasks.py` hands it each clause of arithmetic.

A clause with numbers is a sum only when it reads as arithmetic (`arithmetic`:
a sign, a sum word, a maths word, or nothing but numbers and "what is"), so
"I was born in 1990" is not a failed sum. The toy says a result only when it
has read the whole clause: a sum takes digits (`10`, `2.5`, `.5`, `1e3`), `+`,
`-`, "plus", "minus", "negative" and a short list of plain words ("what is",
"add ... and ...", "the sum of"); any other word, sign or number shape in it
(`*`, "times", "squared", `1,500`, `3k`, `007`, brackets) makes it decline
instead of guessing; "subtract 4 from 10" and "4 subtracted from 10" are
10 - 4, and "subtract" in any other shape is declined. Subtraction is the `add`
tool with the number negated. Numbers a floating-point `add` would not add
exactly (0.1 + 0.2, whose `add` gives 0.30000000000000004, or more than 14
significant digits between them) are declined before any call.
"""

from __future__ import annotations

import re

from agent.models.toy_clauses import Token
from agent.models.toy_jobs import CANNOT, Job, Said, Sum, short

__all__ = ["SUM_VERBS", "arithmetic", "sums"]

_FILLER = {"what", "whats", "what's", "is", "are", "the", "of", "please", "calculate", "compute", "work", "out",
           "tell", "me", "us", "can", "could", "would", "will", "you", "do", "does", "find", "give", "get", "result",
           "answer", "value", "equal", "equals", "hey", "hi", "hello", "quick", "question", "i", "need", "want",
           "know", "kindly", "solve", "evaluate", "it", "this", "for", "up", "a", "an", "now", "ok", "okay", "so",
           "just", "how", "much", "together", "numbers", "number", "both", "sums", "also", "and", "then", "thanks",
           "thank"}
SUM_VERBS = {"add", "sum", "total"}
_LIST_JOINS = {",", "and", "then", "to", "with"}
_SIGNS = {"+": "+", "plus": "+", "-": "-", "−": "-", "–": "-", "minus": "-"}
# Words that make a clause with numbers arithmetic (then declined if it is more than adding), not small talk.
_MATHS = SUM_VERBS | set(_SIGNS) | {
    "negative", "times", "multiply", "multiplied", "divide", "divided", "squared", "cubed", "square", "cube", "power",
    "root", "sqrt", "percent", "half", "double", "twice", "triple", "product", "difference", "subtract", "subtracted",
    "bigger", "smaller", "larger", "greater", "equal", "equals", "average", "mean", "mod", "modulo", "remainder",
    "factorial", "binary", "hex", "calculate", "compute", "evaluate", "solve", "x"}
_MATHS_MARKS = set("*/×÷^%=()<>[]")
_SUBTRACTING = {"subtract", "subtracted"}


def sums(text: str, clause: list[Token]) -> list[Job]:
    """The sums of an arithmetic clause, or one decline saying why it cannot be read."""
    if any(t.word in _SUBTRACTING for t in clause):
        subtraction = _subtraction(clause)
        if subtraction is None:
            return [Said(f"{CANNOT} work out “{short(text)}”: I read subtracting only as \"subtract A from B\" or "
                         "\"A subtracted from B\", each of A and B one number.")]
        return _exactly([subtraction])
    why = _unreadable(clause)
    if why:
        return [Said(f"{CANNOT} work out “{short(text)}”: {why}")]
    if not any(t.kind == "num" for t in clause):  # "total", "sum it up": a sum word and nothing to add
        return [Said(f"{CANNOT} work out “{short(text)}”: there is no number in it to add.")]
    symbols = _symbols(clause)
    numbers = sum(1 for s in symbols if s[0] == "num")
    has_signs = any(s[0] in "+-" for s in symbols)
    if not has_signs and any(t.word in SUM_VERBS for t in clause):
        listed = _listed(symbols)
        found: list[Sum] = [listed] if listed else []
    else:
        found = _expressions(symbols)
    if not found or sum(len(s.written) for s in found) != numbers:
        return [Said(f"{CANNOT} work out “{short(text)}”: I read a sum as numbers with + or - between them, or "
                     "\"add\" and a list of numbers, and I cannot tell what every number in it is for.")]
    return _exactly(found)



def arithmetic(clause: list[Token]) -> bool:
    """Whether a clause with numbers asks for arithmetic: a sign, a maths word, or nothing but numbers and filler."""
    if any(t.kind == "op" or t.kind == "mark" and t.text in _MATHS_MARKS or t.word in _MATHS for t in clause):
        return True
    return all(t.word in _FILLER | _LIST_JOINS for t in clause if t.kind == "word")


def _exactly(found: list[Sum]) -> list[Job]:
    """The sums, each declined instead when a floating-point `add` would not give it exactly."""
    return [Said(f"{CANNOT} add {short(s.words())} exactly: the `add` tool works in floating point, and "
                 f"{s.inexact()}.") if s.inexact() else s for s in found]


def _subtraction(clause: list[Token]) -> Sum | None:
    """"subtract 4 from 10" or "4 subtracted from 10" as 10 - 4, or None when the clause is not one of them."""
    verb = next(i for i, t in enumerate(clause) if t.word in _SUBTRACTING)
    taking = next((i for i, t in enumerate(clause) if t.word == "from"), None)
    if taking is None or taking < verb:
        return None
    lead, taken = clause[:verb], clause[verb + 1:taking]
    if clause[verb].word == "subtracted":
        lead, taken = taken, lead
    number, whole = _one_number(taken), _one_number(clause[taking + 1:])
    if _unreadable(lead) or _symbols(lead) or number is None or whole is None:
        return None
    return Sum([whole, number], ["-"])


def _one_number(tokens: list[Token]) -> str | None:
    """The one number of a few words ("negative 2", "the 4"), signed; None for anything else."""
    symbols = _symbols(tokens)
    return symbols[0][1] if not _unreadable(tokens) and [kind for kind, _ in symbols] == ["num"] else None


def _unreadable(clause: list[Token]) -> str:
    """Why an arithmetic clause holds something the toy cannot read, or '' when it holds only what it reads."""
    for i, token in enumerate(clause):
        if token.kind == "mixed":
            return f"I do not read “{short(token.text, 20)}” as a number."
        if token.kind == "num" and re.match(r"0\d", token.text):
            return f"I do not read “{short(token.text, 20)}” (a leading zero) as a number."
        if token.kind == "mark" and token.text == "," and 0 < i < len(clause) - 1 \
                and clause[i - 1].kind == "num" == clause[i + 1].kind \
                and clause[i - 1].end == token.start and token.end == clause[i + 1].start:
            grouped = short(f"{clause[i - 1].text},{clause[i + 1].text}", 20)
            return f"I cannot tell whether the comma in {grouped} separates two numbers or groups thousands."
        if token.kind == "mark" and token.text not in (",", ":", "=", "?", "!", "."):
            return f"I only add and subtract, and I do not read “{token.text}”."
        if token.kind in ("quote", "file"):
            return f"I do not read {short(token.text, 20)} in a sum."
        if token.kind == "word" and token.word not in _FILLER | SUM_VERBS | _LIST_JOINS | set(_SIGNS) | {"negative"}:
            return f"I only add and subtract, and I do not read “{short(token.text, 20)}” in a sum."
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

