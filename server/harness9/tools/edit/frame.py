"""Which frame `target_text` was typed in: the model's source indentation, or the file's.

A model that copies `source_text` with drifted indentation often types `target_text` the same way
(then its indentation must be mapped onto the file's), but just as often types the target
correctly for the file (then it must be used as written; mapping it again would double or halve
it). The evidence, in order:

1. the first lines: the first target line keeps the indentation of the first source line (the
   source's frame) or of the first file line (the file's);
2. the lines the target restates: each restated line whose indentation equals the source's (and
   not the file's), or the file's (and not the source's), votes for that frame;
3. the same for lines the target changes in place (one line for one line);
4. with no vote at all: the frame that moves every restated line by the same amount, when they
   span several depths and the other frame would change their relative nesting.

The first level that has evidence decides. Votes for both frames at that level are settled only
when one frame would put target lines off the file's indentation grid (a 2-space line in a
4-space file) and the other would not; no evidence at all only when the frames differ in
nothing but tabs against spaces. Otherwise the edit is refused: guessing is how an edit
silently breaks a file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from harness9.tools.edit.indent import Mapping, indent_of, width


class Frame(Enum):
    """Where `target_text`'s indentation comes from."""

    SOURCE = "source"  # typed like source_text: map it onto the file's
    FILE = "file"  # typed like the file: use it as written


@dataclass(frozen=True, slots=True)
class Witness:
    """One line seen three times: as the model's source line, its target line and the file's."""

    source: str
    target: str
    file: str
    # The target line as the file frame would write it (tabs typed into a file of spaces
    # become its units): a line votes for the file only where both it and the line as typed
    # are where the file has the line.
    written: str | None = None

    def unindented_copy(self) -> bool:
        """Whether the source and target lines are both unindented where the file's is not:
        a line copied from its first non-blank character looks just so, whatever frame the
        rest of the target is typed in."""
        return not indent_of(self.source) and not indent_of(self.target) and bool(
            indent_of(self.file)
        )

    def tells(self) -> bool:
        """Whether the source and the file indent this line to different columns."""
        return width(indent_of(self.source)) != width(indent_of(self.file))

    def vote(self) -> Frame | None:
        """The frame this line speaks for, if it tells them apart (in columns: tabs and
        spaces that reach the same column are the same indentation)."""
        s, t, f = (width(indent_of(line)) for line in (self.source, self.target, self.file))
        w = t if self.written is None else width(indent_of(self.written))
        if s == f:
            return None
        if t == s:
            return Frame.SOURCE
        if t == f and w == f:  # where the file has it, as typed and as it would be written
            return Frame.FILE
        return None


class Unclear(Exception):
    """The evidence is missing or contradicts itself; `reason` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def decide(
    first: Witness | None,
    restated: Sequence[Witness],
    changed: Sequence[Witness],
    mapping: Mapping | None,
    target_indents: Sequence[str],
    fits_file: Callable[[Frame], bool],
    agree_in_style: bool,
    keeps_nesting: Callable[[Sequence[Witness], Frame], bool],
    *,
    weak_first: bool = False,
) -> Frame:
    """The frame `target_text` was typed in, or `Unclear`.

    `mapping` maps the model's source indentation onto the file's (None when it cannot place
    every target line); when it leaves every target indentation as it is, both frames agree.
    `fits_file` tells whether a frame puts every target line on the file's indentation grid;
    With `weak_first` (the first lines both copied without indentation, see
    `Witness.unindented_copy`), lines restated (else changed) all typed for the file outvote
    the first lines.
    `agree_in_style` whether both frames put every line at the same width once tabs and spaces
    are written the file's way (then no evidence is needed). When no line votes, `keeps_nesting`
    tells whether a frame moves the restated lines (`restated`, which may be re-indented) by
    one amount while they span several depths: a frame that changes how they nest relative to
    each other reads the edit as restructuring them, so when only one frame keeps their nesting
    it is the one (a block re-indented as a whole, typed in the source's unit).
    The caller refuses a `SOURCE` answer when `mapping` is None.
    """
    if mapping is not None and all(mapping(ind) == ind for ind in target_indents):
        return Frame.FILE
    if weak_first and _all_for_file(restated, changed):
        return Frame.FILE
    tiers: list[Sequence[Witness]] = [[first] if first is not None else [], restated, changed]
    voted = _voted(tiers, fits_file)
    if voted is not None:
        return voted
    if agree_in_style and not any(w.tells() for tier in tiers for w in tier):
        return Frame.SOURCE
    nesting = [frame for frame in Frame if keeps_nesting(restated, frame)]
    if len(nesting) == 1:
        return nesting[0]
    raise Unclear(
        "nothing in target_text tells whether it is indented like source_text or like the file"
    )


def _all_for_file(*tiers: Sequence[Witness]) -> bool:
    """Whether every telling line of the first tier that has one votes for the file's frame,
    lines copied without indentation aside."""
    for tier in tiers:
        cast = [w.vote() for w in tier if w.tells() and not w.unindented_copy()]
        if cast:
            return all(vote is Frame.FILE for vote in cast)
    return False


def _voted(tiers: Sequence[Sequence[Witness]], fits_file: Callable[[Frame], bool]) -> Frame | None:
    """The frame the first tier with votes votes for (see `decide`); None when none votes."""
    for n, tier in enumerate(tiers):
        cast = [w.vote() for w in tier if w.tells()]
        votes = {vote for vote in cast if vote is not None}
        if votes and n and None in cast:
            # A line at a telling place that neither frame keeps: a third frame, or a
            # re-indentation that makes the other votes say nothing.
            raise Unclear("some of its lines are indented like neither source_text nor the file")
        if len(votes) == 2:
            plausible = [frame for frame in Frame if fits_file(frame)]
            if len(plausible) == 1:
                return plausible[0]
            raise Unclear(
                "some lines of target_text are indented like source_text and others like the "
                "file"
            )
        if votes:
            return votes.pop()
    return None
