"""Indentation mapping for edits matched while ignoring indentation.

When `source_text` matches file lines only once indentation is ignored, each matched line gives a
pair (the source line's indentation, the file line's indentation). A *mapping* turns any
indentation written by the model into the file's; it must reproduce every pair exactly, which is
also the structure check (a block whose lines nest differently in the file is not a match). The
mapping then re-indents `target_text`, so new code lands at the file's indentation with the
model's relative nesting. Candidates, tried in order: identical indentation, a prefix added, a
prefix removed, a linear map of widths (unit change such as 2 → 4 spaces, tabs ↔ spaces).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from math import gcd

TAB_SIZE = 8  # the width of a tab when comparing indentation written with tabs and with spaces

Pair = tuple[str, str]  # (model indentation, file indentation)
Mapping = Callable[[str], "str | None"]


def indent_of(line: str) -> str:
    """The leading spaces and tabs of `line`."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str) -> int:
    """The display width of an indentation."""
    return len(indent.expandtabs(TAB_SIZE))


@dataclass(frozen=True, slots=True)
class Context:
    """What the file says about its own indentation, near the match."""

    tabs: bool  # the file indents with tabs
    unit: int | None  # the most common indentation step in columns, if any
    # The file mixes them GNU-style: steps of spaces, a tab for every 8 columns.
    mixed: bool = False


def file_context(lines: Sequence[str]) -> Context:
    """Read the indentation style of `lines` (some file lines around the match)."""
    indents = [indent_of(line) for line in lines if line.strip()]
    tabbed = sum(ind.startswith("\t") for ind in indents)
    spaced = sum(ind.startswith(" ") for ind in indents)
    widths = [width(ind) for ind in indents]
    steps = Counter(b - a for a, b in pairwise(widths) if b > a)
    unit = steps.most_common(1)[0][0] if steps else None
    if tabbed and spaced and unit and unit < TAB_SIZE and all(map(is_mixed, indents)):
        return Context(tabs=False, unit=unit, mixed=True)
    tabs = tabbed > spaced
    return Context(tabs=tabs, unit=TAB_SIZE if tabs else unit)


