"""Unified diffs of what a file tool changes: for the user to approve before, and in the
`tool_completed` report after.

Bounded whatever the texts: a diff is cut (64 KiB to approve, 400 lines in a report) and its
lines are made one at a time, never all at once; a new file's lines are not compared at all; and
a change whose differing middle is too large to compare quickly (difflib's time grows with the
product of the two sides' lines, worse when lines repeat) is reported by its sizes instead.
Blocking: the tools call these off the event loop.
"""

from __future__ import annotations

import difflib
import itertools
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from harness9.schema import FileEdit

MAX_DIFF_CHARS = 64 * 1024
MAX_REPORT_LINES = 400
# Texts longer than this (in characters, both sides together) are not diffed line by line:
# difflib's time grows faster than their size.
_DIFFED_CHARS = 8 << 20
# Lines that repeat make difflib slow (quadratic or worse in them): a comparison whose pairs of
# equal lines, before × after, pass this budget is not tried, and one that still runs longer
# than `DIFF_SECONDS` is given up.
PAIR_BUDGET = 2_000_000
DIFF_SECONDS = 1.0
_CONTEXT = 3  # unchanged lines shown around each change


class TooCostly(Exception):
    """Two texts whose differing middle is too large to compare quickly."""


def unified_diff(path: str, before: str | None, after: str) -> str:
    """The change from `before` (None: the file is new) to `after`, as `diff -u` shows it,
    cut at 64 KiB with a note."""
    shown: list[str] = []
    size = more = 0
    lines = _diff_lines(path, before, after)
    try:
        for line in lines:
            if size + len(line) > MAX_DIFF_CHARS:
                more = len(line)
                break
            shown.append(line)
            size += len(line)
        if more and before is None:  # a new file's size is known without making its lines
            more = _new_file_size(path, after) - size
        else:
            more += sum(len(line) for line in lines)
    except TooCostly:
        return _header(path, before is None) + _sizes(before, after)
    if more:
        shown.append(f"[diff cut: {more} more characters]\n")
    return "".join(shown)


def file_edit(path: str, before: str | None, after: str, via: str) -> FileEdit:
    """The report of a change from `before` (None: a new file) to `after`: the unified diff,
    at most 400 lines (then `diff_truncated`), and the lines added and removed in all."""
    if before is not None and len(before) + len(after) > _DIFFED_CHARS:
        return _unmeasured(path, before, after, via)
    if before is None:  # every line is added: count them, make only those shown
        shown = list(itertools.islice(_diff_lines(path, None, after), MAX_REPORT_LINES + 1))
        return FileEdit(path, "".join(shown[:MAX_REPORT_LINES]), _count_lines(after), 0, via,
                        len(shown) > MAX_REPORT_LINES)
    shown = []
    added = removed = total = 0
    try:
        for total, line in enumerate(_diff_lines(path, before, after), 1):
            if total > 2:  # after the `---` and `+++` header
                added += line.startswith("+")
                removed += line.startswith("-")
            if total <= MAX_REPORT_LINES:
                shown.append(line)
    except TooCostly:
        return _unmeasured(path, before, after, via)
    return FileEdit(path, "".join(shown), added, removed, via, total > MAX_REPORT_LINES)


def _unmeasured(path: str, before: str | None, after: str, via: str) -> FileEdit:
    """The report of a change too large to compare: the sizes, every line counted as changed."""
    old, new = _count_lines(before), _count_lines(after)
    return FileEdit(path, _sizes(before, after), new, old, via, diff_truncated=True)


def _sizes(before: str | None, after: str) -> str:
    return (f"(not diffed: {_count_lines(before)} lines before, {_count_lines(after)} after, "
            "too large to compare)\n")


def _count_lines(text: str | None) -> int:
    if not text:
        return 0
    return text.count("\n") + (not text.endswith("\n"))


