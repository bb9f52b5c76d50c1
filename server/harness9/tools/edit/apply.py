"""`apply_edit`: replace the one place `source_text` means with `target_text`, or refuse.

The ladder, each level tried only when the ones before it found nothing:

1. exact text (never starting or ending between the CR and the LF of a CRLF);
2. CRLF read as LF (the file keeps its line endings);
3. `source_text` trimmed of surrounding whitespace, anchored to line starts and ends when its
   trimmed ends were;
4. line by line, each line compared without its surrounding whitespace, with the same relative
   indentation; then the same with blank lines ignored on both sides. Of several such blocks,
   the only one indented exactly as typed is the match;
5. as 2-4 with curly quotes, dashes and non-breaking spaces read as their ASCII forms.

Every level must find exactly one place (overlapping occurrences count); more than one stops the
ladder with an `ambiguous` refusal, never a looser level. A match that is not exact line for
line must also be unique by a margin (see `margin`). What replaces the match is built line
by line when it covers whole lines (see `replacement` and `merge`): lines the target only
restates keep the file's bytes, and the target's indentation is placed in the file's frame from
evidence, or the edit is refused.

Before the ladder, the arguments' own slips are read (see `slips` and `sent`): a BOM, odd
spaces in indentation, a markdown fence and a diff marker column are dropped, curly quotes that
stand for the file's straight ones straightened; elision markers, escaped line breaks, HTML
entities and typographic operators in the target refused. When nothing matches, a JSON-escaped
source, one with line-number prefixes, doubled backslashes or the slips of `rereads` is read
without them. An edit whose target is already where its source would be is refused as applied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness9.tools.edit import closing, escapes, lone_cr, places, rereads, sent, slips
from harness9.tools.edit import refusals as errors
from harness9.tools.edit.hint import closest_block, quote
from harness9.tools.edit.indent import indent_of
from harness9.tools.edit.margin import refuse_near_rival
from harness9.tools.edit.match import (
    Trimmed,
    find_all,
    find_blocks,
    find_blocks_across_blanks,
    find_trimmed,
    loose_first,
    source_lines,
    splits_crlf,
)
from harness9.tools.edit.places import Place
from harness9.tools.edit.refusals import LEVELS, EditError
from harness9.tools.edit.replacement import Match, replace
from harness9.tools.edit.text_views import LfView, fold, line_number, to_lf
from harness9.workspace.port import BOM


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
    `indentation`, `partial_line`). A leading BOM is kept and never part of a match.
    """
    if lone_cr.has_lone_cr(content):
        level: list[int] = []

        def edit(view: str) -> str:
            outcome = apply_edit(view, lone_cr.as_lf(source_text), lone_cr.as_lf(target_text))
            level.append(outcome.level)
            return outcome.content

        edited = lone_cr.edit_through_lf(content, edit)
        # Matched as sent only when the source's line breaks are the file's.
        return EditOutcome(edited, level[0] if source_text in content else max(level[0], 2))
    bom = BOM if content.startswith(BOM) else ""
    body = content[len(bom) :]
    source_text, target_text = slips.without_bom(bom, source_text, target_text)
    source_text, target_text = map(slips.plain_indentation, (source_text, target_text))
    source_text, target_text = sent.without_fences(body, source_text, target_text)
    source_text, target_text = sent.without_diff_column(source_text, target_text)
    target_text = sent.straight_quotes(body, source_text, target_text)
    if not source_text.strip():
        raise errors.empty_source()
    if source_text == target_text:
        raise errors.no_change(0)
    slips.refuse_elision(source_text, target_text, body)
    slips.refuse_escaped_target(source_text, target_text)
    sent.refuse_never_code(body, source_text, target_text)
    view = LfView.of(body)
    try:
        match, target_text = _locate_reread(body, view, source_text, target_text)
    except EditError as exc:
        if exc.kind == "not_found":
            _refuse_applied(view.text, None, target_text)
        raise
    closed = closing.with_closing(view.text, match, target_text)
    if closed is not None:
        match = _relocated(body, view, closed, match)
    refuse_near_rival(view.text, match.start, match.end, match.source or match.model, match.level)
    done = replace(body, view, match, target_text)
    edited = body[: done.start] + done.text + body[done.end :]
    if edited == body:
        raise errors.no_change(match.level)
    _refuse_applied(view.text, match, target_text)
    return EditOutcome(bom + edited, match.level, done.reindented)


