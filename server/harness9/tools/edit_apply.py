"""`apply_edit`: replace the one place `source_text` means with `target_text`, or refuse.

The ladder, each level tried only when the ones before it found nothing:

1. exact text;
2. CRLF read as LF (the file keeps its line endings);
3. `source_text` trimmed of surrounding whitespace, anchored to line starts and ends when its
   trimmed ends were;
4. line by line, each line compared without its surrounding whitespace, with the same relative
   indentation; `target_text` is re-indented to the file's indentation;
5. as 2-4 with curly quotes, dashes and non-breaking spaces read as their ASCII forms.

Every level must find exactly one place (overlapping occurrences count); more than one stops the
ladder with an `ambiguous` refusal, never a looser level. The result is built by slicing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness9.tools import edit_errors as errors
from harness9.tools.edit_errors import LEVELS, EditError
from harness9.tools.edit_hint import closest_block, quote
from harness9.tools.edit_lines import Span, replace_block, replace_exact, replace_trimmed
from harness9.tools.edit_match import Trimmed, find_all, find_blocks, find_trimmed, source_lines
from harness9.tools.edit_text import (
    ASCII_FORMS,
    LfView,
    fold,
    line_ending_at,
    line_numbers,
    to_lf,
    with_line_ending,
)

BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class EditOutcome:
    """The edited content and how the match was found."""

    content: str
    level: int
    reindented: bool = False

    def note(self) -> str | None:
        """One line on a match that was not exact, for the tool's success text."""
        if self.level == 1 and not self.reindented:
            return None
        suffix = "; re-indented" if self.reindented else ""
        return f"(matched at level {self.level}: {LEVELS[self.level]}{suffix})"


def apply_edit(content: str, source_text: str, target_text: str) -> EditOutcome:
    """Replace the unique match of `source_text` in `content` with `target_text`.

    Raises `EditError` (kinds `empty_source`, `no_change`, `ambiguous`, `not_found`,
    `indentation`). A leading BOM is kept and never part of a match.
    """
    if not source_text.strip():
        raise errors.empty_source()
    if source_text == target_text:
        raise errors.no_change(0)
    bom = BOM if content.startswith(BOM) else ""
    body = content[len(bom) :]
    span, level, view = _locate(body, source_text, target_text)
    start, end = view.original_offset(span.start), view.original_offset(span.end)
    replacement = with_line_ending(span.replacement, line_ending_at(body, start, end))
    edited = body[:start] + replacement + body[end:]
    if edited == body:
        raise errors.no_change(level)
    return EditOutcome(bom + edited, level, span.reindented)


def _locate(body: str, source: str, target: str) -> tuple[Span, int, LfView]:
    exact = _unique(body, find_all(body, source), 1)
    if exact is not None:
        return replace_exact(body, exact, source, to_lf(target)), 1, LfView(body, [])
    view = LfView.of(body)
    text, source, target = view.text, to_lf(source), to_lf(target)
    for level, finder in ((2, _exact), (3, _trimmed), (4, _block)):
        span = finder(text, source, target, level)
        if span is not None:
            return span, level, view
    span = _punctuation(text, source, target)
    if span is not None:
        return span, 5, view
    raise _not_found(text, source)


Finder = Callable[[str, str, str, int], "Span | None"]


def _exact(text: str, source: str, target: str, level: int) -> Span | None:
    start = _unique(text, find_all(text, source), level)
    return None if start is None else Span(start, start + len(source), target)


def _trimmed(text: str, source: str, target: str, level: int) -> Span | None:
    trimmed = Trimmed.of(source)
    if trimmed.text == source:
        return None  # the same search as the exact one
    start = _unique(text, find_trimmed(text, trimmed), level)
    return None if start is None else replace_trimmed(text, start, trimmed, source, target, level)


def _block(text: str, source: str, target: str, level: int) -> Span | None:
    wanted = source_lines(source)
    file_lines = text.split("\n")
    keys = [line.strip() for line in file_lines]
    starts = find_blocks(file_lines, keys, wanted)
    if len(starts) > 1:
        raise errors.ambiguous(level, [n + 1 for n in starts])
    if not starts:
        return None
    return replace_block(file_lines, starts[0], wanted, target, level)


def _punctuation(text: str, source: str, target: str) -> Span | None:
    """Level 5: the levels 2-4 on folded text; the target takes the file's punctuation."""
    folded_text, folded_source = fold(text), fold(source)
    if folded_text == text and folded_source == source:
        return None
    finders: tuple[Finder, ...] = (_exact, _trimmed, _block)
    for finder in finders:
        span = finder(folded_text, folded_source, target, 5)
        if span is not None:
            matched = text[span.start : span.end]
            table = _punctuation_table(source, matched)
            return Span(span.start, span.end, span.replacement.translate(table), span.reindented)
    return None


def _punctuation_table(model: str, found: str) -> dict[int, str]:
    """Characters the model wrote where the file has another form of the same punctuation.

    A character the model also wrote where the file has the same one (a hyphen that is a
    hyphen in one place and an em dash in another) is ambiguous and stays as the model wrote it.
    """
    seen: dict[str, set[str]] = {}
    for model_line, found_line in zip(source_lines(model), found.split("\n"), strict=False):
        a, b = model_line.strip(), found_line.strip()
        if len(a) != len(b):
            continue
        for x, y in zip(a, b, strict=True):
            if (x != y or x in ASCII_FORMS) and fold(x) == fold(y):
                seen.setdefault(x, set()).add(y)
    return {ord(x): ys.pop() for x, ys in seen.items() if len(ys) == 1 and x not in ys}


def _unique(text: str, starts: list[int], level: int) -> int | None:
    if len(starts) > 1:
        raise errors.ambiguous(level, line_numbers(text, starts))
    return starts[0] if starts else None


def _not_found(text: str, source: str) -> EditError:
    file_lines = text.split("\n")
    block = closest_block(file_lines, source_lines(source))
    return errors.not_found(None if block is None else quote(file_lines, *block))
