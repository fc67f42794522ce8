"""The toy's questions about the note files: listing them, counting them, reading them, or a file named by a word.

`toy_tasks.py` hands it a clause about the files, and `toy_texts.py` one whose
words or shout are of the files' content. A clause about the files holds only
the words of listing, counting or reading them, or asks which of them mentions
a word ("Which of notes.txt and todo.txt mentions Omid?": each file read, then
the ones holding it named with the line); anything else ("how many lines?",
"the first line") is declined, not answered with the files. "my todo list"
names a file by a word, looked for among those `list_files` gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.models.toy_clauses import Token
from agent.models.toy_jobs import CANNOT, QUOTED_AT_MOST, FileJob, Job, Listing, Reading, Said, Step, both, short

__all__ = ["COUNTING", "FILE_WORDS", "GREETING", "LABELS", "Mentions", "about_files_declined", "file_called",
           "files_job", "unread_about_files"]

# Words that ask for nothing: greetings, courtesy and the joins between requests. `toy_tasks.py` reads a clause of
# only these as asking nothing, and `toy_texts.py` a shout of the files with one in it as a text.
GREETING = {"hi", "hello", "hey", "please", "thanks", "thank", "you", "ok", "okay", "and", "then", "also", "so"}
FILE_WORDS = {"file", "files", "note", "notes"}
_CHANGING = {"delete", "remove", "erase", "write", "create", "add", "save", "edit", "change", "rename", "move", "copy",
             "append", "update", "modify", "upload", "download", "overwrite", "clear"}
_READS = {"read", "content", "contents", "say", "says", "said", "inside", "open", "contain", "contains", "written"}
_NAMES = {"list", "names", "name", "many", "which"}
_THERE_ARE = {"have", "any", "there", "exist", "available"}
# Words that say what kind of text follows ("the word hello"): `toy_texts.py` reads past them; never a file's name.
LABELS = {"word", "words", "text", "phrase", "sentence", "name", "string", "letters", "line", "message"}
COUNTING = {"how", "many", "count", "number"}
# The words a question about the note files may hold: asking to list, count or read them, and the small words
# around that. A file question with any other word ("which mentions Omid", "how many lines") is one it declines.
_ABOUT_FILES = FILE_WORDS | _READS | _NAMES | _THERE_ARE | GREETING | COUNTING | {
    "what", "whats", "what's", "is", "are", "in", "on", "of", "from", "my", "the", "your", "our", "me", "i", "we",
    "us", "you", "do", "does", "has", "got", "all", "every", "each", "show", "tell", "give", "get", "see", "let",
    "look", "at", "print", "display", "view", "can", "could", "would", "will", "want", "need", "like", "to", "know",
    "just", "now", "a", "an", "here", "stored", "saved", "kindly", "quick", "question", "for",
    "first"}  # the first file is the one read when none is named
_FILES_CAN = ("about the note files I only list them, count them, show or shout what is in them, count their words "
              "and say which of them mentions a word.")
_MENTIONS = {"mention", "mentions", "mentioned", "contain", "contains", "say", "says", "include", "includes"}
# Words a "which of them mentions X" question may hold before its verb, besides those of any file question.
_WHICH = {"one", "ones", "them", "these", "those", "both", "either", "neither", "if", "whether", "of"}
_LINES = {"line", "lines"}
# Words after "mentions" that point at something rather than say what to look for: declined, not searched for.
_NOT_SOUGHT = {"what", "who", "whom", "which", "anything", "something", "it", "that", "this", "him", "her", "them",
               "me", "you", "us", "and", "or"}
_OWNERS = {"my", "the", "your", "our"}
_FILE_NOUNS = {"list", "file", "note", "notes"}
# Words before "file" or "list" that say which file without naming it ("the last file"): read, not looked for.
_NOT_A_NAME = FILE_WORDS | LABELS | _ABOUT_FILES - {"to", "do"} | {
    "lists", "text", "txt", "other", "own", "both", "two", "new", "old", "last", "second", "third", "next", "previous",
    "latest", "newest", "oldest", "biggest", "longest", "shortest", "smallest", "largest", "whole", "entire"}


def files_job(text: str, clause: list[Token]) -> Job:
    """Listing the files ("which files are there?"), counting them ("how many files?") or reading them ("what is in
    my notes?"); a question about them that asks anything else is declined, not answered with their content."""
    words = {t.word for t in clause if t.kind == "word"}
    mentioned = _mentioned(text, clause)
    if mentioned is not None:
        return mentioned
    if words & _CHANGING:
        return Said(f"{CANNOT} change files: I only list the note files and read them.")
    called = file_called(clause)
    named = [t.text for t in clause if t.kind == "file"]
    if words & _LINES and words & COUNTING:
        return Said(f"{CANNOT} count lines: no tool here counts them, and I say only what a tool worked out. I can "
                    "show a file's lines or count its words.")
    if unread_about_files(clause, called, set()) or (named or called) and words & COUNTING:
        return about_files_declined(text)
    if named:
        return Reading(named)
    if called:
        return Reading(called=called[0])
    if words & {"many", "count", "number"}:
        return Listing(count=True)
    if words & _READS:
        return Reading()
    asked_which = any(a.word in ("what", "which") and b.word in FILE_WORDS
                      for a, b in zip(clause, clause[1:], strict=False))  # "what files", "which notes"
    if words & _NAMES or asked_which or words & _THERE_ARE and "in" not in words:
        return Listing()
    if "in" not in words and "files" in words:  # "my files?", "show me the files"
        return Listing()
    return Reading()


def file_called(clause: list[Token]) -> tuple[str, list[int]] | None:
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



def unread_about_files(clause: list[Token], called: tuple[str, list[int]] | None, also: set[str]) -> bool:
    """Whether a clause about the files holds words besides a file's name and asking to list, count or read them."""
    named = called[1] if called else []
    return any(not (t.kind == "file" or t.kind == "word" and t.word in _ABOUT_FILES | also
                    or t.kind == "mark" and t.text in ",.?!:") for i, t in enumerate(clause) if i not in named)



def about_files_declined(text: str) -> Said:
    return Said(f"{CANNOT} answer “{short(text)}”: {_FILES_CAN}")


def _mentioned(text: str, clause: list[Token]) -> Job | None:
    """A question which of the files mentions a word ("does todo.txt mention Omid?", "which file says 'tap'?"),
    as a `Mentions` job; None when the clause asks no such thing, or holds words besides it (then declined)."""
    verb = next((i for i, t in enumerate(clause) if t.word in _MENTIONS), None)
    if verb is None:
        return None
    before, after = clause[:verb], clause[verb + 1:]
    while after and after[-1].kind == "mark" and after[-1].text in ".?!":
        after = after[:-1]
    if after and after[0].word == "about":  # "what does todo.txt say about Omid?"
        after = after[1:]
    quoted = len(after) == 1 and after[0].kind == "quote" and after[0].quoted.strip() \
        and "\n" not in after[0].quoted and len(after[0].quoted) <= QUOTED_AT_MOST
    # One word, or a few after an article ("the plumber"): more words may say more than what to look for.
    plain = all(t.kind == "word" and t.word not in _NOT_SOUGHT for t in after) and (
        len(after) == 1 or 1 < len(after) <= 3 and after[0].word in ("the", "a", "an"))
    if not (quoted or plain):
        return None
    called = file_called(before)
    if unread_about_files(before, called, _WHICH):
        return None
    named = list(dict.fromkeys(t.text for t in before if t.kind == "file"))  # a file named twice is read once
    if not (named or called or {t.word for t in before} & FILE_WORDS):
        return None
    word = after[0].quoted.strip() if quoted else text[after[0].start - clause[0].start:after[-1].end - clause[0].start]
    return Mentions(named, called=called[0] if called else "", every=not called, word=word,
                    asked_of_one=len(named) == 1 or bool(called))


def _quoting(sentence: str, line: str) -> str:
    """A sentence ending in a quoted line: one full stop, the line's own when it ends a sentence."""
    quoted = short(line, 80)
    return f"{sentence}: “{quoted}”" + ("" if quoted.endswith((".", "!", "?", "…")) else ".")


@dataclass
class Mentions(FileJob):
    """Which of the files mentions a word: each read (in one reply when named), then those holding the word named,
    with the first line that does, and the rest said not to: all from what `read_file` gave."""

    word: str = ""
    asked_of_one: bool = False
    """One file was asked about ("does todo.txt mention Omid?"): the answer starts yes or no."""

    def no_files(self) -> str:
        return f"There are no files, so none mentions {self.word}."

    def done(self, names: list[str], contents: list[str], got: list[list[str]]) -> Step:
        found = re.compile(rf"(?<!\w){re.escape(self.word)}(?!\w)", re.IGNORECASE)
        lines = {name: next((line.strip() for line in content.splitlines() if found.search(line)), None)
                 for name, content in zip(names, contents, strict=False)}
        holding = [name for name, line in lines.items() if line is not None]
        without = [name for name in lines if name not in holding]
        said = [_quoting(f"{name} mentions {self.word}", lines[name] or "") for name in holding]
        if not holding:
            said.append(f"{names[0]} does not mention {self.word}." if len(names) == 1 else
                        f"Neither {names[0]} nor {names[1]} mentions {self.word}." if len(names) == 2 else
                        f"None of {both(names)} mentions {self.word}.")
        elif without:
            said.append(f"{both(without)} {'does' if len(without) == 1 else 'do'} not.")
        answer = " ".join(said)
        if self.asked_of_one:
            answer = ("Yes: " if holding else "No: ") + answer
        return Step(text=answer)
