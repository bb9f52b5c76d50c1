"""The new lines of a whole-line match: the file's lines, merged with what the target changes.

The model's source lines are matched to file lines; its target lines are aligned with its source
lines (by their text without surrounding whitespace and with punctuation folded). Then:

- a target line that restates its source line exactly is the file's line, byte for byte
  (indentation, trailing whitespace, punctuation, line ending);
- a target line that changes its source line in place keeps the file's text where it repeats the
  model's (its unchanged characters, its trailing whitespace when the model did not change it)
  and the file's line ending;
- a new target line is taken as written, its indentation placed in the file's frame (see
  `placing`), with the line ending of the line before it;
- file lines the source left out (blank lines inside a block matched ignoring them) stay.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.indent import indent_of, is_identity, width
from harness9.tools.edit.placing import Block, Opcode, pairs_of, place, takes_file_indent
from harness9.tools.edit.text_views import fold


def merge(block: Block, target: Sequence[str]) -> tuple[str, bool]:
    """The text (file line endings) replacing `block`'s lines, and whether the target was
    re-indented. `target` is the target's lines (LF), not empty."""
    ops = _aligned(block, target)
    placed = place(block, target, ops)
    used = {row for row in block.rows if row is not None}
    out = _Out(block, [row for row in range(len(block.file)) if row not in used])
    reindented = False
    for tag, i1, i2, j1, j2 in ops:
        paired = tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1)
        kept_before = len(out.lines)
        for i in range(i1, i2):
            row = block.rows[i]
            if row is not None:
                out.keep_spare(row)
            elif tag == "equal":
                _blank_in_place(block, out, i)
            if paired:
                j = j1 + i - i1
                reindented |= _merge_line(block, out, i, tag, target[j], placed[j])
        if not paired:
            upcoming = next((row for row in block.rows[i2:] if row is not None), len(block.file))
            reindented |= _add_lines(block, out, target[j1:j2], placed[j1:j2], kept_before,
                                     upcoming)
    out.keep_spare(len(block.file))
    return _join(out.lines, block), reindented


@dataclass(slots=True)
class _Out:
    """The merged lines so far (text, file ending), and the file lines the source left out
    that are not placed yet (`spare`, in order)."""

    block: Block
    spare: list[int]
    lines: list[tuple[str, str]] = field(default_factory=list)

    def keep_spare(self, before: int) -> None:
        """Place the left-out file lines before file line `before`, as they are."""
        while self.spare and self.spare[0] < before:
            row = self.spare.pop(0)
            self.lines.append((self.block.file[row], self.block.endings[row]))


def _merge_line(block: Block, out: _Out, i: int, tag: str, target: str, placed: str) -> bool:
    """Add the target line standing for source line `i`; whether it was re-indented."""
    row = block.rows[i]
    if row is None:
        if tag != "equal":
            out.lines.append((_new_line(placed), ""))
        return False
    text = _changed_line(block, i, target, placed)
    out.lines.append((text, block.endings[row]))
    # The file's own indentation restored is not a re-indent.
    restored = takes_file_indent(block, i, target)
    return not restored and text != block.file[row] and indent_of(placed) != indent_of(target)


def _add_lines(block: Block, out: _Out, target: Sequence[str], placed: Sequence[str],
               kept_before: int, upcoming: int) -> bool:
    """Add new target lines (before file line `upcoming`); whether one was re-indented."""
    reindented = False
    for n, (line, where) in enumerate(zip(target, placed, strict=True)):
        # A blank target line where the file has a blank line the source left out restores
        # that line, not a second one.
        if n == 0 and not line.strip() and _blank_kept(out.lines, kept_before):
            continue
        if not line.strip() and _blank_spare(block, out.spare, upcoming):
            out.keep_spare(out.spare[0] + 1)
            continue
        reindented |= where != line and bool(line.strip())
        out.lines.append((_new_line(where), ""))
    return reindented


def _blank_in_place(block: Block, out: _Out, i: int) -> None:
    """A blank source line the match skipped, restated by the target, stands for the file's
    next left-out blank line when one comes before the next matched line: it is placed here, so
    that lines the target adds after it stay after it."""
    upcoming = next((row for row in block.rows[i:] if row is not None), len(block.file))
    if _blank_spare(block, out.spare, upcoming):
        out.keep_spare(out.spare[0] + 1)


def _blank_kept(out: Sequence[tuple[str, str]], since: int) -> bool:
    """Whether a blank file line was kept in `out` from index `since` on (as the first)."""
    return len(out) > since and not out[since][0].strip()


def _blank_spare(block: Block, spare: Sequence[int], upcoming: int) -> bool:
    """Whether the next file line the source left out is blank and comes before `upcoming`
    (the next file line the source matched)."""
    return bool(spare) and spare[0] < upcoming and not block.file[spare[0]].strip()


