"""The smallest edits that turn a document's text into a new one, as LSP `TextEdit`s.

An edit sent to the editor replaces only the spans that changed, so the user's cursor, marks
and folds elsewhere in the buffer survive. Unchanged lines are found with `difflib` on the
lines between the common head and tail of the two texts (bounded: lines that repeat too much to
compare quickly make one block); each changed block is then trimmed to
the characters that differ. An edit never starts or ends between the CR and the LF of a CRLF
(a position there has no meaning in LSP). Positions count in the client's position encoding
(UTF-16 code units unless both sides agreed on another). Text added at the very end of a text
that ends with a line break is sent as replacing that last break: the end's position, the line
after the last one, is one Neovim reads as "append these lines", which would add an empty line.
"""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

from harness9.tools.edit.diff import BoundedMatcher, TooCostly, common_head, common_tail
from harness9.workspace.positions import (
    Replacement,
    apply_replacements,
    column_of,
    line_starts,
    offset_at,
    unit_counter,
    units,
)

__all__ = ["Replacement", "apply_replacements", "column_of", "minimal_edits", "offset_at",
           "text_edits", "units"]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def minimal_edits(old: str, new: str) -> list[Replacement]:
    """Non-overlapping replacements, in order, that turn `old` into `new` (none if equal)."""
    if old == new:
        return []
    head = common_head(old, new)
    tail = common_tail(old, new, head)
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    old_lines, new_lines = _lines(old_mid), _lines(new_mid)
    if len(old_lines) < 2 or len(new_lines) < 2:
        return [_snap(old, new, Replacement(head, len(old) - tail, new_mid))]
    return [_snap(old, new, r) for r in _line_blocks(old_lines, new_lines, head)]


def text_edits(old: str, edits: list[Replacement], encoding: str | None) -> list[types.TextEdit]:
    """`edits` as LSP text edits on the document whose text is `old`."""
    starts = line_starts(old)
    count = unit_counter(encoding)

    def position(offset: int) -> types.Position:
        line = bisect.bisect_right(starts, offset) - 1
        return types.Position(line, count(old[starts[line] : offset]))

    anchored = [*edits[:-1], _anchored(old, edits[-1], edits[-2].end if len(edits) > 1 else 0)] \
        if edits else []
    return [
        types.TextEdit(types.Range(position(e.start), position(e.end)), e.text) for e in anchored
    ]


def _anchored(old: str, edit: Replacement, after: int) -> Replacement:
    """`edit`, when it adds text at the end of `old` and `old` ends with a line break, as the
    replacement of that break (no earlier edit, which ends at `after`, may reach into it)."""
    size = 2 if old.endswith("\r\n") else 1 if old.endswith(("\n", "\r")) else 0
    if size == 0 or edit.start != len(old) or after > len(old) - size:
        return edit
    return Replacement(len(old) - size, len(old), old[-size:] + edit.text)


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _line_blocks(old_lines: list[str], new_lines: list[str], base: int) -> list[Replacement]:
    """One replacement per changed block of lines, trimmed to the characters that differ."""
    old_at = _offsets(old_lines, base)
    new_at = _offsets(new_lines, 0)
    new_mid = "".join(new_lines)
    try:
        opcodes = BoundedMatcher(old_lines, new_lines, autojunk=False).get_opcodes()
    except TooCostly:  # lines that repeat too much to compare quickly: one block for all
        opcodes = [("replace", 0, len(old_lines), 0, len(new_lines))]
    blocks = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        before = "".join(old_lines[i1:i2])
        after = new_mid[new_at[j1] : new_at[j2]]
        head = common_head(before, after)
        tail = common_tail(before, after, head)
        start, end = old_at[i1] + head, old_at[i2] - tail
        blocks.append(Replacement(start, end, after[head : len(after) - tail]))
    return blocks


def _offsets(lines: list[str], base: int) -> list[int]:
    """The offset of each line's start, and of the end."""
    offsets = [base]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def _snap(old: str, new: str, edit: Replacement) -> Replacement:
    """Widen `edit` so it neither starts nor ends inside a CRLF of `old`. The characters it
    takes in are common to both texts, so the replacement text takes them in too."""
    start, end, text = edit.start, edit.end, edit.text
    if start > 0 and old[start - 1 : start + 1] == "\r\n":
        start, text = start - 1, "\r" + text
    if end > 0 and old[end - 1 : end + 1] == "\r\n":
        end, text = end + 1, text + "\n"
    return Replacement(start, end, text)
