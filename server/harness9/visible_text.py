"""Text put before a person who decides on it: nothing in it may hide what follows.

A carriage return sends the cursor back over what was written, an escape sequence erases or
recolours it, a form feed, a file separator or U+2028 ends a line where `str.splitlines`
cuts, a bidirectional override reorders it. `visible` shows every such character escaped
(`\\r`, `\\x1b`, `\\u2028`), the way Python writes it, and marks a cut with `…`. Every front-end
shows approval titles, commands and diffs through it.
"""

from __future__ import annotations

CUT = "…"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def visible(text: str, limit: int | None = None, *, lines: bool = False) -> str:
    """`text` with every control, format, separator and unassigned character escaped (the
    space stays); with `lines`, newlines and tabs stay too, for text shown as lines. When it
    would be longer than `limit` characters it is cut (never inside an escape) and ends in
    `…`."""
    if text.isprintable() and (limit is None or len(text) <= limit):
        return text  # the common case: nothing to escape or cut
    pieces = [char if char.isprintable() or (lines and char in "\n\t") else _escaped(char)
              for char in text]
    if limit is None or sum(map(len, pieces)) <= limit:
        return "".join(pieces)
    kept: list[str] = []
    size = 0
    for piece in pieces:
        if size + len(piece) > limit - len(CUT):
            break
        kept.append(piece)
        size += len(piece)
    return "".join(kept) + CUT


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
