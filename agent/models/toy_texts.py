"""The texts the toy counts the words of or shouts: quoted, after a label, the answer of a part before, or a file's.

`toy_tasks.py` hands it a clause asking for a word count or shouting; it finds
the text the clause means, so that the words asking for it are never counted
or shouted with it ("make hello uppercase", "hello in capital letters please"
and "shout the word hello" all shout hello). "Shout it", "then shout the
answer" and "uppercase that" shout the answer of the part before; "shout the
answer to 2 + 3" of the sum after; "count the words in the answer" counts it;
"shout what's in my notes" reads the files first (`toy_files.py`).
"""

from __future__ import annotations

from collections.abc import Callable

from agent.models.toy_clauses import Token
from agent.models.toy_files import (
    COUNTING,
    FILE_WORDS,
    GREETING,
    LABELS,
    about_files_declined,
    file_called,
    files_job,
    unread_about_files,
)
from agent.models.toy_jobs import (
    CANNOT,
    CountAnswer,
    FileWords,
    Job,
    Listing,
    Reading,
    Said,
    Shout,
    ShoutAnswer,
    ShoutFiles,
    WordCount,
    short,
)

__all__ = ["ClauseReader", "shout_at", "shouting", "word_count"]

ClauseReader = Callable[[str, list[Token], int, list[list[int]]], list[Job]]
"""How a clause is read (`toy_tasks.py`'s way: the task, the clause, where its jobs go, the jobs asked before), for
"shout the answer to 2 + 3" to read its sum; given, not imported, as `toy_tasks.py` imports this module."""

_REFERRING = {"this", "that", "these", "those", "it", "my", "your", "above", "below", "following", "here"}
_SHOUT_WORDS = {"shout", "upper", "uppercase", "uppercased", "capitals", "caps", "yell", "scream"}
_CASE_WORDS = _SHOUT_WORDS | {"case", "cased", "letters", "letter", "capital", "all", "-"}
_BEFORE_SHOUTED = {"make", "turn", "put", "write", "convert", "change", "render", "print", "say", "type", "set",
                   "format", "transform", "can", "could", "would", "will", "you", "please", "i", "want", "need", "to",
                   "me", "us", "let", "let's", "lets", "now", "then", "and", "also", "so", "just", "kindly", "hey",
                   "hi", "give", "get", "show"}
_INTO = {"in", "into", "to", "as", "using", "with", "all"}
_THE_ANSWER = {"it", "that", "this", "them", "these", "those", "answer", "answers", "result", "results", "sum", "sums",
               "total", "output", "outcome", "reply", "count", "number"}
_PLURAL = {"them", "these", "those", "answers", "results", "sums", "both", "all"}
_AROUND_ANSWER = {"the", "its", "your", "my", "last", "previous", "above", "earlier", "one", "too", "also", "out",
                  "loud", "all", "both", "back", "again", "then", "just", "whole", "final", "same", "please", "now",
                  "of"}
_QUOTE_JOINS = {",", "and", "&", "then", "also"}
_POINTING = {"the", "this", "these", "following"}


def word_count(task: str, clause: list[Token], asked: list[list[int]]) -> Job:
    """`word_count` on the quoted texts, a text named after "in"/"of", the note files, or the answer before."""
    quoted = [t.quoted for t in clause if t.kind == "quote"]
    if quoted:
        return WordCount(quoted)
    counted = next(i for i, t in enumerate(clause) if t.word in ("word", "words"))
    after = next((i for i in range(counted + 1, len(clause)) if clause[i].word in ("in", "of")), len(clause))
    target = clause[after + 1:]
    while target and target[0].text == ":":
        target = target[1:]
    # "the sentence I love my cats", "this sentence: ...": the words after those naming what it is ("this
    # sentence" with no colon is the task's own sentence, which it cannot point to)
    text = _without_label(target, leads={"the"})
    if text is not target:
        return WordCount([task[text[0].start:text[-1].end]]) if text else _no_text()
    files = [t.text for t in clause if t.kind == "file"]
    called = file_called(clause)
    if files or {t.word for t in clause} & FILE_WORDS or called:
        if unread_about_files(clause, called, COUNTING | {"word", "words"}):
            return about_files_declined(task[clause[0].start:clause[-1].end])
        return FileWords(files, called=called[0] if called else "")
    if _names_the_answer(target):
        if not asked:
            return Said(f"{CANNOT} tell which text to count: there is no answer before this part to count the words "
                        "of. Put the text in quotes (\"How many words are in 'a b c'?\").")
        return CountAnswer(_answer_of(target, asked))
    if not target or target[0].word in _REFERRING:
        return _no_text()
    return WordCount([task[target[0].start:target[-1].end]])


def _no_text() -> Said:
    return Said(f"{CANNOT} tell which text to count: put it in quotes (\"How many words are in 'a b c'?\").")


def _without_label(tokens: list[Token], leads: set[str] = _POINTING) -> list[Token]:
    """A text without the words before it that name what it is: "the word hello" and "words: hello" are hello.
    Of the words that point at a label, only `leads` may without a colon after it. The same list back when no such
    words lead it; an empty one when they are all there is."""
    if len(tokens) > 1 and tokens[0].word in LABELS and tokens[1].text == ":":
        return tokens[2:]
    if len(tokens) > 1 and tokens[0].word in _POINTING and tokens[1].word in LABELS \
            and (len(tokens) == 2 or tokens[2].word != "of"):
        if len(tokens) > 2 and tokens[2].text == ":":
            return tokens[3:]
        return tokens[2:] if tokens[0].word in leads else tokens
    return tokens


