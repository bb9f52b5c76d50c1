"""The matchers of `edit_file`'s levels: each finds every place a source text could mean.

They return all candidates (overlapping ones included); the driver in `apply` decides what
one, none or many mean. Offsets are in the text they were given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness9.tools.edit.indent import Pair, indent_of, same_structure


def find_all(text: str, needle: str) -> list[int]:
    """The start of every occurrence of `needle` in `text`, overlapping ones included."""
    found = []
    at = text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


@dataclass(frozen=True, slots=True)
class Trimmed:
    """`source_text` without its surrounding whitespace, and where it must sit on its lines."""

    text: str
    at_line_start: bool  # it began after indentation or a newline: match only after indentation
    at_line_end: bool  # it ended before a newline: match only before the end of a line
    at_word_end: bool  # it ended with spaces: match only before a space or the end of the text

    @classmethod
    def of(cls, source: str) -> Trimmed:
        """Trim `source` (LF line endings) and note which ends were anchored."""
        text = source.strip()
        lead = source[: len(source) - len(source.lstrip())]
        trail = source[len(source.rstrip()) :]
        return cls(text, bool(lead), "\n" in trail, bool(trail))


def find_trimmed(text: str, trimmed: Trimmed) -> list[int]:
    """The starts of `trimmed.text` in `text` that respect its line anchors."""
    size = len(trimmed.text)
    return [
        at
        for at in find_all(text, trimmed.text)
        if (not trimmed.at_line_start or _blank_before(text, at))
        and (not trimmed.at_line_end or _blank_after(text, at + size))
        and (not trimmed.at_word_end or at + size == len(text) or text[at + size].isspace())
    ]


def _blank_before(text: str, at: int) -> bool:
    return not text[text.rfind("\n", 0, at) + 1 : at].strip()


def _blank_after(text: str, at: int) -> bool:
    end = text.find("\n", at)
    return not text[at : len(text) if end == -1 else end].strip()


def source_lines(source: str) -> list[str]:
    """The lines of `source` (LF) without its leading and trailing blank lines."""
    lines = source.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def find_blocks(file_lines: Sequence[str], keys: Sequence[str], wanted: Sequence[str]) -> list[int]:
    """The first line of every block of file lines matching `wanted` line by line, each line
    compared without its surrounding whitespace and with the same relative indentation.

    `keys` are the file lines already stripped. Candidates come from the most distinctive wanted
    line, so a 20,000-line file costs one pass in C plus a slice comparison per candidate.
    """
    wanted_keys = [line.strip() for line in wanted]
    anchor = max(range(len(wanted_keys)), key=lambda i: len(wanted_keys[i]))
    anchor_key, size = wanted_keys[anchor], len(wanted_keys)
    starts = []
    for at in [i for i, key in enumerate(keys) if key == anchor_key]:
        start = at - anchor
        if start < 0 or keys[start : start + size] != wanted_keys:
            continue
        if fits_structure(wanted, file_lines[start : start + size]):
            starts.append(start)
    return starts


def fits_structure(wanted: Sequence[str], found: Sequence[str]) -> bool:
    """Whether `wanted` nests as the `found` file lines do, its first line maybe copied from
    its first non-blank character (see `loose_first`)."""
    return same_structure(pairs_of(wanted, found)) or loose_first(wanted, found)


def loose_first(wanted: Sequence[str], found: Sequence[str]) -> bool:
    """Whether the first wanted line is an indented file line copied without its indentation,
    and the other lines nest as the file's only without it: that line's indentation was not
    typed (the file's counts), so it cannot tell the block's structure."""
    if indent_of(wanted[0]) or not indent_of(found[0]):
        return False
    if same_structure(pairs_of(wanted, found)):
        return False
    rest = pairs_of(wanted[1:], found[1:])
    return bool(rest) and same_structure(rest)


def find_blocks_across_blanks(
    file_lines: Sequence[str], keys: Sequence[str], wanted: Sequence[str]
) -> list[tuple[int, ...]]:
    """As `find_blocks`, with blank lines ignored on both sides: for every match, the file line
    of each non-blank wanted line."""
    filled = [i for i, key in enumerate(keys) if key]
    lines = [file_lines[i] for i in filled]
    wanted = [line for line in wanted if line.strip()]
    starts = find_blocks(lines, [keys[i] for i in filled], wanted)
    return [tuple(filled[start : start + len(wanted)]) for start in starts]


def splits_crlf(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` begins or ends between the CR and the LF of a CRLF."""
    return (0 < start < len(text) and text[start - 1] == "\r" and text[start] == "\n") or (
        0 < end < len(text) and text[end - 1] == "\r" and text[end] == "\n"
    )


def pairs_of(model: Sequence[str], found: Sequence[str]) -> list[Pair]:
    """The (model, file) indentation of each pair of non-blank lines."""
    return [(indent_of(m), indent_of(f)) for m, f in zip(model, found, strict=True) if m.strip()]
