"""The "did you mean" part of `edit_file`'s not-found error: the file lines closest to the source.

Only lines sharing a distinctive word with the source are compared (each comparison is a
`difflib` ratio), so a miss on a 20,000-line file stays in the tens of milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

_WORD = re.compile(r"\w{3,}")
MAX_SHOWN = 8  # lines of the file quoted in the hint
_MAX_COMPARED = 200  # file lines compared per source line
_MIN_RATIO = 0.5


def closest_block(file_lines: Sequence[str], wanted: Sequence[str]) -> tuple[int, int] | None:
    """(first line index, line count) of the file block most like `wanted`, if one is close."""
    keys = [line.strip() for line in file_lines]
    best_ratio, best_line, best_offset = _MIN_RATIO, -1, 0
    for offset, line in enumerate(wanted[:MAX_SHOWN]):
        key = line.strip()
        matcher = SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)  # the expensive side is analysed once per source line
        for index in _candidates(keys, key):
            matcher.set_seq1(keys[index])
            if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
                continue
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best_ratio, best_line, best_offset = ratio, index, offset
    if best_line < 0:
        return None
    start = max(0, best_line - best_offset)
    return start, min(len(wanted), MAX_SHOWN, len(file_lines) - start)


def _candidates(keys: Sequence[str], key: str) -> list[int]:
    """Indexes of the file lines sharing `key`'s rarest word (up to `_MAX_COMPARED`)."""
    words = sorted(set(_WORD.findall(key)), key=len, reverse=True)[:4]
    best: list[int] = []
    for word in words:
        found = [i for i, line in enumerate(keys) if word in line]
        if found and (not best or len(found) < len(best)):
            best = found
    return best[:_MAX_COMPARED]


def quote(file_lines: Sequence[str], start: int, count: int, first_number: int = 1) -> str:
    """`count` lines from index `start`, each after its line number (`file_lines[0]` being
    line `first_number`)."""
    shift = first_number - 1
    last = start + count
    digits = len(str(last + shift))
    return "\n".join(
        f"{index + 1 + shift:>{digits}}| {file_lines[index]}" for index in range(start, last)
    )
