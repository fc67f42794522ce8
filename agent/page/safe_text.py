"""Strings from strangers, made fit for the page: shown as text, the key blanked, a huge one clipped.

Every string that comes from a script, a model, a tool or an upload reaches the
page through `as_text` (for Streamlit's markdown: `st.caption`, `st.error`, ...)
or `clip_text` (for `st.code` and `st.text`, which show text as it is). Markdown
in such a string would be rendered: `![x](http://...)` makes the viewer's
browser fetch a stranger's URL, `# heading` becomes a heading. So every ASCII
punctuation character is escaped (CommonMark lets a backslash escape any of
them): every one that starts markdown syntax is escaped, `<` and `&` among them, so no HTML or entity is made
of it either.
"""

from __future__ import annotations

import re
from typing import Any

MARKDOWN_SPECIALS = frozenset("\\`*_{}[]()<>#+-=.!|~$&")
"""The characters that begin markdown syntax (Streamlit's `:color[...]` and LaTeX `$` included); `=` makes a line
above it a heading, `&` an entity. Colons, quotes and commas stay as they are: nothing starts with them alone."""
SHOWN_CHARS = 2_000
"""The most characters of one string drawn inside a sentence (a notice, a caption)."""
CODE_CHARS = 100_000
"""The most characters drawn in one code box; the whole is offered as a download."""


# A web or e-mail address in a message. Escaped, it would show as a broken link (`127\\.0`), or still be made a
# live one (the renderer links `a@b\\.com`), so it goes in a code span. Case-insensitive, as the renderer's own
# link finder is: `HTTP://X.COM` is a link to it too.
_URL = re.compile(r"\b(?:https?|ftp)://[^\s`]+|\bwww\.[^\s`]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)


def md_escape(text: str) -> str:
    """Text that markdown shows exactly as written; a web or e-mail address is shown as code, never as a link."""
    parts, at = [], 0
    for found in _URL.finditer(text):
        address = found.group(0).rstrip(".,;:!?)]}'\"")  # the sentence's own punctuation stays outside
        parts.append(_escape_plain(text[at:found.start()]))
        parts.append(f"`{address}`")
        at = found.start() + len(address)
    parts.append(_escape_plain(text[at:]))
    return "".join(parts)


def _escape_plain(text: str) -> str:
    return "".join("\\" + ch if ch in MARKDOWN_SPECIALS else ch for ch in text)


def scrub(text: str, secret: str | None) -> str:
    """`text` with the secret blanked out, so a key never reaches the screen inside an error message."""
    return text.replace(secret, "•••") if secret and len(secret) >= 4 else text


def clip_text(text: str, limit: int = CODE_CHARS, whole_at: str = "") -> str:
    """At most `limit` characters of `text`, and when it was longer, a last line saying what was left out and where
    the whole is (`whole_at`, e.g. "the Export tab")."""
    if len(text) <= limit:
        return text
    where = f"; the whole is in {whole_at}" if whole_at else ""
    return f"{text[:limit]}\n… {len(text) - limit:,} more characters not drawn{where}"


def as_code(value: Any, secret: str | None = None, limit: int = SHOWN_CHARS) -> str:
    """Any value from a stranger as a markdown code span: inside one nothing is markdown, whatever it holds.

    The fence is one backtick longer than the longest run of backticks in the text, so none can close it early.
    """
    text = scrub(str(value), secret).replace("\n", " ")
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text) - limit:,} more characters)"
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") or not text.strip() else text
    return f"{fence}{padded}{fence}"


def as_code_block(text: str, limit: int = CODE_CHARS) -> str:
    """Text from a stranger (a learner's output, say) as a markdown code block, shown exactly as written.

    Its fence is longer than the longest run of backticks in the text, so no line of it can close the block.
    """
    text = clip_text(text, limit)
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence}\n{text}\n{fence}"


def as_text(value: Any, secret: str | None = None, limit: int = SHOWN_CHARS) -> str:
    """Any value from a script, a model, a tool or an upload, as markdown that shows it as plain text.

    The key is blanked first (so escaping cannot split it), then the text is clipped, then escaped.
    """
    text = scrub(str(value), secret)
    if len(text) > limit:
        text = f"{text[:limit]}… ({len(text) - limit:,} more characters)"
    return md_escape(text)


def literal(value: Any) -> str:
    """A stranger's value inside one of the page's sentences (`with_code`): its backticks and backslashes are shown
    as written, never taken for the sentence's marks."""
    return str(value).replace("\\", "\\\\").replace("`", "\\`")


def marked_spans(sentence: str) -> list[tuple[bool, str]]:
    """A page sentence's pieces, each (whether it is code, its text): backticks open and close a code span, a
    backslash keeps the character after it as it is (`literal`)."""
    spans, piece, code, at = [], [], False, 0
    while at < len(sentence):
        char = sentence[at]
        if char == "\\" and at + 1 < len(sentence):
            piece.append(sentence[at + 1])
            at += 2
            continue
        if char == "`":
            spans.append((code, "".join(piece)))
            piece, code = [], not code
        else:
            piece.append(char)
        at += 1
    spans.append((code, "".join(piece)))
    return spans


def with_code(sentence: str, secret: str | None = None) -> str:
    """A sentence of the page's as markdown, as the player draws it (player.js `withCode`): a lead in `**` at its
    start bold, its `code` spans as code, the rest (maybe a stranger's words, `literal`) as plain text."""
    lead = ""
    if sentence.startswith("**") and (end := sentence.find("**", 2)) > 2:
        lead, sentence = f"**{as_text(sentence[2:end], secret)}**", sentence[end + 2:]
    return lead + "".join(as_code(text, secret) if code and text else as_text(text, secret)
                          for code, text in marked_spans(sentence))


def as_sentence(value: Any, secret: str | None = None, limit: int = SHOWN_CHARS) -> str:
    """`as_text` with a full stop after it, unless it ends a sentence of its own (`... for more details.`)."""
    text = as_text(value, secret, limit)
    return text if text.endswith(("\\.", "\\!", "?", "…")) else text + "\\."
