"""A source that matches several places: the lines the model means are repeated elsewhere in
the file (a statement pasted into another function), and its source holds only them.

No tool can tell which place is meant, so a refusal is the only right answer; the case also
keeps the file the model meant (`Case.meant`), so that the survey can check that the refusal
leads its second call there (see `retry`): the refusal must quote each place beside what
tells it apart.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from .classes import TWO, Case, Line, _edit, _file, _join, _span, render


@st.composite
def repeated(draw: st.DrawFn) -> Case:
    """The block at `a` is also pasted after another statement of its depth; the source is the
    block alone, the target its edit; the model means the first copy or the pasted one."""
    language, indent, lines = draw(_file(TWO))
    a, b = _span(draw, lines, (1, 2))
    block = lines[a:b]
    depth = block[0].depth
    assume(all(line.depth == depth for line in block))
    # Another statement of the same depth, away from the block, to paste it after.
    spots = [i for i, line in enumerate(lines)
             if line.depth == depth and line.text and not a - 2 <= i < b + 1
             and not line.text.endswith((":", "{")) and line.text != "}"]
    assume(spots)
    c = draw(st.sampled_from(spots))
    pasted = [Line(line.depth, line.text) for line in block]
    both = [*lines[: c + 1], *pasted, *lines[c + 1 :]]
    new = draw(_edit(lines, a, b, language))
    meant_first = draw(st.booleans())
    at = (a if a < c else a + len(pasted)) if meant_first else c + 1
    meant = [*both[:at], *new, *both[at + len(block) :]]
    variant = "first" if meant_first == (a < c) else "second"
    return Case("repeated", variant, render(both, indent), _join([indent.line(x) for x in block]),
                _join([indent.line(x) for x in new]), frozenset(),
                meant=render(meant, indent))
