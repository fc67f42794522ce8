"""What the toy model reads in a typed task: the jobs it asks for (`toy_jobs.py`), one clause at a time.

A task is cut into clauses (`toy_clauses.py`: at `?`, `.`, `;`, a new line,
and at "and", "then" or a comma that starts a new request). Each clause asks
for a word count, shouting, a sum, listing or reading the note files, or
something the toy has no pattern for (it then says what it can do). A clause
with numbers is a sum only when it reads as arithmetic (a sign, a sum word, a
maths word, or nothing but numbers and "what is"): "I was born in 1990" is not
a failed sum. "Shout it", "then shout the answer" and "uppercase that" shout
the answer of the part before; "shout the answer to 2 + 3" of the sum after;
"count the words in the answer" counts it. A clause about the files holds only
the words of listing, counting or reading them ("which of them mentions Omid?"
is declined, not answered with the files), and "my todo list" names a file by
a word, looked for among those `list_files` gives.

The rule the toy keeps: it says a result only when it has read the whole
clause. A sum takes digits (`10`, `2.5`, `.5`, `1e3`), `+`, `-`, "plus",
"minus", "negative" and a short list of plain words ("what is", "add ... and
...", "the sum of"); any other word, sign or number shape in it (`*`, "times",
"squared", `1,500`, `3k`, `007`, brackets) makes it decline instead of
guessing; "subtract 4 from 10" and "4 subtracted from 10" are 10 - 4, and
"subtract" in any other shape is declined. Subtraction is the `add` tool with
the number negated. Numbers a
floating-point `add` would not add exactly (0.1 + 0.2, whose `add` gives
0.30000000000000004, or more than 14 significant digits between them) are
declined before any call.
"""

from __future__ import annotations

import re

from agent.models.toy_clauses import Token, clauses
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
    Sum,
    WordCount,
    off_topic,
    short,
)

__all__ = ["jobs"]

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
# Words that make a clause with numbers arithmetic (then declined if it is more than adding), not small talk.
_MATHS = _SUM_VERBS | set(_SIGNS) | {
    "negative", "times", "multiply", "multiplied", "divide", "divided", "squared", "cubed", "square", "cube", "power",
    "root", "sqrt", "percent", "half", "double", "twice", "triple", "product", "difference", "subtract", "subtracted",
    "bigger", "smaller", "larger", "greater", "equal", "equals", "average", "mean", "mod", "modulo", "remainder",
    "factorial", "binary", "hex", "calculate", "compute", "evaluate", "solve", "x"}
_MATHS_MARKS = set("*/×÷^%=()<>[]")
_FILE_WORDS = {"file", "files", "note", "notes"}
_CHANGING = {"delete", "remove", "erase", "write", "create", "add", "save", "edit", "change", "rename", "move", "copy",
             "append", "update", "modify", "upload", "download", "overwrite", "clear"}
_READS = {"read", "content", "contents", "say", "says", "said", "inside", "open", "contain", "contains", "written"}
_NAMES = {"list", "names", "name", "many", "which"}
_THERE_ARE = {"have", "any", "there", "exist", "available"}
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
_LABELS = {"word", "words", "text", "phrase", "sentence", "name", "string", "letters", "line", "message"}
_QUOTE_JOINS = {",", "and", "&", "then", "also"}
_SUBTRACTING = {"subtract", "subtracted"}
_COUNTING = {"how", "many", "count", "number"}
# The words a question about the note files may hold: asking to list, count or read them, and the small words
# around that. A file question with any other word ("which mentions Omid", "how many lines") is one it declines.
_ABOUT_FILES = _FILE_WORDS | _READS | _NAMES | _THERE_ARE | _GREETING | _COUNTING | {
    "what", "whats", "what's", "is", "are", "in", "on", "of", "from", "my", "the", "your", "our", "me", "i", "we",
    "us", "you", "do", "does", "has", "got", "all", "every", "each", "show", "tell", "give", "get", "see", "let",
    "look", "at", "print", "display", "view", "can", "could", "would", "will", "want", "need", "like", "to", "know",
    "just", "now", "a", "an", "here", "stored", "saved", "kindly", "quick", "question", "for",
    "first"}  # the first file is the one read when none is named