def _locate_reread(body: str, view: LfView, source: str, target: str) -> tuple[Match, str]:
    """The match of `source`; when it has none, of the source read without the slips that
    can be undone for certain (JSON escaping, doubled backslashes, line-number prefixes, the
    readings of `rereads`), with the target read the same way."""
    try:
        return _locate(body, view, source), target
    except EditError as exc:
        if exc.kind != "not_found":
            raise
        missed = exc
    unescaped = escapes.json_unescaped(body, source, target)
    if unescaped is not None:
        found = _reading(body, view, unescaped[0])
        if found is not None:
            if unescaped[1] is None:
                raise errors.unclear_escapes(line_number(view.text, found.start), found.level)
            return found, unescaped[1]
    prefixes = slips.numbered(to_lf(source), target)
    if prefixes is not None:
        match = _locate(body, view, prefixes.source)
        rows = match.rows or tuple(range(len(source_lines(prefixes.source))))
        slips.check_numbers(prefixes, line_number(view.text, match.start), rows)
        return match, prefixes.target
    others = (*escapes.backslash_scaled(source, target), *rereads.readings(body, source, target))
    for reading in others:
        found = _reading(body, view, reading[0])
        if found is not None:
            return found, reading[1]
    raise missed


def _reading(body: str, view: LfView, source: str) -> Match | None:
    """The match of a reading of the source; None when it matches nowhere (another reading
    may), a refusal when it matches ambiguously."""
    try:
        return _locate(body, view, source)
    except EditError as exc:
        if exc.kind != "not_found":
            raise
    return None


def _relocated(body: str, view: LfView, source: str, match: Match) -> Match:
    """The match of `source` (the matched source with the closing line it left out), which
    must start where `match` did."""
    found = _locate(body, view, source)
    if found.start != match.start and line_number(view.text, found.start) != line_number(
        view.text, match.start
    ):
        raise places.ambiguous(found.level, view.text, sorted((found.start, match.start)),
                               source.rstrip("\n").count("\n"))
    return found


def _refuse_applied(text: str, match: Match | None, target: str) -> None:
    """Refuse an edit already applied: the target occurs once around the source's match and
    covers more than it (a wrap or an insertion sent again), or anywhere when the source matched
    nowhere. A target found on the match's own lines is a change of their whitespace."""
    new = to_lf(target).strip("\n")
    if not new.strip():
        return
    if match is None:
        start = text.find(new)
        if start >= 0 and text.find(new, start + 1) < 0:
            raise errors.already_applied(line_number(text, start), 5)
        return
    if new.count("\n") <= match.model.strip("\n").count("\n"):
        return  # only a target of more lines than the source can hold it
    first = text.rfind("\n", 0, max(0, match.start - len(new))) + 1
    last = text.find("\n", min(len(text), match.end + len(new)))
    window = text[first : len(text) if last < 0 else last]
    first_line = line_number(text, first) - 1
    try:
        found = _locate(window, LfView.of(window), new)
    except EditError:
        return
    lines = (line_number(window, found.start), line_number(window, found.end))
    start, end = (first_line + n for n in lines)
    matched = (line_number(text, match.start), line_number(text, match.end))
    if start <= matched[0] and matched[1] <= end and (start, end) != matched:
        raise errors.already_applied(start, match.level)


def _locate(body: str, view: LfView, source: str) -> Match:
    starts = [at for at in find_all(body, source) if not splits_crlf(body, at, at + len(source))]
    exact = _unique(body, starts, 1, source)
    model = to_lf(source)
    if exact is not None:
        start = exact - body.count("\r\n", 0, exact) if view.crlf_at else exact
        return Match(start, start + len(model), 1, model)
    text = view.text
    for level, finder in ((2, _exact), (3, _trimmed), (4, _block)):
        match = finder(text, model, model, level)
        if match is not None:
            return match
    match = _punctuation(text, model)
    if match is not None:
        return match
    raise _not_found(text, model)


Finder = Callable[[str, str, str, int], "Match | None"]


def _exact(text: str, source: str, model: str, level: int) -> Match | None:
    start = _unique(text, find_all(text, source), level, source)
    return None if start is None else Match(start, start + len(source), level, model)


