"""The toy's questions about the note files: listing them, counting them, reading them, or a file named by a word.

`toy_tasks.py` hands it a clause about the files, and `toy_texts.py` one whose
words or shout are of the files' content. A clause about the files holds only
the words of listing, counting or reading them ("which of them mentions Omid?"
is declined, not answered with the files), and "my todo list" names a file by
a word, looked for among those `list_files` gives.
"""

from __future__ import annotations

import re

from agent.models.toy_clauses import Token
from agent.models.toy_jobs import CANNOT, Job, Listing, Reading, Said, short

__all__ = ["COUNTING", "FILE_WORDS", "GREETING", "LABELS", "about_files_declined", "file_called", "files_job",
           "unread_about_files"]

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
_FILES_CAN = "about the note files I only list them, count them, show or shout what is in them and count their words."
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
    if words & _CHANGING:
        return Said(f"{CANNOT} change files: I only list the note files and read them.")
    called = file_called(clause)
    named = [t.text for t in clause if t.kind == "file"]
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
