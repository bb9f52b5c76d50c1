"""Unified diffs of what a file tool would change, for the user to approve."""

from __future__ import annotations

import difflib

MAX_DIFF_CHARS = 64 * 1024


def unified_diff(path: str, before: str | None, after: str) -> str:
    """The change from `before` (None: the file is new) to `after`, as `diff -u` shows it,
    cut at 64 KiB with a note."""
    old = [] if before is None else before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    lines = difflib.unified_diff(
        old, new, "/dev/null" if before is None else f"a/{path}", f"b/{path}"
    )
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    if len(text) > MAX_DIFF_CHARS:
        cut = text.rfind("\n", 0, MAX_DIFF_CHARS) + 1
        text = text[:cut] + f"[diff cut: {len(text) - cut} more characters]\n"
    return text