def _trimmed(text: str, source: str, model: str, level: int) -> Match | None:
    trimmed = Trimmed.of(source)
    if trimmed.text == source:
        return None  # the same search as the exact one
    start = _unique(text, find_trimmed(text, trimmed), level, trimmed.text)
    if start is None:
        return None
    at = len(model) - len(model.lstrip())
    lead = model[:at].rsplit("\n", 1)[-1]
    after = at + len(trimmed.text)
    matched, trail = model[at:after], model[after:].split("\n", 1)[0]
    return Match(
        start,
        start + len(trimmed.text),
        level,
        matched,
        trimmed=True,
        lead=lead,
        trail=trail,
        source=model,
    )


def _block(text: str, source: str, model: str, level: int) -> Match | None:
    wanted = source_lines(source)
    file_lines = text.split("\n")
    keys = [line.strip() for line in file_lines]
    blocks = [tuple(range(n, n + len(wanted))) for n in find_blocks(file_lines, keys, wanted)]
    starts = [rows[0] for rows in _one_as_typed(file_lines, wanted, blocks, level)]
    typed = source_lines(model)
    if starts:
        rows: tuple[int | None, ...] = tuple(range(len(wanted)))
        first = starts[0]
        loose = loose_first(wanted, file_lines[first : first + len(wanted)])
        return _line_match(file_lines, first, first + len(wanted), typed, rows, level, model, loose)
    filled_wanted = [line for line in wanted if line.strip()]
    found = find_blocks_across_blanks(file_lines, keys, wanted)
    found = _one_as_typed(file_lines, filled_wanted, found, level)
    if not found:
        return None
    first, last = found[0][0], found[0][-1] + 1
    filled = iter(found[0])
    rows = tuple(next(filled) - first if line.strip() else None for line in wanted)
    loose = loose_first(filled_wanted, [file_lines[i] for i in found[0]])
    return _line_match(file_lines, first, last, typed, rows, level, model, loose)


def _one_as_typed(
    file_lines: list[str], wanted: list[str], blocks: list[tuple[int, ...]], level: int
) -> list[tuple[int, ...]]:
    """At most one of the `blocks` (each the file line of every wanted line): of several, the
    only one indented exactly as the model typed every line, or an `ambiguous` refusal. Typed
    indentation that matches one place and not another is as telling as the text itself (a
    look-alike block nested one level deeper differs from the source in nothing else)."""
    if len(blocks) < 2:
        return blocks
    typed = [
        rows
        for rows in blocks
        if all(
            indent_of(line) == indent_of(file_lines[row])
            for line, row in zip(wanted, rows, strict=True)
        )
    ]
    if len(typed) != 1:
        raise places.refused(level, file_lines, [Place(rows[0], rows[-1]) for rows in blocks])
    return typed


def _line_match(
    file_lines: list[str],
    first: int,
    last: int,
    typed: list[str],
    rows: tuple[int | None, ...],
    level: int,
    source: str,
    loose: bool,
) -> Match:
    start = sum(map(len, file_lines[:first])) + first
    end = start + sum(map(len, file_lines[first:last])) + (last - first - 1)
    return Match(start, end, level, "\n".join(typed), rows, source=source, loose=loose)


def _punctuation(text: str, source: str) -> Match | None:
    """Level 5: the levels 2-4 on folded text (the model's own characters kept for the merge)."""
    folded_text, folded_source = fold(text), fold(source)
    if folded_text == text and folded_source == source:
        return None
    finders: tuple[Finder, ...] = (_exact, _trimmed, _block)
    for finder in finders:
        match = finder(folded_text, folded_source, source, 5)
        if match is not None:
            return match
    return None


def _unique(text: str, starts: list[int], level: int, found: str) -> int | None:
    """The one start of `found` in `text`, None when there is none; an `ambiguous` refusal
    when there are several."""
    if len(starts) > 1:
        raise places.ambiguous(level, text, starts, found.rstrip("\n").count("\n"))
    return starts[0] if starts else None


def _not_found(text: str, source: str) -> EditError:
    file_lines = text.split("\n")
    block = closest_block(file_lines, source_lines(source))
    return errors.not_found(None if block is None else quote(file_lines, *block))