def shout_at(clause: list[Token]) -> int | None:
    """Where a clause asks to shout ("shout", "uppercase", "in capital letters"), or None."""
    for i, token in enumerate(clause):
        if token.word in _SHOUT_WORDS or token.word == "capital" and i + 1 < len(clause) \
                and clause[i + 1].word in ("letters", "letter"):
            return i
    return None


def shouting(task: str, clause: list[Token], keyword: int, start: int, asked: list[list[int]],
             read_clause: ClauseReader) -> list[Job]:
    """`upper` on the text the clause names, on the answer of the part before, or on the answer it asks for."""
    quotes = [i for i, t in enumerate(clause) if t.kind == "quote"]
    if quotes:
        return _shouting_quotes(task, clause, quotes)
    rest = clause[keyword + 1:]
    while rest and (rest[0].word in _CASE_WORDS or rest[0].text == ":"):  # "upper-case: ...", "capital letters"
        rest = rest[1:]
    rest = _without_ending(rest)
    if not rest:  # "make hello uppercase": the text comes before the word
        rest = _without_ending(_without_lead(clause[:keyword]))
    if not rest:
        return [Said(f"{CANNOT} tell what to shout: say it after the word (\"Shout good morning\").")]
    if _names_the_answer(rest):
        if not asked:
            return [Said(f"{CANNOT} tell which answer to shout: ask for it first, then say \"shout the answer\".")]
        return [ShoutAnswer(_answer_of(rest, asked))]
    of = next((i for i, t in enumerate(rest) if t.word in ("to", "of", "for")), None)
    if of and of + 1 < len(rest) and _names_the_answer(rest[:of]):  # "the answer to 2 + 3", "the sum of 1 and 2"
        inner = read_clause(task, rest, start, asked)
        if inner and not all(isinstance(j, Said) and j.off_topic for j in inner):  # a sum it declines: said so
            return [*inner, ShoutAnswer(list(range(start, start + len(inner))))]
    text = _without_label(rest)
    if text and text is not rest:  # "the word hello", "words: good morning"
        return [Shout(task[text[0].start:text[-1].end])]
    # "shout what's in my notes" reads them; "shout hello to my notes" is a text with a greeting in it
    if (any(t.kind == "file" or t.word in FILE_WORDS for t in rest) or file_called(rest)) \
            and not {t.word for t in rest} & (GREETING - _QUOTE_JOINS - {"please", "so"}):
        read = files_job(task[rest[0].start:rest[-1].end], rest)
        if isinstance(read, Reading):
            return [ShoutFiles(read.files, read.called)]
        if isinstance(read, Listing):
            return [read, ShoutAnswer([start])]
    return [Shout(task[rest[0].start:rest[-1].end])]


def _shouting_quotes(task: str, clause: list[Token], quotes: list[int]) -> list[Job]:
    """`upper` on each quoted text of a list ("shout 'hello' and 'bye'"); a quote after other words is declined."""
    shouted = quotes[:1]
    for i in quotes[1:]:
        if not all(t.word in _QUOTE_JOINS for t in clause[shouted[-1] + 1:i]):
            break
        shouted.append(i)
    found: list[Job] = [Shout(clause[i].quoted) for i in shouted]
    if len(shouted) < len(quotes):  # "shout 'hello' and whisper 'bye'": said, not dropped
        rest = clause[shouted[-1] + 1:]
        while rest[0].word in _QUOTE_JOINS:
            rest = rest[1:]
        found.append(Said(f"{CANNOT} answer “{short(task[rest[0].start:clause[-1].end])}”."))
    return found


def _answer_of(tokens: list[Token], asked: list[list[int]]) -> list[int]:
    """The jobs whose answer words name: every part before for "them" or "both", else the part just before."""
    if {t.word for t in tokens} & _PLURAL:
        return [j for clause_jobs in asked for j in clause_jobs]
    return asked[-1]


def _names_the_answer(tokens: list[Token]) -> bool:
    """Whether words name an answer, not a text: "it", "that", "the answer", "the results too"."""
    words = [t.word for t in tokens if t.kind != "mark" or t.text not in ",.!"]
    return bool(words) and all(w in _THE_ANSWER | _AROUND_ANSWER for w in words) and bool(set(words) & _THE_ANSWER)


def _without_lead(tokens: list[Token]) -> list[Token]:
    """The text before a shout word without the words asking for it: "make hello in all" is hello."""
    while tokens and (tokens[0].word in _BEFORE_SHOUTED or tokens[0].text == ","):
        tokens = tokens[1:]
    while tokens and (tokens[-1].word in _INTO | _CASE_WORDS):
        tokens = tokens[:-1]
    return tokens


def _without_ending(tokens: list[Token]) -> list[Token]:
    """A text to shout without what only asks for it: "please", "for me", "out loud", "in capitals"."""
    while tokens:
        last = [t.word for t in tokens[-2:]]
        if tokens[-1].text in (",", ":") or last[-1] in ("please", "thanks", "now", "loudly", "aloud"):
            tokens = tokens[:-1]
        elif last in (["for", "me"], ["for", "us"], ["out", "loud"], ["thank", "you"]):
            tokens = tokens[:-2]
        elif last[-1] in _CASE_WORDS - {"all", "-"}:
            while tokens and tokens[-1].word in _CASE_WORDS:
                tokens = tokens[:-1]
            if tokens and tokens[-1].word in _INTO:
                tokens = tokens[:-1]
        else:
            break
    return tokens
