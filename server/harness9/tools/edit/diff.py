"""Unified diffs of what a file tool changes: for the user to approve before, and in the
`tool_completed` report after."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from harness9.schema import FileEdit

MAX_DIFF_CHARS = 64 * 1024
MAX_REPORT_LINES = 400
# Texts longer than this (in characters, both sides together) are not diffed line by line:
# difflib's time grows faster than their size.
_DIFFED_CHARS = 8 << 20
_CONTEXT = 3  # unchanged lines shown around each change
_HUNK = re.compile(r"([-+])(\d+)")  # a hunk header's start line numbers


def unified_diff(path: str, before: str | None, after: str) -> str:
    """The change from `before` (None: the file is new) to `after`, as `diff -u` shows it,
    cut at 64 KiB with a note."""
    text = "".join(_diff_lines(path, before is None, _lines(before), _lines(after)))
    if len(text) > MAX_DIFF_CHARS:
        cut = text.rfind("\n", 0, MAX_DIFF_CHARS) + 1
        text = text[:cut] + f"[diff cut: {len(text) - cut} more characters]\n"
    return text


def file_edit(path: str, before: str | None, after: str, via: str) -> FileEdit:
    """The report of a change from `before` (None: a new file) to `after`: the unified diff,
    at most 400 lines (then `diff_truncated`), and the lines added and removed in all."""
    old, new = _lines(before), _lines(after)
    if len(before or "") + len(after) > _DIFFED_CHARS:
        note = f"(not diffed: {len(old)} lines before, {len(new)} after, too large to compare)\n"
        return FileEdit(path, note, len(new), len(old), via, diff_truncated=True)
    lines = list(_diff_lines(path, before is None, old, new))
    body = lines[2:]  # after the `---` and `+++` header
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    shown = lines[:MAX_REPORT_LINES]
    return FileEdit(path, "".join(shown), added, removed, via, len(lines) > len(shown))


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def _diff_lines(path: str, new_file: bool, old: list[str], new: list[str]) -> Iterable[str]:
    """The diff's lines, each ending in a newline (a last line without one is marked)."""
    # difflib compares every line; the unchanged head and tail (beyond the context shown)
    # need no comparing, and on a long file they are nearly all of it.
    skip = max(0, _common_head(old, new) - _CONTEXT)
    keep = max(0, _common_tail(old, new, skip) - _CONTEXT)
    lines = difflib.unified_diff(
        old[skip : len(old) - keep], new[skip : len(new) - keep],
        "/dev/null" if new_file else f"a/{path}", f"b/{path}", n=_CONTEXT,
    )
    for line in lines:
        if skip and line.startswith("@@"):
            line = _HUNK.sub(lambda m: f"{m[1]}{int(m[2]) + skip}", line)
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n"
            yield "\\ No newline at end of file\n"


def _common_head(old: list[str], new: list[str]) -> int:
    """How many first lines the two lists share (found by halving: list slices compare in C)."""
    low, high = 0, min(len(old), len(new))
    while low < high:
        mid = (low + high + 1) // 2
        if old[low:mid] == new[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_tail(old: list[str], new: list[str], head: int) -> int:
    """How many last lines the two lists share, not counting the first `head`."""
    low, high = 0, min(len(old), len(new)) - head
    while low < high:
        mid = (low + high + 1) // 2
        if old[len(old) - mid : len(old) - low] == new[len(new) - mid : len(new) - low]:
            low = mid
        else:
            high = mid - 1
    return low
