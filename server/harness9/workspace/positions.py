"""Places in a text as LSP counts them: a 0-based line and a count of position units into it
(UTF-16 code units unless both sides agreed on UTF-8 or UTF-32), and replacements of spans of
a text. The editor's documents and the language servers the daemon runs both use them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Replacement:
    """Replace `old[start:end]` (code point offsets into the old text) with `text`."""

    start: int
    end: int
    text: str


def apply_replacements(old: str, edits: list[Replacement]) -> str:
    """`old` with `edits` applied (they refer to `old`'s offsets and must not overlap)."""
    parts, at = [], 0
    for edit in edits:
        parts += [old[at : edit.start], edit.text]
        at = edit.end
    parts.append(old[at:])
    return "".join(parts)


def unit_counter(encoding: str | None) -> Callable[[str], int]:
    """How many position units of `encoding` a text spans, as a function."""
    if encoding == "utf-8":
        return lambda s: len(s.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len
    return lambda s: len(s.encode("utf-16-le", "surrogatepass")) // 2


def units(text: str, encoding: str | None) -> int:
    """How many position units of `encoding` the text spans (UTF-16 code units by default)."""
    return unit_counter(encoding)(text)


def column_of(line: str, count: int, encoding: str | None) -> int:
    """The character index in `line` that `count` units of `encoding` reach (clamped)."""
    measure = unit_counter(encoding)
    spent = 0
    for index, character in enumerate(line):
        if spent >= count:
            return index
        spent += measure(character)
    return len(line)


def line_starts(text: str) -> list[int]:
    """The offset of each line's start (a line ends at CRLF, CR or LF)."""
    return [0] + [m.end() for m in BREAK.finditer(text)]


def offset_at(text: str, line: int, count: int, encoding: str | None) -> int:
    """The offset in `text` of an LSP position (0-based `line`, `count` units into it)."""
    starts = line_starts(text)
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    body = text[start:end].rstrip("\r\n")
    return start + column_of(body, count, encoding)
