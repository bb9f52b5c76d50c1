"""What tells apart the places a source matches, for the `ambiguous` refusal: for each place,
the nearest line above or below it that no other place has at that distance (or, when the
places differ in their own lines, their indentation), quoted with the place so that the model's
next call can take the one it means.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from harness9.tools.edit import refusals as errors
from harness9.tools.edit.hint import quote

_REACH = 6  # lines above and below a place searched for one that tells the places apart
_COMPARED = 20  # places compared; more are listed by line only
_QUOTED = 4  # places quoted
_PLACE_LINES = 12  # lines quoted of one place


@dataclass(frozen=True, slots=True)
class Place:
    """A matched place: its first and last line index in the file."""

    first: int
    last: int


def ambiguous(level: int, text: str, starts: Sequence[int], height: int) -> errors.EditError:
    """The refusal of a source that matched at `level` at the offsets `starts` of `text` (LF
    or CRLF), each place `height` lines more than its first."""
    firsts = [text.count("\n", 0, at) for at in starts[:1]]
    for previous, at in pairwise(starts):
        firsts.append(firsts[-1] + text.count("\n", previous, at))
    return refused(level, text.split("\n"), [Place(n, n + height) for n in firsts])


def refused(level: int, file_lines: Sequence[str], places: Sequence[Place]) -> errors.EditError:
    """The refusal of a source that matched `places` of the file at `level`."""
    return errors.ambiguous(level, [place.first + 1 for place in places],
                            told_apart(file_lines, places))


def told_apart(file_lines: Sequence[str], places: Sequence[Place]) -> str:
    """The sentences and quotes that tell `places` apart; "" when there are too many to
    compare, or nothing near any quoted place tells it apart."""
    if not 1 < len(places) <= _COMPARED:
        return ""
    if _distinct([_own(file_lines, p) for p in places]):
        shown = "\n\n".join(_quote(file_lines, p, 0, 0) for p in places[:_QUOTED])
        return (" The places differ in their indentation: copy source_text with the exact "
                f"indentation of the one you mean.\n{shown}{_more(places)}")
    quotes: list[str] = []
    bare = 0
    for place in places[:_QUOTED]:
        up, down = _beside(file_lines, places, place)
        bare += (up, down) == (0, 0)
        # A place with nothing of its own beside it is quoted with a line either side.
        quotes.append(_quote(file_lines, place, up or int(not down), down or int(not up)))
    if bare == len(quotes):
        return ""  # nothing nearby tells them apart: the plain advice
    note = (f" ({bare} of them {'has' if bare == 1 else 'have'} none within {_REACH} lines: "
            "include more of the code around it.)" if bare else "")
    return (" Each place is quoted with the nearest line beside it that the others do not "
            "have there: include that line in source_text (and in target_text, unchanged) to "
            f"take the place you mean.{note}\n" + "\n\n".join(quotes) + _more(places))


def _beside(file_lines: Sequence[str], places: Sequence[Place], place: Place
            ) -> tuple[int, int]:
    """(lines above, lines below) `place` to its nearest line that no other place has at the
    same distance; (0, 0) when there is none within reach."""
    others = [p for p in places if p != place]
    for distance in range(1, _REACH + 1):
        above = _line(file_lines, place.first - distance)
        if above is not None and all(
                _line(file_lines, p.first - distance) != above for p in others):
            return distance, 0
        below = _line(file_lines, place.last + distance)
        if below is not None and all(
                _line(file_lines, p.last + distance) != below for p in others):
            return 0, distance
    return 0, 0


def _quote(file_lines: Sequence[str], place: Place, up: int, down: int) -> str:
    """`place` with `up` lines above it and `down` below, at most `_PLACE_LINES` lines."""
    start = max(0, place.first - up)
    end = min(len(file_lines), place.last + down + 1, start + _PLACE_LINES)
    return quote(file_lines, start, end - start)


def _more(places: Sequence[Place]) -> str:
    more = len(places) - _QUOTED
    return f"\n(and {more} more place{'s' if more > 1 else ''})" if more > 0 else ""


def _line(file_lines: Sequence[str], index: int) -> str | None:
    """A file line as compared (its text without surrounding whitespace), or None when it is
    outside the file or blank (no line to copy)."""
    if not 0 <= index < len(file_lines):
        return None
    text = file_lines[index].strip()
    return text or None


def _own(file_lines: Sequence[str], place: Place) -> str:
    return "\n".join(file_lines[place.first : place.last + 1])


def _distinct(keys: Sequence[str | None]) -> bool:
    return None not in keys and len(set(keys)) == len(keys)
