"""A target typed in a frame of its own: every line it restates (or changes in place) sits the
same number of columns away from its source line, the source having drifted from the file.

Two readings fit such a target as well as each other: a frame of the model's own (moved back,
the lines keep their places), and the block re-indented by that many columns in the source's
frame (moving a block into a loop above it looks just so). The edit is refused, saying which.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness9.tools.edit.frame import Witness
from harness9.tools.edit.indent import indent_of, width


def two_readings(kept: Sequence[Witness]) -> str | None:
    """Why the target cannot be placed, when every one of `kept` (the lines it restates or
    changes in place) sits the same number of columns from its source line; else None."""
    offsets = {_columns(w.target) - _columns(w.source) for w in kept}
    if len(kept) < 2 or len(offsets) != 1 or 0 in offsets:
        return None
    offset = offsets.pop()
    return (f"every line of target_text sits {abs(offset)} columns "
            f"{'right' if offset > 0 else 'left'} of its source_text line: typed in a frame of "
            f"its own, or the block {'re-indented' if offset > 0 else 'dedented'} by "
            f"{abs(offset)} columns")


def _columns(line: str) -> int:
    return width(indent_of(line))