_FILES_CAN = "about the note files I only list them, count them, show or shout what is in them and count their words."
_OWNERS = {"my", "the", "your", "our"}
_FILE_NOUNS = {"list", "file", "note", "notes"}
# Words before "file" or "list" that say which file without naming it ("the last file"): read, not looked for.
_NOT_A_NAME = _FILE_WORDS | _LABELS | _ABOUT_FILES - {"to", "do"} | {
    "lists", "text", "txt", "other", "own", "both", "two", "new", "old", "last", "second", "third", "next", "previous",
    "latest", "newest", "oldest", "biggest", "longest", "shortest", "smallest", "largest", "whole", "entire"}


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
        return [_word_count(task, clause, asked)]
    keyword = _shout_at(clause)
    if keyword is not None:
        return _shouting(task, clause, keyword, start, asked)
    if any(t.kind == "num" or t.kind == "mixed" and any(c.isdigit() for c in t.text) for t in clause):
        return _sums(text, clause) if _arithmetic(clause) else [off_topic(text)]
    if words & _FILE_WORDS or any(t.kind == "file" for t in clause) or _called(clause):
        return [_files(text, clause)]
    if words & (_SUM_VERBS | {"plus", "minus"}):
        return _sums(text, clause)
    if not words <= _GREETING or any(t.kind not in ("word", "mark") for t in clause):
        return [off_topic(text)]
    return []


def _arithmetic(clause: list[Token]) -> bool:
    """Whether a clause with numbers asks for arithmetic: a sign, a maths word, or nothing but numbers and filler."""
    if any(t.kind == "op" or t.kind == "mark" and t.text in _MATHS_MARKS or t.word in _MATHS for t in clause):
        return True
    return all(t.word in _FILLER | _LIST_JOINS for t in clause if t.kind == "word")


def _word_count(task: str, clause: list[Token], asked: list[list[int]]) -> Job:
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
    called = _called(clause)
    if files or {t.word for t in clause} & _FILE_WORDS or called:
        if _unread_about_files(clause, called, _COUNTING | {"word", "words"}):
            return _about_files_declined(task[clause[0].start:clause[-1].end])
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


_POINTING = {"the", "this", "these", "following"}


def _without_label(tokens: list[Token], leads: set[str] = _POINTING) -> list[Token]:
    """A text without the words before it that name what it is: "the word hello" and "words: hello" are hello.
    Of the words that point at a label, only `leads` may without a colon after it. The same list back when no such
    words lead it; an empty one when they are all there is."""
    if len(tokens) > 1 and tokens[0].word in _LABELS and tokens[1].text == ":":
        return tokens[2:]
    if len(tokens) > 1 and tokens[0].word in _POINTING and tokens[1].word in _LABELS \
            and (len(tokens) == 2 or tokens[2].word != "of"):
        if len(tokens) > 2 and tokens[2].text == ":":
            return tokens[3:]
        return tokens[2:] if tokens[0].word in leads else tokens
    return tokens


def _called(clause: list[Token]) -> tuple[str, list[int]] | None:
    """A file named by a word and no extension ("todo" of "my todo list", "the to-do file"), with the places of the
    words that name it; None when the clause names none so."""
    for i, owner in enumerate(clause):
        if owner.word not in _OWNERS:
            continue
        end = i + 1
        while end < len(clause) and end - i <= 3 and (clause[end].kind == "word" and clause[end].word not in _NOT_A_NAME
                                                       or clause[end].text == "-" and end > i + 1):
            end += 1
        if end > i + 1 and end < len(clause) and clause[end].word in _FILE_NOUNS and clause[end - 1].text != "-":
            name = "".join(re.sub(r"[\W_]", "", t.word) for t in clause[i + 1:end])
            return name, list(range(i + 1, end + 1))
    return None


