"""The new lines of a whole-line match: the file's lines, merged with what the target changes.

The model's source lines are matched to file lines; its target lines are aligned with its source
lines (by their text without surrounding whitespace and with punctuation folded). Then:

- a target line that restates its source line exactly is the file's line, byte for byte
  (indentation, trailing whitespace, punctuation, line ending);
- a target line that changes its source line in place keeps the file's text where it repeats the
  model's (its unchanged characters, its trailing whitespace when the model did not change it)
  and the file's line ending;
- a new target line is taken as written, its indentation placed in the file's frame (see
  `edit_frame`), with the line ending of the line before it;
- file lines the source left out (blank lines inside a block matched ignoring them) stay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.frame import Frame, Unclear, Witness, decide
from harness9.tools.edit.indent import (
    Context,
    Mapping,
    Pair,
    choose_mapping,
    indent_of,
    is_identity,
    is_mixed,
    reindent,
    restyle,
    width,
)
from harness9.tools.edit.text_views import fold

Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class Block:
    """The file lines of a whole-line match and the model's source lines matched to them."""

    file: Sequence[str]  # the matched file lines, without line endings
    endings: Sequence[str]  # each one's line ending ("" for a last line without one)
    model: Sequence[str]  # the source lines as the model typed them
    rows: Sequence[int | None]  # each model line's file line (None: a blank line the file lacks)
    loose: bool  # the first model line's indentation was not (all) typed: the file's counts
    level: int
    default_ending: str  # for new lines when no neighbour has one
    # Read only when needed (an exact edit of a big file should not pay for them):
    line_of: Callable[[], int]  # the 1-based number of the first file line, for messages
    context_of: Callable[[], Context]  # the file's indentation style around the block

    @cached_property
    def line(self) -> int:
        """The 1-based number of the first file line."""
        return self.line_of()

    @cached_property
    def context(self) -> Context:
        """The file's indentation style around the block."""
        return self.context_of()


def merge(block: Block, target: Sequence[str]) -> tuple[str, bool]:
    """The text (file line endings) replacing `block`'s lines, and whether the target was
    re-indented. `target` is the target's lines (LF), not empty."""
    ops = _aligned(block, target)
    placed = _place(block, target, ops)
    out: list[tuple[str, str]] = []
    kept: set[int] = set()
    used = {row for row in block.rows if row is not None}
    spare = [row for row in range(len(block.file)) if row not in used]

    def keep_spare(before: int) -> None:
        while spare and spare[0] < before:
            row = spare.pop(0)
            out.append((block.file[row], block.endings[row]))

    reindented = False
    for tag, i1, i2, j1, j2 in ops:
        paired = tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1)
        kept_before = len(out)
        for i in range(i1, i2):
            row = block.rows[i]
            if row is not None:
                keep_spare(row)
                kept.add(row)
            if paired:
                j = j1 + i - i1
                if row is None:
                    if tag != "equal":
                        out.append((_new_line(placed[j]), ""))
                    continue
                text = _changed_line(block, i, target[j], placed[j])
                # The file's own indentation restored is not a re-indent.
                restored = _takes_file_indent(block, i, target[j])
                reindented |= (
                    not restored
                    and text != block.file[row]
                    and indent_of(placed[j]) != indent_of(target[j])
                )
                out.append((text, block.endings[row]))
        if not paired:
            upcoming = next((row for row in block.rows[i2:] if row is not None), len(block.file))
            for j in range(j1, j2):
                # A blank target line where the file has a blank line the source left out
                # restores that line, not a second one.
                if j == j1 and not target[j].strip() and _blank_kept(out, kept_before):
                    continue
                if not target[j].strip() and _blank_spare(block, spare, upcoming):
                    keep_spare(spare[0] + 1)
                    continue
                reindented |= placed[j] != target[j] and bool(target[j].strip())
                out.append((_new_line(placed[j]), ""))
    keep_spare(len(block.file))
    return _join(out, block), reindented


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
    the source repeats a line and the two alignments keep different ones, nobody can tell
    which the target keeps: refused."""
    model = _as_aligned(block, target)
    exact = _align(model, target, exact_first=True)
    if is_identity(_pairs(block)):
        return exact
    loose = _align(model, target, exact_first=False)
    keys = [_key(m) for m in model if m.strip()]
    if len(set(keys)) < len(keys) and _kept(exact) != _kept(loose):
        raise errors.unclear_indentation(
            block.level,
            block.line,
            "target_text restates a line that repeats in source_text (indented otherwise), "
            "which could stand for either",
            block.file,
        )
    return loose


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


def _place(block: Block, target: Sequence[str], ops: Sequence[Opcode]) -> list[str]:
    """Every target line with its indentation in the file's frame."""
    pairs = _pairs(block)
    first_j = _first_target_of_loose(block, target, ops)
    indents = [indent_of(t) for j, t in enumerate(target) if t.strip() and j != first_j]
    if is_identity(pairs):
        _check_loose_first(block, target, ops, first_j)
        return _with_first(block, _as_written(block, target), first_j)
    mapping = choose_mapping(pairs, indents, block.context)
    written = _as_written(block, target)

    def fits(frame: Frame) -> bool:
        return _on_grid(block.context, indents, mapping if frame is Frame.SOURCE else None)

    try:
        frame = decide(
            None if ops and ops[0][0] == "delete" else _first(block, target, first_j, written),
            *_witnesses(block, target, ops, written),
            mapping,
            indents,
            fits,
            mapping is not None and _same_in_style(target, mapping, block.context),
            lambda restated, frame: _only_moves(target, ops)
            and _keeps_nesting(restated, mapping if frame is Frame.SOURCE else None),
        )
    except Unclear as exc:
        raise errors.unclear_indentation(block.level, block.line, exc.reason, block.file) from None
    other = Frame.SOURCE if frame is Frame.FILE else Frame.FILE
    if not fits(frame) and fits(other):
        raise errors.unclear_indentation(
            block.level, block.line, "the lines that tell put it off the file's indentation",
            block.file,
        )
    if frame is Frame.FILE:
        return _with_first(block, written, first_j)
    if mapping is None:
        raise errors.indentation(block.level, block.line, _describe(pairs, indents))
    return _with_first(block, reindent(target, mapping), first_j)


