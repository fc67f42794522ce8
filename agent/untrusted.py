"""Reading JSON that a stranger wrote: script files, uploads, request bodies.

One place sets the limits, so the CLI, the stand-in server and the page refuse
the same things in the same words, before any of it reaches code that would
trip over it: a file that is not a regular file (a FIFO blocks forever,
`/dev/zero` never ends), text larger than a limit, nesting deeper than any
real script or request needs (Python's parser would raise RecursionError), a
number longer than any real one (Python refuses integers of more than 4,300
digits with a ValueError; a float can overflow to infinity), `NaN` and
`Infinity` (not JSON, though Python reads them), a lone surrogate (`"\\ud800"`
parses, then dies when printed or encoded), and a top-level value of the
wrong type. Every refusal is an `UntrustedInputError` whose `str()` is one
line for a person.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, BinaryIO

MAX_FILE_BYTES = 16 * 1024 * 1024
"""The largest script or request file read: far above any real one."""
MAX_DEPTH = 64
"""The deepest nesting of arrays and objects: a tool's input may nest, but not this far."""
MAX_NUMBER_CHARS = 40
"""The longest number literal: a token count or a status has a few digits; 40 leaves room for any float."""

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_TYPE_WORDS = {dict: "a JSON object", list: "a JSON array", str: "a string", int: "a number", float: "a number",
               bool: "true or false", type(None): "null"}


class UntrustedInputError(ValueError):
    """Input refused before it was used; `str()` is one line for a person."""


def _refuse(source: str, message: str) -> UntrustedInputError:
    return UntrustedInputError(f"{source}: {message}")


def _number_parser(kind: type, source: str) -> Any:
    def parse(literal: str) -> Any:
        if len(literal) > MAX_NUMBER_CHARS:
            raise _refuse(source, f"a number of {len(literal):,} characters (at most {MAX_NUMBER_CHARS} are read)")
        value = kind(literal)
        if kind is float and not math.isfinite(value):
            raise _refuse(source, f"the number {literal} is too large to hold")
        return value
    return parse


def _refuse_constant(source: str) -> Any:
    def parse(name: str) -> Any:
        raise _refuse(source, f"{name} is not a JSON number")
    return parse


def _refuse_leaf(item: Any, source: str, strings: bool) -> None:
    if isinstance(item, str):
        if strings and _LONE_SURROGATE.search(item):
            raise _refuse(source, "a string holds a lone surrogate (a \\ud800-\\udfff escape without its pair), "
                                  "which is not text")
    elif isinstance(item, float) and not math.isfinite(item):
        raise _refuse(source, f"{item} is not a JSON number")


def check_value(value: Any, source: str = "input", max_depth: int = MAX_DEPTH, strings: bool = True,
                leaves: bool = True) -> None:
    """Refuse a parsed value nested deeper than `max_depth`, or holding a lone surrogate (in a string or a key; not
    looked for when `strings` is false) or a number that is not finite (neither is looked for when `leaves` is
    false: `parse_json` has seen to the numbers, and to the strings when no surrogate escape is in the text).

    Walks level by level, without recursion, so a value of any depth is measured safely, and quickly.
    """
    level, depth = [value], 0
    while level:
        depth += 1
        if leaves:
            for item in level:
                if isinstance(item, dict):
                    for key in item:
                        _refuse_leaf(key, source, strings)
                elif not isinstance(item, list):
                    _refuse_leaf(item, source, strings)
        containers = [item for item in level if isinstance(item, dict | list)]
        if containers and depth > max_depth:
            raise _refuse(source, f"nested more than {max_depth} deep")
        level = []
        for item in containers:
            children = item.values() if isinstance(item, dict) else item
            level += children if leaves else [child for child in children if isinstance(child, dict | list)]


def parse_json(text: str | bytes, source: str = "input", expect: type | None = None,
               max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Parse untrusted JSON text within the limits, or raise UntrustedInputError naming `source`.

    `expect` (dict, list or str) is the type the top-level value must have.
    """
    if len(text) > max_bytes:
        raise _refuse(source, f"{len(text):,} bytes, more than the {max_bytes:,} read")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")  # a byte-order mark is harmless; JSON is UTF-8
        except UnicodeDecodeError as exc:
            raise _refuse(source, f"not JSON (not UTF-8 text: byte {exc.start} cannot be read)") from None
    try:
        value = json.loads(text, parse_int=_number_parser(int, source), parse_float=_number_parser(float, source),
                           parse_constant=_refuse_constant(source))
    except UntrustedInputError:
        raise
    except RecursionError:
        raise _refuse(source, f"nested more than {MAX_DEPTH} deep") from None
    except json.JSONDecodeError as exc:
        raise _refuse(source, f"not JSON ({exc})") from None
    except (ValueError, OverflowError, MemoryError) as exc:  # what else a literal can raise on its way in
        raise _refuse(source, f"not JSON that can be read ({type(exc).__name__})") from None
    # Text decoded from UTF-8 holds a lone surrogate only where a \ud800-\udfff escape wrote one: without such an
    # escape, the strings need no second look (a long conversation is read several times faster).
    surrogate_escape = _SURROGATE_ESCAPE.search(text) is not None
    check_value(value, source, strings=surrogate_escape, leaves=surrogate_escape)
    if expect is not None and not isinstance(value, expect):
        raise _refuse(source, f"{_TYPE_WORDS.get(expect, expect.__name__)} is expected, not "
                              f"{_TYPE_WORDS.get(type(value), 'a ' + type(value).__name__)}")
    return value


def read_limited(stream: BinaryIO, source: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """At most `max_bytes` from a binary stream; more than that is refused, not read."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _refuse(source, f"more than the {max_bytes:,} bytes read")
    return data


def read_file(path: str | Path, source: str | None = None, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; a FIFO, a device or a directory is refused unread."""
    source = source if source is not None else str(path)
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _refuse(source, f"cannot read it ({exc.strerror or exc})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = ("a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "a socket"
                if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise _refuse(source, f"{kind}, not a regular file: only files are read")
    with os.fdopen(fd, "rb") as file:
        if info.st_size > max_bytes:
            raise _refuse(source, f"{info.st_size:,} bytes, more than the {max_bytes:,} read")
        try:
            return read_limited(file, source, max_bytes)
        except OSError as exc:
            raise _refuse(source, f"cannot read it ({exc.strerror or exc})") from None


def load_json_file(path: str | Path, source: str | None = None, expect: type | None = None,
                   max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Read and parse a JSON file within the limits."""
    source = source if source is not None else str(path)
    return parse_json(read_file(path, source, max_bytes), source, expect, max_bytes)