def _unread_about_files(clause: list[Token], called: tuple[str, list[int]] | None, also: set[str]) -> bool:
    """Whether a clause about the files holds words besides a file's name and asking to list, count or read them."""
    named = called[1] if called else []
    return any(not (t.kind == "file" or t.kind == "word" and t.word in _ABOUT_FILES | also
                    or t.kind == "mark" and t.text in ",.?!:") for i, t in enumerate(clause) if i not in named)


def _about_files_declined(text: str) -> Said:
    return Said(f"{CANNOT} answer “{short(text)}”: {_FILES_CAN}")


def _files(text: str, clause: list[Token]) -> Job:
    """Listing the files ("which files are there?"), counting them ("how many files?") or reading them ("what is in
    my notes?"); a question about them that asks anything else is declined, not answered with their content."""
    words = {t.word for t in clause if t.kind == "word"}
    if words & _CHANGING:
        return Said(f"{CANNOT} change files: I only list the note files and read them.")
    called = _called(clause)
    named = [t.text for t in clause if t.kind == "file"]
    if _unread_about_files(clause, called, set()) or (named or called) and words & _COUNTING:
        return _about_files_declined(text)
    if named:
        return Reading(named)
    if called:
        return Reading(called=called[0])
    if words & {"many", "count", "number"}:
        return Listing(count=True)
    if words & _READS:
        return Reading()
    asked_which = any(a.word in ("what", "which") and b.word in _FILE_WORDS
                      for a, b in zip(clause, clause[1:], strict=False))  # "what files", "which notes"
    if words & _NAMES or asked_which or words & _THERE_ARE and "in" not in words:
        return Listing()
    if "in" not in words and "files" in words:  # "my files?", "show me the files"
        return Listing()
    return Reading()


def _shout_at(clause: list[Token]) -> int | None:
    """Where a clause asks to shout ("shout", "uppercase", "in capital letters"), or None."""
    for i, token in enumerate(clause):
        if token.word in _SHOUT_WORDS or token.word == "capital" and i + 1 < len(clause) \
                and clause[i + 1].word in ("letters", "letter"):
            return i
    return None


def _shouting(task: str, clause: list[Token], keyword: int, start: int, asked: list[list[int]]) -> list[Job]:
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
        inner = _clause_jobs(task, rest, start, asked)
        if inner and not all(isinstance(j, Said) and j.off_topic for j in inner):  # a sum it declines: said so
            return [*inner, ShoutAnswer(list(range(start, start + len(inner))))]
    text = _without_label(rest)
    if text and text is not rest:  # "the word hello", "words: good morning"
        return [Shout(task[text[0].start:text[-1].end])]
    # "shout what's in my notes" reads them; "shout hello to my notes" is a text with a greeting in it
    if (any(t.kind == "file" or t.word in _FILE_WORDS for t in rest) or _called(rest)) \
            and not {t.word for t in rest} & (_GREETING - _QUOTE_JOINS - {"please", "so"}):
        read = _files(task[rest[0].start:rest[-1].end], rest)
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


def _sums(text: str, clause: list[Token]) -> list[Job]:
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
    if not has_signs and any(t.word in _SUM_VERBS for t in clause):
        listed = _listed(symbols)
        found: list[Sum] = [listed] if listed else []
    else:
        found = _expressions(symbols)
    if not found or sum(len(s.written) for s in found) != numbers:
        return [Said(f"{CANNOT} work out “{short(text)}”: I read a sum as numbers with + or - between them, or "
                     "\"add\" and a list of numbers, and I cannot tell what every number in it is for.")]
    return _exactly(found)


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
        if token.kind == "word" and token.word not in _FILLER | _SUM_VERBS | _LIST_JOINS | set(_SIGNS) | {"negative"}:
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

