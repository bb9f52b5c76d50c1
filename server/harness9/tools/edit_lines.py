"""The replacement text of a trimmed (level 3) or line-by-line (level 4) match.

A trimmed match takes `target_text` trimmed the same way; a line match takes it without leading
blank lines and trailing whitespace; both re-indent it when the model's indentation differs from
the file's, so an edit never doubles indentation or adds blank lines. An empty target at a match
covering whole lines deletes those lines, newline included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness9.tools import edit_errors as errors
from harness9.tools.edit_indent import (
    Mapping,
    Pair,
    choose_mapping,
    file_context,
    indent_of,
    is_identity,
    reindent,
    width,
)
from harness9.tools.edit_match import Trimmed, pairs_of
from harness9.tools.edit_text import line_number

_CONTEXT_LINES = 200  # file lines on each side read for the file's indentation style
_CONTEXT_CHARS = 8000


@dataclass(frozen=True, slots=True)
class Span:
    """A unique match in a view of the file and what replaces it (LF line endings)."""

    start: int
    end: int
    replacement: str
    reindented: bool = False


def replace_trimmed(
    text: str, start: int, trimmed: Trimmed, source: str, target: str, level: int
) -> Span:
    """The span of a trimmed match at `start` and its replacement."""
    end = start + len(trimmed.text)
    new = target.strip()
    if not new:
        whole = trimmed.at_line_start and trimmed.at_line_end
        return _delete_lines(text, start, end) if whole else Span(start, end, "")
    first, *rest = new.split("\n")
    # A one-line source tells how the model's indentation relates to the file's; with more lines
    # the inner lines matched exactly, so the target's inner lines are already right.
    if not (trimmed.at_line_start and rest and "\n" not in trimmed.text):
        return Span(start, end, new)
    lead = source[: len(source) - len(source.lstrip())]
    pairs = [(lead.rsplit("\n", 1)[-1], text[text.rfind("\n", 0, start) + 1 : start])]
    if is_identity(pairs):
        return Span(start, end, new)
    window = text[max(0, start - _CONTEXT_CHARS) : end + _CONTEXT_CHARS].split("\n")
    # The first target line keeps the file's indentation, but its own tells the model's unit.
    first_indent = target[: len(target) - len(target.lstrip())].rsplit("\n", 1)[-1]
    line = line_number(text, start)
    mapping = _mapping(pairs, [first_indent + first, *rest], window, level, line)
    return Span(start, end, "\n".join([first, *reindent(rest, mapping)]), reindented=True)


def replace_block(
    file_lines: Sequence[str], first: int, wanted: Sequence[str], target: str, level: int
) -> Span:
    """The span of the file lines `first`… matched by `wanted` and its replacement."""
    last = first + len(wanted)
    start = len("\n".join(file_lines[:first])) + (1 if first else 0)
    end = start + len("\n".join(file_lines[first:last]))
    new = target_lines(target)
    if not new:
        if last < len(file_lines):
            return Span(start, end + 1, "")
        return Span(max(0, start - 1), end, "")
    pairs = pairs_of(wanted, file_lines[first:last])
    if is_identity(pairs):
        return Span(start, end, "\n".join(new))
    window = file_lines[max(0, first - _CONTEXT_LINES) : last + _CONTEXT_LINES]
    mapping = _mapping(pairs, new, window, level, first + 1)
    return Span(start, end, "\n".join(reindent(new, mapping)), reindented=True)


def target_lines(target: str) -> list[str]:
    """`target` without trailing whitespace and leading blank lines, as lines."""
    lines = target.rstrip().split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _mapping(
    pairs: Sequence[Pair], lines: Sequence[str], window: Sequence[str], level: int, line: int
) -> Mapping:
    indents = [indent_of(text) for text in lines if text.strip()]
    mapping = choose_mapping(pairs, indents, file_context(window))
    if mapping is None:
        raise errors.indentation(level, line, _describe(pairs, indents))
    return mapping


def _describe(pairs: Sequence[Pair], indents: Sequence[str]) -> str:
    def columns(values: Sequence[str]) -> str:
        return ", ".join(str(n) for n in sorted({width(v) for v in values}))

    return (
        f"source_text's indentation (columns {columns([m for m, _ in pairs])}) is the file's "
        f"(columns {columns([f for _, f in pairs])}), which leaves no place for target_text's "
        f"(columns {columns(indents)})"
    )


def _delete_lines(text: str, start: int, end: int) -> Span:
    """The whole lines around `start`..`end`, with one newline, to be removed."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end != -1:
        return Span(line_start, line_end + 1, "")
    return Span(max(0, line_start - 1), len(text), "")
