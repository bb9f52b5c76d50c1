"""From a unique match to the text that replaces it, line-aware at every level.

A match that covers whole lines (it starts after nothing but indentation and ends before
nothing but whitespace) is replaced line by line (see `merge`): the target is read as
lines, lines it only restates keep the file's bytes, and an empty target deletes the lines,
newline included. A match inside a line replaces just the matched text with the target, unless
the source starts or ends in the middle of a line while the target restates that line (a source
copied with a truncated first or last line): when the target repeats what the file has beyond
the cut, the match grows to the whole line; otherwise that edit is refused, since applying it
would duplicate or keep half of the line.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from dataclasses import replace as dataclass_replace
from difflib import SequenceMatcher

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.hint import MAX_SHOWN
from harness9.tools.edit.indent import file_context
from harness9.tools.edit.merge import merge, merge_chars
from harness9.tools.edit.placing import Block
from harness9.tools.edit.text_views import (
    LfView,
    fold,
    line_ending_at,
    line_number,
    to_lf,
    with_line_ending,
)

_CONTEXT_CHARS = 8000  # text on each side read for the file's indentation style
_EDITED = 0.7  # a changed cut line at least this like the typed one edits it in place


@dataclass(frozen=True, slots=True)
class Match:
    """A unique match in the LF view of the file.

    `model` is the model's text for the matched part, as it typed it; `lead` is the
    indentation it typed before a trimmed match. `rows`, for a line-by-line match, gives each
    model line's file line counted from the first matched one (None: a blank line the file
    lacks), and `model` is then the model's lines joined. `lead` and `trail` are the
    whitespace the model typed before and after a trimmed match, on its first and last line.
    """

    start: int
    end: int
    level: int
    model: str
    rows: tuple[int | None, ...] | None = None
    trimmed: bool = False
    lead: str = ""
    trail: str = ""
    source: str = ""  # the whole source_text (LF), for a looser match
    loose: bool = False  # a line-by-line match whose first line was copied without indentation


@dataclass(frozen=True, slots=True)
class Replacement:
    """What to put where, in offsets of the original text."""

    start: int
    end: int
    text: str
    reindented: bool


def replace(body: str, view: LfView, match: Match, target: str) -> Replacement:
    """The replacement of `match` (in `view` of `body`) by `target`."""
    text = view.text
    match, target = _past_line_end(text, match, target)
    line_start = text.rfind("\n", 0, match.start) + 1
    head = text[line_start : match.start]
    ends_line = match.end > match.start and text[match.end - 1] == "\n"
    line_end = match.end if ends_line else _line_end(text, match.end)
    tail = "" if ends_line else text[match.end : line_end]
    if head.strip() or tail.strip():
        match, head, tail = _completed(match, target, head, tail)
    if head.strip() or tail.strip():
        return _inside_lines(body, view, match, target, head, tail)
    region_end = line_end if ends_line or line_end == len(text) else line_end + 1
    return _whole_lines(body, view, match, target, (line_start, region_end))


def _completed(match: Match, target: str, head: str, tail: str) -> tuple[Match, str, str]:
    """A source cut inside its first or last line whose target repeats the rest of that line
    (what the file has before or after the cut): the match grows to the whole line, so the
    target replaces it instead of repeating the rest."""
    if match.rows is not None or match.trimmed:
        return match, head, tail
    if tail.strip() and target.rstrip().endswith(tail.rstrip()):
        match = dataclass_replace(match, end=match.end + len(tail), model=match.model + tail)
        tail = ""
    if head.strip() and target.lstrip().startswith(head.lstrip()):
        # From the line's first non-blank character: the indentation was not typed, so the
        # line stays where the file has it (a loose first line).
        typed = head.lstrip(" \t")
        match = dataclass_replace(match, start=match.start - len(typed), model=typed + match.model)
        head = head[: len(head) - len(typed)]
    return match, head, tail


def _past_line_end(text: str, match: Match, target: str) -> tuple[Match, str]:
    """A source that starts with the newline ending the line before it, read from the next
    line's start (with the target's own leading newline, if it has one). A blank target whose
    source starts with the newline of a blank line deletes that line too: the source's first
    line is the blank one."""
    lf_target = to_lf(target)
    if not lf_target.strip() and (match.start == 0 or text[match.start - 1] == "\n"):
        return match, lf_target
    while (
        match.rows is None
        and match.model.startswith("\n")
        and match.model.strip()
        and text.startswith("\n", match.start)
    ):
        match = dataclass_replace(match, start=match.start + 1, model=match.model[1:])
        # A target without the leading newline: it was the source's noise (replacing it would
        # join the line before to the target's first line).
        lf_target = lf_target[1:] if lf_target.startswith("\n") else lf_target
    return match, lf_target


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end == -1 else end


def _whole_lines(
    body: str, view: LfView, match: Match, target: str, region: tuple[int, int]
) -> Replacement:
    text = view.text
    start, end = region
    original = (view.original_offset(start), view.original_offset(end))
    new = _target_lines(target, match)
    if not new:
        if end == len(text) and not text.endswith("\n") and start > 0:
            return Replacement(view.original_offset(start - 1), original[1], "", False)
        return Replacement(*original, "", False)
    lines = text[start:end].split("\n")
    if text[start:end].endswith("\n"):
        lines.pop()
    endings = _endings(view, start, len(lines), end)
    model, rows = _model_lines(match, len(lines))
    block = Block(
        file=lines,
        endings=endings,
        model=model,
        rows=rows,
        loose=match.loose or (match.rows is None and (match.start > start or match.trimmed)),
        level=match.level,
        default_ending=line_ending_at(body, *original),
        line_of=lambda: line_number(text, start),
        context_of=lambda: file_context(
            text[max(0, start - _CONTEXT_CHARS) : end + _CONTEXT_CHARS].split("\n")
        ),
    )
    merged, reindented = merge(block, new)
    return Replacement(*original, merged, reindented)


def _endings(view: LfView, start: int, count: int, end: int) -> list[str]:
    """The original line ending of each of `count` lines starting at `start` in the view."""
    text, crlf = view.text, view.crlf_at
    endings = []
    at = start
    for _ in range(count):
        newline = text.find("\n", at, end)
        if newline == -1:
            endings.append("")
            break
        index = bisect_left(crlf, newline)
        endings.append("\r\n" if index < len(crlf) and crlf[index] == newline else "\n")
        at = newline + 1
    return endings


def _model_lines(match: Match, count: int) -> tuple[list[str], list[int | None]]:
    if match.rows is not None:
        return match.model.split("\n"), list(match.rows)
    lines = match.model.split("\n")
    if match.model.endswith("\n"):
        lines.pop()
    lines[0] = match.lead + lines[0]
    lines[-1] += match.trail
    return lines, list(range(count))


def _target_lines(target: str, match: Match) -> list[str]:
    """The target as lines. After an exact match, as written (one final newline aside); after a
    looser one, without trailing blank lines, nor the leading ones that mirror those before the
    source (which were not part of the match; more in the target are the edit's own)."""
    text = to_lf(target)
    if not text.strip():
        return []
    lines = _lines(text)
    if match.rows is None and not match.trimmed:
        return lines
    extra = max(0, _blank_run(lines, 0) - _blank_run(_lines(match.source), 0))
    for _ in range(_blank_run(lines, 0) - extra):
        lines.pop(0)
    while not lines[-1].strip():
        lines.pop()
    return lines


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _blank_run(lines: list[str], edge: int) -> int:
    ordered = lines if edge == 0 else lines[::-1]
    return next((n for n, line in enumerate(ordered) if line.strip()), len(lines))


def _inside_lines(
    body: str, view: LfView, match: Match, target: str, head: str, tail: str
) -> Replacement:
    """A match that starts or ends inside a line: the matched text becomes the target."""
    new = to_lf(target).strip() if match.trimmed else to_lf(target)
    _refuse_truncated(view.text, match, new, head, tail)
    if match.level == 5:
        new = _file_punctuation(match.model, view.text[match.start : match.end], new)
    start, end = view.original_offset(match.start), view.original_offset(match.end)
    text = with_line_ending(new, line_ending_at(body, start, end))
    return Replacement(start, end, text, False)


def _refuse_truncated(text: str, match: Match, new: str, head: str, tail: str) -> None:
    model = match.model.split("\n")
    lines = new.split("\n")
    line = line_number(text, match.start)
    touched = text.split("\n")[line - 1 : line - 1 + min(len(model), MAX_SHOWN)]
    if tail.strip() and _restates(model, lines, tail, head, end=True):
        raise errors.partial_line(match.level, line + len(model) - 1, "ends", touched, line)
    if head.strip() and _restates(model, lines, head, tail, end=False):
        raise errors.partial_line(match.level, line, "starts", touched, line)


def _restates(model: list[str], lines: list[str], cut: str, other: str, *, end: bool) -> bool:
    """Whether the target rewrites the whole file line that the model's first (`end` False) or
    last line only partly covers (`cut` is the file's text beyond that boundary)."""
    if len(model) > 1:
        if _drops_cut_line(model, lines, end=end):
            return True  # it deletes the part it covers and leaves the rest of the line
        near, typed = (lines[-1], model[-1]) if end else (lines[0], model[0])
        if near == typed:
            return False
        # A changed cut line changes only what the source covers when it stays like the typed
        # part, no target line repeats the part the source left out, and none runs on past it.
        piece = fold(cut.strip())
        return (
            any(_repeats(line, piece, end=end) or _runs_on(line, typed, end=end) for line in lines)
            or SequenceMatcher(None, fold(near), fold(typed), autojunk=False).ratio() < _EDITED
        )
    piece = fold(cut.strip())
    if any(
        line.strip()
        and (fold(line.strip()).endswith(piece) if end else fold(line.strip()).startswith(piece))
        for line in lines
    ):
        return True
    if other.strip():
        return False
    # The source runs from the line's other end: a target that continues it, or deletes it,
    # means the whole line (deleting a line's start or end alone is refused too: a model that
    # means it can include the whole line).
    near, typed = (lines[0], model[0]) if end else (lines[-1], model[0])
    near, typed = fold(near), fold(typed)
    longer = len(near) > len(typed) and (near.startswith(typed) if end else near.endswith(typed))
    return longer or not "".join(lines).strip()


def _drops_cut_line(model: list[str], lines: list[str], *, end: bool) -> bool:
    """Whether the target leaves out the model's cut line (its last when `end`, else its
    first) while keeping its neighbours: a whole line meant to go, cut short by the copy."""
    cut = len(model) - 1 if end else 0
    matcher = SequenceMatcher(None, [fold(m) for m in model], [fold(t) for t in lines],
                              autojunk=False)
    return any(tag == "delete" and i1 <= cut < i2
               for tag, i1, i2, _, _ in matcher.get_opcodes())


def _repeats(line: str, piece: str, *, end: bool) -> bool:
    """Whether `line` (stripped, folded) ends (`end`) or starts with the file's cut `piece`."""
    text = fold(line.strip())
    return bool(piece) and (text.endswith(piece) if end else text.startswith(piece))


def _runs_on(line: str, typed: str, *, end: bool) -> bool:
    """Whether `line` is longer than the model's cut line `typed` and runs on past the cut."""
    near, cut = fold(line), fold(typed)
    return len(near) > len(cut) and (near.startswith(cut) if end else near.endswith(cut))


def _file_punctuation(model: str, found: str, new: str) -> str:
    """At level 5, the target's characters that repeat the model's take the file's spelling."""
    model_lines, found_lines, new_lines = model.split("\n"), found.split("\n"), new.split("\n")
    if not len(model_lines) == len(found_lines) == len(new_lines):
        return new
    return "\n".join(
        merge_chars(m, n, f) for m, f, n in zip(model_lines, found_lines, new_lines, strict=True)
    )