def _only_moves(target: Sequence[str], ops: Sequence[Opcode]) -> bool:
    """Whether every non-blank target line restates a source line (maybe re-indented): then a
    target typed in a third frame would change nothing, so a uniform move is the edit itself.
    With a line changed or added, a uniform move may just as well be a third frame."""
    return not any(
        tag != "equal" and any(target[j].strip() for j in range(j1, j2))
        for tag, _, _, j1, j2 in ops
    )


def _keeps_nesting(restated: Sequence[Witness], mapping: Mapping | None) -> bool:
    """Whether placing the restated lines' target indentation (mapped by `mapping`, if any)
    moves them all by the same width, while their file lines sit at two depths or more."""
    moves, depths = set(), set()
    for witness in restated:
        typed = indent_of(witness.target)
        as_written = indent_of(witness.written if witness.written is not None else witness.target)
        placed = mapping(typed) if mapping is not None else as_written
        if placed is None:
            return False
        depths.add(width(indent_of(witness.file)))
        moves.add(width(placed) - width(indent_of(witness.file)))
    return len(depths) > 1 and len(moves) == 1


def _with_first(block: Block, placed: list[str], first_j: int | None) -> list[str]:
    if first_j is not None:
        placed[first_j] = indent_of(block.file[0]) + placed[first_j].lstrip(" \t")
    return placed


def _same_in_style(target: Sequence[str], mapping: Mapping, context: Context) -> bool:
    """Whether mapping the target and writing it in the file's style place it alike."""
    mapped = [indent_of(line) for line in reindent(target, mapping)]
    return mapped == [indent_of(line) for line in restyle(target, context)]


def _on_grid(context: Context, indents: Sequence[str], mapping: Mapping | None) -> bool:
    """Whether `indents` (mapped by `mapping`, if any) are all made of the file's units."""
    if context.unit is None:
        return False
    for indent in indents:
        placed = mapping(indent) if mapping is not None else indent
        if placed is None:
            return False
        if context.mixed:
            if not is_mixed(placed) or width(placed) % context.unit:
                return False
            continue
        if context.tabs and placed.strip("\t"):
            return False
        if not context.tabs and ("\t" in placed or len(placed) % context.unit):
            return False
    return True


def _as_written(block: Block, target: Sequence[str]) -> list[str]:
    # From level 3 on, tabs typed into a file indented with spaces (or the reverse) are the
    # model's habit, not its intent.
    return restyle(target, block.context) if block.level >= 3 else list(target)


def _pairs(block: Block) -> list[Pair]:
    """(model, file) indentation of the matched non-blank lines that tell the model's frame."""
    pairs = [
        (indent_of(m), indent_of(block.file[row]))
        for i, (m, row) in enumerate(zip(block.model, block.rows, strict=True))
        if row is not None and m.strip() and not (block.loose and i == 0)
    ]
    first = block.rows[0] if block.model else None
    if block.loose and first is not None and not any(m or f for m, f in pairs):
        # The other lines, if any, are unindented and say nothing: the first line's own
        # indentation, typed or not, is the only witness.
        typed = indent_of(block.model[0])
        if typed or not pairs:
            pairs = [(typed, indent_of(block.file[first])), *pairs]
    return pairs


