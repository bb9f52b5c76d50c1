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
    Context,
    Mapping,
    Pair,
    choose_mapping,
    file_context,
    indent_of,
    is_identity,
    reindent,
    restyle,
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


def replace_exact(text: str, start: int, source: str, target: str) -> Span:
    """The span of an exact match at `start` and its replacement: `target` as given, except that
    when a one-line source began inside the file's indentation (so the model indented less than
    the file), the target's further lines are re-indented to match."""
    end = start + len(source)
    lead = _lead(source)
    before = text[text.rfind("\n", 0, start) + 1 : start]
    lines = target.split("\n")
    if "\n" in lead or "\n" in source.strip() or not lead or not before or before.strip():
        return Span(start, end, target)
    if len(lines) < 2:
        return Span(start, end, target)
    return _reindent_rest(text, (start, end), [(lead, before + lead)], lines[0], lines, 1)


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
    if not rest:
        return Span(start, end, new)
    # The first target line keeps the file's indentation, but its own tells the model's unit.
    model = [_lead(target).rsplit("\n", 1)[-1] + first, *rest]
    context = _context_around(text, start, end)
    pairs = _trimmed_pairs(text, start, trimmed, source)
    if is_identity(pairs):
        restyled = restyle(rest, context)
        return Span(start, end, "\n".join([first, *restyled]), reindented=restyled != rest)
    return _reindent_rest(text, (start, end), pairs, first, model, level)


def _trimmed_pairs(text: str, start: int, trimmed: Trimmed, source: str) -> list[Pair]:
    """What a trimmed match says about the model's indentation against the file's (nothing:
    the identity).

    Only a source that began at a line start has a first-line indentation. When it has more
    lines, those matched exactly: indented ones prove the model used the file's indentation (a
    different first line is a slip), unindented ones leave the first line as the only witness.
    """
    if not trimmed.at_line_start:
        return []
    pair = (_lead(source).rsplit("\n", 1)[-1], text[text.rfind("\n", 0, start) + 1 : start])
    inner = trimmed.text.split("\n")[1:]
    if not inner:
        return [pair]
    if all(pair) and not any(indent_of(line) for line in inner if line.strip()):
        return [pair, ("", "")]
    return []


def _reindent_rest(
    text: str,
    span: tuple[int, int],
    pairs: Sequence[Pair],
    first: str,
    model: Sequence[str],
    level: int,
) -> Span:
    """`first` as given, then the target's further lines re-indented by the mapping of `pairs`.

    `model` is every target line with the model's own indentation (it tells the model's unit).
    """
    start, end = span
    context = _context_around(text, start, end)
    mapping = _mapping(pairs, model, context, level, line_number(text, start))
    return Span(start, end, "\n".join([first, *reindent(model[1:], mapping)]), reindented=True)


def _context_around(text: str, start: int, end: int) -> Context:
    return file_context(text[max(0, start - _CONTEXT_CHARS) : end + _CONTEXT_CHARS].split("\n"))


def _lead(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


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
    context = file_context(file_lines[max(0, first - _CONTEXT_LINES) : last + _CONTEXT_LINES])
    if is_identity(pairs):
        restyled = restyle(new, context)
        return Span(start, end, "\n".join(restyled), reindented=restyled != new)
    mapping = _mapping(pairs, new, context, level, first + 1)
    return Span(start, end, "\n".join(reindent(new, mapping)), reindented=True)


def target_lines(target: str) -> list[str]:
    """`target` without trailing whitespace and leading blank lines, as lines."""
    lines = target.rstrip().split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _mapping(
    pairs: Sequence[Pair], lines: Sequence[str], context: Context, level: int, line: int
) -> Mapping:
    indents = [indent_of(text) for text in lines if text.strip()]
    mapping = choose_mapping(pairs, indents, context)
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
