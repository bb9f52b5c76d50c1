"""Other readings of a source that matched nowhere, each with the target read the same way.

Tried only after every level missed, in order, and each must then match by itself: tabs shown
as `^I` (`cat -A`), invisible characters the file does not hold (zero-width spaces and joiners,
a word joiner), another Unicode normal form than the file's (a decomposed accent), and runs of
spaces inside lines collapsed or widened (alignment): the file block whose lines differ from the
source's only in the width of such runs, when there is exactly one. A target line restating a
source line of that last reading takes the file's line, alignment included.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

_INVISIBLE = "\u200b\u200c\u200d\u2060"
_INNER_SPACES = re.compile(r"(?<=\S)[ \t]+(?=\S)")
_MAX_ALIGNED = 2  # more candidates than this and the reading is not unique anyway
_PIECES = 2  # pieces of the source looked up in the file before the pattern is built


def readings(file: str, source: str, target: str) -> Iterator[tuple[str, str]]:
    """(source, target) readings of a source that matched nowhere, most certain first."""
    if "^I" in source and "^I" not in file:
        yield source.replace("^I", "\t"), target.replace("^I", "\t")
    invisible = [char for char in _INVISIBLE if char in source and char not in file]
    if invisible:
        yield _without(source, invisible), _without(target, invisible)
    for form in ("NFC", "NFD"):
        if not unicodedata.is_normalized(form, source):
            yield unicodedata.normalize(form, source), unicodedata.normalize(form, target)
    aligned = _aligned(file, source)
    if aligned is not None:
        yield aligned, _restated(source, aligned, target)


def _without(text: str, chars: list[str]) -> str:
    for char in chars:
        text = text.replace(char, "")
    return text


def _aligned(file: str, source: str) -> str | None:
    """The one file block that differs from `source` only in the width of the runs of spaces
    inside its lines (and in trailing whitespace), or None."""
    lines = source.strip("\n").split("\n")
    if not any(_INNER_SPACES.search(line.strip()) for line in lines):
        return None
    # The longest pieces between spaces, and those at the source's two ends, must all be in the
    # file: a cheap test that spares most misses the pattern (its compilation and its search).
    pieces = sorted({piece for line in lines for piece in line.split()}, key=len, reverse=True)
    ends = [*lines[0].split()[:1], *lines[-1].split()[-1:]]
    if not all(piece in file for piece in (*ends, *pieces[:_PIECES])):
        return None
    parts = []
    for n, line in enumerate(lines):
        # Indentation as typed: a block nested otherwise is no match (the levels said so). The
        # first line's is checked apart, so that the pattern starts with a literal word, which
        # the regex engine finds fast.
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        words = _INNER_SPACES.split(line.strip())
        lead = "" if n == 0 else re.escape(indent)
        parts.append(lead + r"[ \t]+".join(map(re.escape, words)) + r"[ \t]*")
    pattern = re.compile(r"\r?\n".join(parts) + "(?=\r?\n|$)")
    first = lines[0][: len(lines[0]) - len(lines[0].lstrip(" \t"))]
    found = []
    for match in pattern.finditer(file):
        start = match.start() - len(first)
        if file[start : match.start()] != first or (start > 0 and file[start - 1] != "\n"):
            continue
        found.append(file[start : match.end()])
        if len(found) >= _MAX_ALIGNED:
            return None
    return found[0] if found else None


def _restated(source: str, file_text: str, target: str) -> str:
    """`target` with each line that restates a source line (its text without surrounding
    whitespace) replaced by the file's line in its place."""
    by_text: dict[str, str] = {}
    for typed, found in zip(source.strip("\n").split("\n"), file_text.split("\n"), strict=False):
        by_text.setdefault(typed.strip(), found.rstrip("\r"))
    return "\n".join(by_text.get(line.strip(), line) if line.strip() else line
                     for line in target.split("\n"))