def _first_target_of_loose(
    block: Block, target: Sequence[str], ops: Sequence[Opcode]
) -> int | None:
    """The target line that stands for the loose first source line with no indentation or the
    same as typed there: it takes the file line's indentation, whatever the rest maps to."""
    if not block.loose:
        return None
    for tag, i1, i2, j1, j2 in ops:
        if i1 == 0 and i2 > 0 and j2 > j1 and (tag == "equal" or i2 - i1 == j2 - j1):
            if _takes_file_indent(block, 0, target[j1]):
                return j1
            return 0 if _typed_at_cursor(block, target, j1) else None
    return None


def _typed_at_cursor(block: Block, target: Sequence[str], restated: int) -> bool:
    """Whether the target of a one-line source copied without indentation starts where the
    source did (its first line unindented, new) while it restates the source line later with
    the file's exact indentation: it was typed from the cursor, its first line continuing the
    file line's indentation and the others written for the file."""
    row = block.rows[0]
    if len(block.model) != 1 or row is None or indent_of(block.model[0]) or restated == 0:
        return False
    first, indent = target[0], indent_of(block.file[row])
    return bool(indent and first.strip() and not indent_of(first)) and (
        indent_of(target[restated]) == indent
    )


def _check_loose_first(
    block: Block, target: Sequence[str], ops: Sequence[Opcode], first_j: int | None
) -> None:
    """Refuse a target line standing for the loose first source line whose indentation is
    neither the typed one, nor none, nor the file's: only a frame the evidence cannot see
    explains it."""
    row = block.rows[0] if block.model else None
    if not block.loose or first_j is not None or row is None:
        return
    if indent_of(block.model[0]) == indent_of(block.file[row]):
        return  # typed in full: a different target indentation is the edit's own
    for tag, i1, i2, j1, j2 in ops:
        if i1 == 0 and i2 > 0 and j2 > j1 and (tag == "equal" or i2 - i1 == j2 - j1):
            if indent_of(target[j1]) != indent_of(block.file[row]):
                raise errors.unclear_indentation(
                    block.level,
                    block.line,
                    "the first line of target_text is indented like neither",
                    block.file,
                )
            return


def _takes_file_indent(block: Block, i: int, target: str) -> bool:
    """Whether `target`, standing for model line `i`, is indented as the loose first line was
    typed, or not at all where that typing was a slip: either way it means the file's."""
    if not block.loose or i != 0 or block.rows[0] is None:
        return False
    typed, indent = indent_of(block.model[0]), indent_of(target)
    return indent == typed or (not indent and typed != indent_of(block.file[block.rows[0]]))


def _first(
    block: Block, target: Sequence[str], first_j: int | None, written: Sequence[str]
) -> Witness | None:
    if block.loose and not indent_of(block.model[0]) and len(_pairs(block)) == 1:
        # A one-line source copied from the first non-blank character says nothing of the
        # model's frame: a further target line does, indented like the file line (typed for
        # the file) or not at all (typed like the source).
        others = [j for j, t in enumerate(target) if t.strip() and j != first_j]
        row = block.rows[0]
        if not others or row is None:
            return None
        return Witness(block.model[0], target[others[0]], block.file[row], written[others[0]])
    if block.loose and not indent_of(block.model[0]):
        # A first line copied from its first non-blank character: its (missing) indentation
        # was never typed, so the target's first line says nothing of the frame.
        return None
    model = next((i for i, m in enumerate(block.model) if m.strip()), None)
    first = next((j for j, t in enumerate(target) if t.strip()), None)
    if model is None or first is None or block.rows[model] is None:
        return None
    row = block.rows[model]
    assert row is not None
    return Witness(block.model[model], target[first], block.file[row], written[first])


def _witnesses(
    block: Block, target: Sequence[str], ops: Sequence[Opcode], written: Sequence[str]
) -> tuple[list[Witness], list[Witness]]:
    restated: list[Witness] = []
    changed: list[Witness] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag not in ("equal", "replace") or i2 - i1 != j2 - j1:
            continue
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
            row = block.rows[i]
            if row is None or not block.model[i].strip() or (block.loose and i == 0):
                continue
            witness = Witness(block.model[i], target[j], block.file[row], written[j])
            (restated if tag == "equal" else changed).append(witness)
    return restated, changed


def _changed_line(block: Block, i: int, target: str, placed: str) -> str:
    """A file line that the target restates or changes in place."""
    model = block.model[i]
    row = block.rows[i]
    assert row is not None
    found = block.file[row]
    if target == model:
        return found
    if not target.strip():
        return ""
    indent = indent_of(found) if _takes_file_indent(block, i, target) else indent_of(placed)
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


def _describe(pairs: Sequence[Pair], indents: Sequence[str]) -> str:
    def columns(values: Sequence[str]) -> str:
        return ", ".join(str(n) for n in sorted({width(v) for v in values}))

    return (
        f"source_text's indentation (columns {columns([m for m, _ in pairs])}) is the file's "
        f"(columns {columns([f for _, f in pairs])}), which leaves no place for target_text's "
        f"(columns {columns(indents)})"
    )


__all__ = ["Block", "Mapping", "merge", "merge_chars"]