def mixed_indent(columns: int) -> str:
    """`columns` of indentation written GNU-style: a tab for every 8 columns, then spaces."""
    return "\t" * (columns // TAB_SIZE) + " " * (columns % TAB_SIZE)


def is_mixed(indent: str) -> bool:
    """Whether `indent` is written GNU-style (see `mixed_indent`)."""
    return indent == mixed_indent(width(indent))


def _prefix_added(pairs: Sequence[Pair]) -> Mapping | None:
    model, found = pairs[0]
    if not found.endswith(model):
        return None
    prefix = found[: len(found) - len(model)]
    return lambda indent: prefix + indent


def _prefix_removed(pairs: Sequence[Pair]) -> Mapping | None:
    model, found = pairs[0]
    if not model.endswith(found):
        return None
    prefix = model[: len(model) - len(found)]
    return lambda indent: indent[len(prefix) :] if indent.startswith(prefix) else None


@dataclass(frozen=True, slots=True)
class _Linear:
    scale: Fraction
    offset: Fraction
    tabs: bool

    def __call__(self, indent: str) -> str | None:
        columns = self.scale * width(indent) + self.offset
        if columns < 0 or columns.denominator != 1:
            return None
        n = int(columns)
        return mixed_indent(n) if self.tabs else " " * n


def _model_unit(indents: Sequence[str]) -> int | None:
    widths = sorted({width(ind) for ind in indents})
    unit = 0
    for a, b in pairwise(widths):
        unit = gcd(unit, b - a)
    return unit or None


def _linear(pairs: Sequence[Pair], target: Sequence[str], context: Context) -> _Linear | None:
    points = sorted({(width(m), width(f)) for m, f in pairs})
    (x1, y1), (x2, y2) = points[0], points[-1]
    if x2 != x1:
        scale = Fraction(y2 - y1, x2 - x1)
    else:
        # One level matched: the scale is the ratio of indentation units. The model's unit comes
        # from the target's own nesting only; the gap between source and target says nothing.
        model_unit = _model_unit(target)
        file_unit = context.unit or model_unit
        scale = Fraction(file_unit, model_unit) if model_unit and file_unit else Fraction(1)
    if scale <= 0:
        return None
    tabs = (
        context.mixed
        or any("\t" in f for _, f in pairs)
        or (not any(f for _, f in pairs) and context.tabs)
    )
    return _Linear(scale, y1 - scale * x1, tabs)


def _candidates(pairs: Sequence[Pair], target: Sequence[str], context: Context) -> list[Mapping]:
    linear = _linear(pairs, target, context)
    if linear is not None and not _scales_units(linear, pairs, context):
        linear = None
    found = [_prefix_added(pairs), _prefix_removed(pairs), linear]
    if _units_differ(pairs, target, context):
        # A one-level match says nothing about nesting; the file's own unit then beats a prefix
        # that would keep the model's (2-space nesting in a 4-space file).
        found = [linear, *found[:2]]
    return [mapping for mapping in found if mapping is not None and _fits(mapping, pairs)]


def _scales_units(linear: _Linear, pairs: Sequence[Pair], context: Context) -> bool:
    """Whether a map that scales widths turns the source's own step into the file's: a source
    nesting one step where the file has two (a dedent across two levels, a hanging indent) fits
    a map of scale 2, but that map would put every new nested line two steps deep."""
    if linear.scale == 1 or context.unit is None:
        return True
    model_unit = _model_unit([m for m, _ in pairs])
    return model_unit is None or model_unit * linear.scale == context.unit


def _units_differ(pairs: Sequence[Pair], target: Sequence[str], context: Context) -> bool:
    if len({width(m) for m, _ in pairs}) != 1:
        return False
    model_unit = _model_unit(target)
    return bool(model_unit and context.unit and model_unit != context.unit)


def _fits(mapping: Mapping, pairs: Sequence[Pair]) -> bool:
    return all(mapping(model) == found for model, found in pairs)


def same_structure(pairs: Sequence[Pair]) -> bool:
    """Whether some mapping turns every model indentation into its file indentation."""
    return bool(_candidates(pairs, [], Context(tabs=False, unit=None)))


def choose_mapping(
    pairs: Sequence[Pair], target_indents: Sequence[str], context: Context
) -> Mapping | None:
    """The first mapping that fits `pairs` and can place every target indentation, if any."""
    for mapping in _candidates(pairs, target_indents, context):
        if all(mapping(indent) is not None for indent in target_indents):
            return mapping
    return None


def reindent(lines: Sequence[str], mapping: Mapping) -> list[str]:
    """`lines` with their indentation mapped; blank lines become empty."""
    out = []
    for line in lines:
        if not line.strip():
            out.append("")
            continue
        indent = indent_of(line)
        out.append(f"{mapping(indent) or ''}{line[len(indent) :]}")
    return out


def restyle(lines: Sequence[str], context: Context) -> list[str]:
    """`lines` with indentation written in the other style (tabs in a file indented with
    spaces, or the reverse) rewritten in the file's, one indentation unit per unit; in a file
    that mixes them GNU-style, every line at its columns in the file's mix."""
    if context.mixed:
        return [_as_mixed(line) for line in lines]
    if context.unit is None:
        return list(lines)
    wrong = " " if context.tabs else "\t"
    indents = [indent_of(line) for line in lines if line.strip()]
    if not any(indent.startswith(wrong) for indent in indents):
        return list(lines)
    if context.tabs:
        unit = _model_unit(["", *(i for i in indents if i.startswith(" "))]) or TAB_SIZE
        unit = 4 if unit > 4 and unit % 4 == 0 else unit
    out = []
    for line in lines:
        indent = indent_of(line)
        if not line.strip() or not indent.startswith(wrong):
            out.append(line)
            continue
        lead = len(indent) - len(indent.lstrip(wrong))
        levels = lead if wrong == "\t" else lead // unit
        rest = indent[lead:] if wrong == "\t" else " " * (lead % unit) + indent[lead:]
        fresh = "\t" * levels if context.tabs else " " * (levels * context.unit)
        out.append(fresh + rest + line[len(indent) :])
    return out


def _as_mixed(line: str) -> str:
    """`line` with its indentation written GNU-style at the same columns (tabs at 8)."""
    if not line.strip():
        return line
    indent = indent_of(line)
    return mixed_indent(width(indent)) + line[len(indent) :]


def is_identity(pairs: Sequence[Pair]) -> bool:
    """Whether the model's indentation equals the file's on every matched line."""
    return all(model == found for model, found in pairs)
