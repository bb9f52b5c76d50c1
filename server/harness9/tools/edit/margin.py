"""A near match must be unique by a margin: the check that refuses a near match with a rival.

A source whose match differs from the file's lines only in trailing whitespace may be a stale
copy of a block the file has since changed, steered onto a look-alike block that differs from it
in nothing else. When another block of the file, indented as typed, differs from the source in
the text of a single line, and only slightly, the two readings are too close to tell apart: the
edit is refused, the rival named.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.match import source_lines

_SIMILAR = 0.6  # a changed line at least this like the source's reads as the same line edited
_MIN_LINES = 2  # one-line sources have look-alikes everywhere; their matches stand as they are


def refuse_near_rival(text: str, start: int, end: int, source: str, level: int) -> None:
    """Refuse the match `text[start:end]` of `source` (both LF) when its lines differ from the
    source's only in trailing whitespace and another block differs from the source in one
    slightly changed line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", max(start, end - 1))
    region = text[line_start : len(text) if line_end == -1 else line_end].split("\n")
    wanted = [line.rstrip() for line in source_lines(source) if line.strip()]
    found = [line.rstrip() for line in region if line.strip()]
    typed = [line for line in source_lines(source) if line.strip()]
    raw = [line for line in region if line.strip()]
    # Indentation and punctuation slips are common and read well; a trailing-whitespace
    # difference is what steers a stale source onto a look-alike.
    if found != wanted or raw == typed or len(wanted) < _MIN_LINES:
        return
    # A rival holds the first or the second line: when each occurs once (in the match), none.
    if text.count(wanted[0]) < 2 and text.count(wanted[1]) < 2:
        return
    first = text.count("\n", 0, start)
    rival = _rival(text.split("\n"), wanted, first, len(region))
    if rival is not None:
        raise errors.near_rival(level, first + 1, rival + 1)


def _rival(lines: Sequence[str], wanted: Sequence[str], first: int, count: int) -> int | None:
    """The first line of a block outside lines `first`..`first + count` whose non-blank lines
    equal `wanted` (trailing whitespace aside) but for one similar line, if any."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    keys = [lines[i].rstrip() for i in filled]
    size = len(wanted)
    starts = {i for i, key in enumerate(keys) if key == wanted[0]}
    starts |= {i - 1 for i, key in enumerate(keys) if key == wanted[1] and i > 0}
    for at in sorted(starts):
        rows = filled[at : at + size]
        if len(rows) < size or (rows[0] < first + count and rows[-1] >= first):
            continue
        if _one_line_edited(keys[at : at + size], wanted):
            return rows[0]
    return None


def _one_line_edited(keys: Sequence[str], wanted: Sequence[str]) -> bool:
    differ = [(k, w) for k, w in zip(keys, wanted, strict=True) if k != w]
    if len(differ) != 1:
        return False
    key, want = differ[0]
    return SequenceMatcher(None, key, want, autojunk=False).ratio() >= _SIMILAR
