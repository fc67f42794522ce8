"""How the toy model cuts a typed task into words and clauses, before `toy_tasks.py` reads each clause as a job.

A clause ends at `?`, `!`, `;`, a new line, or a full stop that ends a sentence
(not the one in `example.com`), and a new one starts at "and", "then", "also"
or a comma only when a new request follows ("..., and how many words ...").
Quotes, file names and numbers are single tokens, so "a, b" in quotes or
`notes.txt` never cut a clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"""
    (?P<quote>(?<!\w)["“'‘](?P<quoted>.*?)["”'’](?!\w))
  | (?P<file>(?<![\w.-])[\w-]+\.(?:txt|md|csv|json|log)\b)
  | (?P<num>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?)(?!\w|\.\d)
  | (?P<word>[^\W\d_][\w'’]*)
  | (?P<mixed>\w+)
  | (?P<op>[+\-−–])
  | (?P<newline>\n)
  | (?P<mark>\S)
""", re.VERBOSE | re.DOTALL)
_ENDS = {"?", "!", ";", "."}
_JOINS = {",", "and", "then", "also"}
# A clause starts anew after a join only when a new request follows ("..., and how many words ...").
_STARTERS = {"what", "whats", "what's", "how", "count", "shout", "upper", "uppercase", "add", "sum", "total",
             "read", "list", "show", "tell", "calculate", "compute", "work", "give", "can", "could", "please", "who",
             "why", "where", "when", "which", "write", "say", "explain", "make", "turn", "convert", "put", "yell",
             "scream", "subtract"}


@dataclass
class Token:
    kind: str
    """quote, file, num, word, mixed, op, newline or mark."""
    text: str
    start: int
    end: int
    quoted: str = ""
    """For a quote: the text between the quotes."""

    @property
    def word(self) -> str:
        return self.text.lower().replace("’", "'") if self.kind == "word" else self.text


def tokens(task: str) -> list[Token]:
    found = []
    for match in _TOKEN.finditer(task):
        kind = next(k for k in ("quote", "file", "num", "word", "mixed", "op", "newline", "mark") if match.group(k))
        found.append(Token(kind, match.group(0), match.start(), match.end(), match.group("quoted") or ""))
    return found


def clauses(task: str) -> list[list[Token]]:
    """The task's tokens, cut where one request ends and the next begins."""
    found: list[list[Token]] = [[]]
    toks = tokens(task)
    for i, token in enumerate(toks):
        if token.kind == "newline" or token.word in _ENDS and (token.word != "." or _ends_sentence(task, token)):
            found.append([])
            continue
        if token.word in _JOINS and _new_request_after(toks, i):
            found.append([])
        if found[-1] or token.word not in _JOINS:  # the joins between two requests belong to neither
            found[-1].append(token)
    return [c for c in found if c]


def _ends_sentence(task: str, token: Token) -> bool:
    """Whether a full stop ends a sentence: one followed by a space or the end, not one inside `example.com`."""
    return token.end == len(task) or task[token.end].isspace()


def _new_request_after(toks: list[Token], i: int) -> bool:
    following = next((t for t in toks[i + 1:] if t.word not in _JOINS), None)
    return following is not None and following.word in _STARTERS