def _header(path: str, new_file: bool) -> str:
    return f"--- {'/dev/null' if new_file else f'a/{path}'}\n+++ b/{path}\n"


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def _diff_lines(path: str, before: str | None, after: str) -> Iterator[str]:
    """The diff's lines, one at a time, each ending in a newline (a last line without one is
    marked); `TooCostly` before the first when the texts' differing middle is too large."""
    if before is None:
        lines: Iterable[str] = _new_file(path, after)
    else:
        old, new = _lines(before), _lines(after)
        # difflib compares every line; the unchanged head and tail (beyond the context shown)
        # need no comparing, and on a long file they are nearly all of it.
        skip = max(0, common_head(old, new) - _CONTEXT)
        keep = max(0, common_tail(old, new, skip) - _CONTEXT)
        old, new = old[skip : len(old) - keep], new[skip : len(new) - keep]
        lines = _unified(old, new, path, skip)
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n"
            yield "\\ No newline at end of file\n"


def _new_file_size(path: str, after: str) -> int:
    """The characters of a new file's whole diff (see `_new_file`)."""
    count = _count_lines(after)
    if not count:
        return 0
    hunk = len(f"@@ -0,0 +{'1' if count == 1 else f'1,{count}'} @@\n")
    unended = 0 if after.endswith("\n") else 1 + len("\\ No newline at end of file\n")
    return len(_header(path, True)) + hunk + count + len(after) + unended


def _new_file(path: str, after: str) -> Iterator[str]:
    """A new file's diff, as difflib makes it, without comparing (or copying) all its lines."""
    count = _count_lines(after)
    if not count:
        return
    yield from _header(path, True).splitlines(keepends=True)
    yield f"@@ -0,0 +{'1' if count == 1 else f'1,{count}'} @@\n"
    start = 0
    while start < len(after):
        end = after.find("\n", start)
        end = len(after) if end < 0 else end + 1
        yield "+" + after[start:end]
        start = end


def _unified(old: list[str], new: list[str], path: str, skip: int) -> Iterator[str]:
    """`diff -u` of two line lists whose first `skip` lines were left out (the hunk headers
    count them); `TooCostly` when comparing them would take too long."""
    matcher = BoundedMatcher(old, new)
    for n, group in enumerate(matcher.get_grouped_opcodes(_CONTEXT)):
        if n == 0:
            yield from _header(path, False).splitlines(keepends=True)
        first, last = group[0], group[-1]
        yield (f"@@ -{_range(first[1] + skip, last[2] + skip)} "
               f"+{_range(first[3] + skip, last[4] + skip)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in old[i1:i2])
                continue
            yield from ("-" + line for line in old[i1:i2])
            yield from ("+" + line for line in new[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's line range as `diff -u` writes it (1-based; a count of 1 is left out)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


class BoundedMatcher(difflib.SequenceMatcher[str]):
    """difflib's matcher of two line lists, refusing work past `PAIR_BUDGET` and
    `DIFF_SECONDS` with `TooCostly` (at construction, or from any method that compares)."""

    def __init__(self, old: list[str], new: list[str], *, autojunk: bool = True) -> None:
        counts = Counter(new)
        if sum(counts[line] for line in old) > PAIR_BUDGET:
            raise TooCostly
        self._deadline = time.monotonic() + DIFF_SECONDS
        super().__init__(None, old, new, autojunk)

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        """difflib's search for the longest block, once per block it splits; given up late."""
        if time.monotonic() > self._deadline:
            raise TooCostly
        return super().find_longest_match(alo, ahi, blo, bhi)


def common_head(old: Sequence[str], new: Sequence[str]) -> int:
    """How many first items (lines, or a text's characters) the two share, found by halving:
    slices compare in C, so a long file costs a few passes rather than a loop over it."""
    low, high = 0, min(len(old), len(new))
    while low < high:
        mid = (low + high + 1) // 2
        if old[low:mid] == new[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def common_tail(old: Sequence[str], new: Sequence[str], head: int) -> int:
    """How many last items (lines, or characters) the two share, not counting the first
    `head`; by halving, as `common_head`."""
    low, high = 0, min(len(old), len(new)) - head
    while low < high:
        mid = (low + high + 1) // 2
        if old[len(old) - mid : len(old) - low] == new[len(new) - mid : len(new) - low]:
            low = mid
        else:
            high = mid - 1
    return low
