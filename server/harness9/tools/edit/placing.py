"""Where a whole-line match's target lines go: each one's indentation in the file's frame.

`Block` is the file lines of a match and the model's source lines matched to them. A target line
that restates or changes a source line keeps the indentation the evidence says the model meant:
the file's frame (the model copied the file's indentation) or the source's (it typed its own,
then mapped onto the file's); a new line is placed likewise (see `frame.decide`). A loose first
line (its indentation not, or not all, typed) takes the file line's indentation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
from harness9.tools.edit.shifted import two_readings

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


def place(block: Block, target: Sequence[str], ops: Sequence[Opcode]) -> list[str]:
    """Every target line with its indentation in the file's frame."""
    pairs = pairs_of(block)
    first_j = _first_target_of_loose(block, target, ops)
    indents = [indent_of(t) for j, t in enumerate(target) if t.strip() and j != first_j]
    if is_identity(pairs):
        _check_loose_first(block, target, ops, first_j)
        return _with_first(block, _as_written(block, target), first_j)
    mapping = choose_mapping(pairs, indents, block.context)
    written = _as_written(block, target)

    def fits(frame: Frame) -> bool:
        return _on_grid(block.context, indents, mapping if frame is Frame.SOURCE else None)

    first = None if ops and ops[0][0] == "delete" else _first(block, target, first_j, written)
    weak = (not block.loose and first is not None and first.unindented_copy()
            and _copied_first(target, ops) is not None)
    restated, changed = _witnesses(block, target, ops, written)
    try:
        frame = decide(
            first, restated, changed, mapping, indents, fits,
            mapping is not None and _same_in_style(target, mapping, block.context),
            lambda restated, frame: _only_moves(target, ops)
            and _keeps_nesting(restated, mapping if frame is Frame.SOURCE else None),
            weak_first=weak,
        )
        if weak and frame is Frame.FILE:
            first_j = _copied_first(target, ops)
    except Unclear as exc:
        reason = two_readings([*restated, *changed]) or exc.reason
        raise errors.unclear_indentation(block.level, block.line, reason, block.file) from None
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


def _copied_first(target: Sequence[str], ops: Sequence[Opcode]) -> int | None:
    """The first target line when it stands for the first source line (restated or changed in
    place): copied, like it, from its first non-blank character in a target otherwise typed
    for the file, it takes the file line's indentation."""
    first = next(j for j, t in enumerate(target) if t.strip())
    for tag, i1, i2, j1, j2 in ops:
        if i1 == 0 < i2 and j1 == first < j2 and (tag == "equal" or i2 - i1 == j2 - j1):
            return first
    return None


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
    # model's habit, not its intent; so are they at any level when neither the source nor the
    # file's lines there use that style.
    if not (block.level >= 3 or _other_style_typed(block, target)):
        return list(target)
    # An indentation the matched file lines have is the file's own, however irregular (a
    # GNU-style file's tab, spaces, tab): written as typed.
    own = {indent_of(line) for line in block.file if line.strip()}
    return [
        line if indent_of(line) in own else fresh
        for line, fresh in zip(target, restyle(target, block.context), strict=True)
    ]


def _styles(lines: Sequence[str]) -> set[str]:
    """The first characters of the lines' indentation (`\t`, ` `)."""
    return {line[0] for line in lines if line[:1] in (" ", "\t") and line.strip()}


def _other_style_typed(block: Block, target: Sequence[str]) -> bool:
    """Whether the source indents its lines in the file's style, and no source line or matched
    file line in the other (so the target's lines in that style are a slip; a source with no
    indented line tells nothing: a Makefile's tab is no slip)."""
    if not _styles(target) - _styles(block.model):
        return False  # nothing typed in another style (and the file's style is not read)
    context = block.context
    if context.mixed or context.unit is None:
        return False
    wrong, right = (" ", "\t") if context.tabs else ("\t", " ")
    lines = (*block.model, *block.file)
    return any(indent_of(line).startswith(right) for line in block.model) and not any(
        indent_of(line).startswith(wrong) for line in lines
    )


def pairs_of(block: Block) -> list[Pair]:
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
            if takes_file_indent(block, 0, target[j1]):
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


def takes_file_indent(block: Block, i: int, target: str) -> bool:
    """Whether `target`, standing for model line `i`, is indented as the loose first line was
    typed, or not at all where that typing was a slip: either way it means the file's."""
    if not block.loose or i != 0 or block.rows[0] is None:
        return False
    typed, indent = indent_of(block.model[0]), indent_of(target)
    return indent == typed or (not indent and typed != indent_of(block.file[block.rows[0]]))


def _first(
    block: Block, target: Sequence[str], first_j: int | None, written: Sequence[str]
) -> Witness | None:
    if block.loose and not indent_of(block.model[0]) and len(pairs_of(block)) == 1:
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


def _describe(pairs: Sequence[Pair], indents: Sequence[str]) -> str:
    def columns(values: Sequence[str]) -> str:
        return ", ".join(str(n) for n in sorted({width(v) for v in values}))

    return (
        f"source_text's indentation (columns {columns([m for m, _ in pairs])}) is the file's "
        f"(columns {columns([f for _, f in pairs])}), which leaves no place for target_text's "
        f"(columns {columns(indents)})"
    )
