"""Text views for `edit_file`: line endings, offsets between views, unicode punctuation folding.

Matching from level 2 on runs on a *view* of the file: the content with CRLF turned into LF
(and, at level 5, typographic punctuation folded to ASCII). A view keeps enough to map its
offsets back to the original text, so an edit replaces exactly the matched bytes and every
other byte of the file stays as it was.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

# One character for one character, so folded text keeps the offsets of the text it came from.
_FOLDS = (
    *((c, "'") for c in "\u2018\u2019\u201a\u201b\u2032"),
    *((c, '"') for c in "\u201c\u201d\u201e\u201f\u2033"),
    *((c, "-") for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"),
    *((c, " ") for c in "\u00a0\u2002\u2003\u2007\u2009\u200a\u202f"),
)
ASCII_FORMS = "'\"- "  # what the folded characters become


def to_lf(text: str) -> str:
    """`text` with every CRLF turned into LF (lone CRs stay)."""
    return text.replace("\r\n", "\n")


def fold(text: str) -> str:
    """`text` with curly quotes, dashes and non-breaking spaces turned into their ASCII forms."""
    # One `replace` per character present: much faster than `str.translate` on a large file.
    for char, ascii_form in _FOLDS:
        if char in text:
            text = text.replace(char, ascii_form)
    return text


@dataclass(frozen=True, slots=True)
class LfView:
    """The LF form of a text and where its CRLF-born newlines are, to map offsets back."""

    text: str
    crlf_at: list[int]  # offsets in `text` of newlines that were CRLF in the original

    @classmethod
    def of(cls, original: str) -> LfView:
        """Build the view; cheap when the text has no CRLF."""
        if "\r\n" not in original:
            return cls(original, [])
        parts = original.split("\r\n")
        # Iterators only, so a file with 20,000 CRLF lines costs a few C-level passes.
        ends = accumulate(map((1).__add__, map(len, parts[:-1])))
        return cls("\n".join(parts), list(map((-1).__add__, ends)))

    def original_offset(self, offset: int) -> int:
        """The offset in the original text of `offset` in the view (before a CRLF's CR)."""
        return offset + bisect_left(self.crlf_at, offset)


def line_ending_at(text: str, start: int, end: int) -> str:
    """The line ending to use for new lines replacing `text[start:end]`.

    The endings inside the span win (the more frequent one); a span without a newline takes the
    ending of its own line, or of the line before it; a one-line text uses LF.
    """
    span = text[start:end]
    newlines = span.count("\n")
    if newlines:
        crlf = span.count("\r\n")
        return "\r\n" if crlf * 2 >= newlines else "\n"
    for newline in (text.find("\n", end), text.rfind("\n", 0, start)):
        if newline != -1:
            return "\r\n" if newline > 0 and text[newline - 1] == "\r" else "\n"
    return "\n"


def with_line_ending(text: str, ending: str) -> str:
    """`text` (any line endings) with every line ending turned into `ending`."""
    text = to_lf(text)
    return text if ending == "\n" else text.replace("\n", ending)


def line_numbers(text: str, offsets: list[int]) -> list[int]:
    """The 1-based line numbers of ascending `offsets` in `text`, in one pass over it."""
    numbers, line, previous = [], 1, 0
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        numbers.append(line)
    return numbers


def line_number(text: str, offset: int) -> int:
    """The 1-based line number of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1