def _aligned(block: Block, target: Sequence[str]) -> Sequence[Opcode]:
    """Identical lines align first when the source is indented as the file. In another frame a
    repeated line (a closing brace) can be identical to another line's restatement, so when
    the source repeats a line and the alignments (identical to the source's lines, to the
    file's, or equal without indentation) keep different ones, nobody can tell which the
    target keeps: refused."""
    model = _as_aligned(block, target)
    exact = _align(model, target, exact_first=True)
    if is_identity(pairs_of(block)):
        return exact
    loose = _align(model, target, exact_first=False)
    keys = Counter(_key(m) for m in model if m.strip())
    typed = Counter(_key(t) for t in target if t.strip())
    # A repeated line the target keeps as often as the source has it is kept in order.
    if any(n > 1 and typed[key] != n for key, n in keys.items()) and len({
        frozenset(_kept(ops)) for ops in (exact, loose, _align(
            _in_file_frame(block, model), target, exact_first=True))
    }) > 1:
        raise errors.unclear_indentation(
            block.level,
            block.line,
            "target_text restates a line that repeats in source_text (indented otherwise), "
            "which could stand for either",
            block.file,
        )
    return loose


def _in_file_frame(block: Block, model: Sequence[str]) -> list[str]:
    """The model's lines with the indentation of the file lines they matched."""
    return [
        line if row is None else indent_of(block.file[row]) + line.lstrip(" \t")
        for line, row in zip(model, block.rows, strict=True)
    ]


def _kept(ops: Sequence[Opcode]) -> set[tuple[int, int]]:
    return {
        (i, j1 + i - i1)
        for tag, i1, i2, j1, _ in ops
        if tag == "equal"
        for i in range(i1, i2)
    }


def _as_aligned(block: Block, target: Sequence[str]) -> list[str]:
    """The model's lines, a loose first line with the file line's indentation (what the model
    would have typed had it copied the whole line) unless the target repeats it as typed."""
    model = list(block.model)
    first = block.rows[0] if model else None
    if block.loose and first is not None and target[0] != model[0]:
        model[0] = indent_of(block.file[first]) + model[0].lstrip(" \t")
    return model


def _key(line: str, indented: bool = False) -> str:
    return fold(line.rstrip() if indented else line.strip())


def _align(model: Sequence[str], target: Sequence[str], *, exact_first: bool) -> Sequence[Opcode]:
    """Target lines aligned with source lines: identical lines first (so of two lines that
    differ only in indentation, the one restated as typed is the one kept), then, between
    them, lines equal without their surrounding whitespace."""
    if not exact_first:
        return SequenceMatcher(None, [_key(m) for m in model], [_key(t) for t in target],
                               False).get_opcodes()
    exact = SequenceMatcher(None, [_key(m, True) for m in model], [_key(t, True) for t in target],
                            False)
    out: list[Opcode] = []
    for tag, i1, i2, j1, j2 in exact.get_opcodes():
        if tag != "replace":
            out.append((tag, i1, i2, j1, j2))
            continue
        loose = SequenceMatcher(
            None, [_key(m) for m in model[i1:i2]], [_key(t) for t in target[j1:j2]], False
        )
        out.extend(
            (t, a1 + i1, a2 + i1, b1 + j1, b2 + j1) for t, a1, a2, b1, b2 in loose.get_opcodes()
        )
    return out


def _changed_line(block: Block, i: int, target: str, placed: str) -> str:
    """A file line that the target restates or changes in place."""
    model = block.model[i]
    row = block.rows[i]
    assert row is not None
    found = block.file[row]
    if target == model:
        # The file's line, unless the target's frame moves it: a line restated as the drifted
        # source typed it, in a target typed for the file (a block wrapped in a new opener),
        # goes where the frame puts it.
        if takes_file_indent(block, i, target) or width(indent_of(placed)) == width(
            indent_of(found)
        ):
            return found
        return indent_of(placed) + found.lstrip(" \t")
    if not target.strip():
        return ""
    indent = indent_of(found) if takes_file_indent(block, i, target) else indent_of(placed)
    m_body, m_trail = _body(model)
    t_body, t_trail = _body(target)
    f_body, f_trail = _body(found)
    trail = f_trail if t_trail == m_trail else t_trail
    return indent + merge_chars(m_body, t_body, f_body) + trail


def _body(line: str) -> tuple[str, str]:
    """The line without indentation, split before its trailing whitespace."""
    stripped = line.lstrip(" \t")
    body = stripped.rstrip()
    return body, stripped[len(body) :]


def merge_chars(model: str, target: str, found: str) -> str:
    """`target`, with the characters it repeats from `model` spelled as in `found` (the file's
    text that `model` matched with punctuation folded: same length, character for character)."""
    if model == found or len(model) != len(found):
        return target
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, model, target, False).get_opcodes():
        out.append(found[i1:i2] if tag == "equal" else target[j1:j2])
    return "".join(out)


def _new_line(placed: str) -> str:
    return placed if placed.strip() else ""


def _join(lines: Sequence[tuple[str, str]], block: Block) -> str:
    """The lines with endings: a new line takes the ending of the line before it; the text ends
    with a line ending exactly when the block did."""
    previous = next((e for e in block.endings if e), block.default_ending)
    parts = []
    for n, (text, ending) in enumerate(lines):
        if n == len(lines) - 1 and not block.endings[-1]:
            ending = ""
        elif not ending:
            ending = previous
        previous = ending
        parts.append(text + ending)
    return "".join(parts)


__all__ = ["merge", "merge_chars"]
