"""A source that leaves out the closing line its target restates.

A model often copies a block up to its last statement and then types the whole block in the
target, closing brace included: `if (a) {\\n    b();` becomes `if (a) {\\n    b();\\n}`. Written
as sent, the file's own `}` on the next line stays and the block is closed twice. When the
target closes brackets the source leaves open, and the file's next non-blank line is made of
just such closers and is restated in the target, the source is read with that line (indented
as the source indents the line of the file at that depth), so the target replaces it. When no
line of the source tells how it would indent the closing line, the edit is refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.indent import indent_of, width
from harness9.tools.edit.replacement import Match
from harness9.tools.edit.text_views import line_number, to_lf

_CLOSER = re.compile(r"[)\]}]+[;,]?")
_BRACKETS = str.maketrans("", "", "".join(chr(c) for c in range(128) if chr(c) not in "()[]{}"))


def balance(text: str) -> int:
    """Brackets opened minus brackets closed in `text`."""
    kept = text.translate(_BRACKETS)
    return sum(1 if char in "([{" else -1 for char in kept)


def with_closing(text: str, match: Match, target: str) -> str | None:
    """The source of `match` (in `text`, LF) read with the closing line the file has after it
    and the target restates, or None when the source needs none."""
    model = match.source or match.model
    target = to_lf(target)
    opened = balance(model)
    missing = opened - balance(target)
    if opened <= 0 or missing <= 0:
        return None  # the source leaves nothing open, or the target closes no more of it
    end = match.end - 1 if match.model.endswith("\n") else match.end
    if end < len(text) and text[end] != "\n":
        return None  # the source ends inside a line
    after = text[end + 1 :].split("\n") if end < len(text) else []
    gap = next((n for n, line in enumerate(after) if line.strip()), None)
    if gap is None:
        return None
    close = after[gap]
    typed = [line.strip() for line in target.split("\n")]
    copied = [line.strip() for line in model.split("\n")]
    # The target has the closing line once more than the source: the one the source left out.
    if not _CLOSER.fullmatch(close.strip()) or balance(close) != -missing or (
        typed.count(close.strip()) <= copied.count(close.strip())
    ):
        return None
    indent = _indent_for(text, match, close)
    if indent is None:
        raise errors.unclosed(match.level, line_number(text, end + 1) + gap + 1, close.strip())
    blank = "\n" * (gap + 1) if match.rows is not None else "\n" + "".join(
        line + "\n" for line in after[:gap]
    )
    return model.rstrip("\n") + blank + indent + close.lstrip(" \t")


def _indent_for(text: str, match: Match, close: str) -> str | None:
    """How the source would indent the file line `close`: as it indents the last file line at
    the same columns (a block's closer sits where its opener does). An exact match's source is
    in the file's frame."""
    if match.rows is None:
        return indent_of(close)
    first = text.rfind("\n", 0, match.start) + 1
    last = max((row for row in match.rows if row is not None), default=0)
    file_lines = text[first:].split("\n", last + 1)
    return _same_depth(match.model.split("\n"), match.rows, file_lines, close,
                       skip_first=match.loose)


def _same_depth(
    typed: Sequence[str],
    rows: Sequence[int | None],
    file_lines: Sequence[str],
    close: str,
    *,
    skip_first: bool,
) -> str | None:
    """The typed indentation of the last source line whose file line is as deep as `close`."""
    columns = width(indent_of(close))
    for i in range(len(typed) - 1, -1, -1):
        row = rows[i]
        if row is None or not typed[i].strip() or (skip_first and i == 0):
            continue
        if width(indent_of(file_lines[row])) == columns:
            return indent_of(typed[i])
    return None
