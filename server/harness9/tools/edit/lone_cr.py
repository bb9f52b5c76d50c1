"""Files whose lines end with a lone CR (classic Mac OS), alone or mixed with LF and CRLF.

Matching reads such a file with every lone CR as LF: one character for one, so offsets stay
the same. The edited view then differs from the file's view in one region only; the file's
bytes outside it are kept, and inside it the new text's line breaks take the ending the region
uses: CR where the lines it replaces end with CR, LF or CRLF where they end so. A region whose
lines end with lone CRs and lone LFs both gives no certain ending for new lines: refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.diff import common_head, common_tail

_LONE_CR = re.compile(r"\r(?!\n)")


def has_lone_cr(text: str) -> bool:
    """Whether `text` has a CR that is not part of a CRLF."""
    # Two counts in C, where a search would stop at every CR of a CRLF file.
    return "\r" in text and text.count("\r") != text.count("\r\n")


def as_lf(text: str) -> str:
    """`text` with every lone CR turned into LF (same length)."""
    return _LONE_CR.sub("\n", text)


def edit_through_lf(content: str, edit: Callable[[str], str]) -> str:
    """`edit` applied to `content` read with lone CRs as LF, written back in the file's
    endings (see the module docstring)."""
    view = as_lf(content)
    edited = edit(view)
    start = common_head(view, edited)
    tail = common_tail(view, edited, start)
    region = content[start : len(content) - tail]
    new = edited[start : len(edited) - tail]
    ending = _ending(content, start, len(content) - tail, region)
    if ending == "\r":
        new = re.sub(r"(?<!\r)\n", "\r", new)
    return content[:start] + new + content[len(content) - tail :]


def _ending(content: str, start: int, end: int, region: str) -> str:
    """The ending of the lines in `region` (`content[start:end]`), or of the line around it."""
    lone_cr = bool(_LONE_CR.search(region))
    lone_lf = bool(re.search(r"(?<!\r)\n", region))
    if lone_cr and lone_lf:
        raise errors.mixed_endings()
    if lone_cr or lone_lf or "\r\n" in region:
        return "\r" if lone_cr else "\n"
    match = re.compile(r"\r\n|\r|\n").search(content, end)
    if match is None:
        before = [m.group() for m in re.finditer(r"\r\n|\r|\n", content[:start])]
        return "\r" if before and before[-1] == "\r" else "\n"
    return "\r" if match.group() == "\r" else "\n"
