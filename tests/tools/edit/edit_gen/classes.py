"""Edit cases by class of model slip, each carrying its oracle.

Every case is a file, the `source_text` / `target_text` a model sends with one kind of slip, and
what the call may do: the intended file and the defensible alternatives (any other applied result
is wrong), or nothing at all (`must_refuse`: the call cannot be read safely). Applied results
that write the slip as sent (an elision marker, a literal `\\n`) are *destructive*.

The classes (see `CLASSES`): mixed tab/space indentation, a drifted source with the target in the
file's frame, a one-line source copied without indentation, blank lines and moved lines, a stale
source near a look-alike block, no-break spaces in new indentation, elision markers, double-escaped
targets, BOM sources, line-number prefixes, a source cut in its second line, JSON-escaped sources.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count

from hypothesis import assume
from hypothesis import strategies as st

BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class Line:
    """A file line: its depth (in indentation steps) and its text ("" for a blank line)."""

    depth: int
    text: str


@dataclass(frozen=True, slots=True)
class Indent:
    """How indentation is written: `step` columns a depth, as tabs (`"tabs"`), spaces
    (`"spaces"`) or a tab for every 8 columns and spaces for the rest (`"mixed"`, GNU style)."""

    kind: str
    step: int

    def columns(self, depth: int) -> int:
        """The column a line of `depth` starts at."""
        return depth * (8 if self.kind == "tabs" else self.step)

    def of(self, columns: int) -> str:
        """`columns` written in this style."""
        if self.kind == "spaces":
            return " " * columns
        return "\t" * (columns // 8) + " " * (columns % 8)

    def line(self, line: Line, shift: int = 0) -> str:
        """`line` rendered, `shift` steps deeper (negative: shallower)."""
        if not line.text:
            return ""
        return self.of(self.columns(line.depth + shift)) + line.text


SPACES = Indent("spaces", 4)


@dataclass(slots=True)
class Case:
    """One call and its oracle."""

    name: str  # the class
    variant: str
    content: str
    source: str
    target: str
    accepted: frozenset[str]  # applied results that are right (empty: the call must be refused)
    marker: str = ""  # text that, written into the file, makes an applied result destructive
    refusable: bool = False  # a refusal is right too (the accepted reading is not certain)
    # Of a call that must be refused, the file the model meant (its second call should get
    # there from the refusal), or "".
    meant: str = ""
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def must_refuse(self) -> bool:
        """Whether the only right answer is a refusal."""
        return not self.accepted

    @property
    def may_refuse(self) -> bool:
        """Whether a refusal is a right answer (the only one, or beside the accepted files)."""
        return self.must_refuse or self.refusable


def judge(case: Case, result: str | None) -> str:
    """`applied` (an accepted result), `refused` (None), `destructive` or `wrong`."""
    if result is None:
        return "refused"
    if result in case.accepted:
        return "applied"
    if case.marker and case.marker in result and case.marker not in case.content:
        return "destructive"
    return "wrong"


def render(lines: list[Line], indent: Indent, *, bom: bool = False) -> str:
    """The file's text, LF line endings, a final newline."""
    return (BOM if bom else "") + "".join(indent.line(line) + "\n" for line in lines)


# --- files -----------------------------------------------------------------------------------


@st.composite
def program(draw: st.DrawFn, language: str, deepest: int = 3) -> list[Line]:
    """Two to four functions of numbered statements, nested blocks and blank lines."""
    lines: list[Line] = []
    numbers = count(1)

    def block(depth: int, budget: int) -> None:
        while budget > 0:
            kind = draw(st.integers(0, 6))
            if kind <= 3 or depth >= deepest:
                lines.append(Line(depth, _statement(language, next(numbers))))
            elif kind == 4:
                if lines and lines[-1].text:
                    lines.append(Line(0, ""))
            else:
                head, close = _opener(language, next(numbers))
                lines.append(Line(depth, head))
                block(depth + 1, draw(st.integers(1, 4)))
                if close:
                    lines.append(Line(depth, close))
            budget -= 1

    for _ in range(draw(st.integers(2, 4))):
        head, close = _opener(language, next(numbers), top=True)
        lines.append(Line(0, head))
        block(1, draw(st.integers(2, 6)))
        if lines[-1].text == "":
            lines.pop()
        if close:
            lines.append(Line(0, close))
        lines.append(Line(0, ""))
    return lines[:-1]


TWO = (Indent("spaces", 4), Indent("tabs", 8))
THREE = (Indent("spaces", 4), Indent("spaces", 2), Indent("tabs", 8))


@st.composite
def _file(draw: st.DrawFn, indents: tuple[Indent, ...]) -> tuple[str, Indent, list[Line]]:
    """A program in a drawn language, and how it is indented."""
    language = draw(st.sampled_from(("brace", "python")))
    return language, draw(st.sampled_from(indents)), draw(program(language))


@st.composite
def _edited(
    draw: st.DrawFn, indents: tuple[Indent, ...], size: tuple[int, int]
) -> tuple[Indent, list[Line], tuple[int, int], list[Line]]:
    """A program, how it is indented, a block of it and that block's lines after a change."""
    language, indent, lines = draw(_file(indents))
    a, b = _span(draw, lines, size)
    return indent, lines, (a, b), draw(_edit(lines, a, b, language))


def _statement(language: str, n: int) -> str:
    if language == "python":
        return f"total_{n} = compute(value_{n}, {n})"
    return f"total_{n} = compute (value_{n}, {n});"


def _opener(language: str, n: int, *, top: bool = False) -> tuple[str, str | None]:
    if language == "python":
        return (f"def function_{n}(value):" if top else f"if value > {n}:"), None
    return (f"int function_{n} (int value) {{" if top else f"if (value > {n}) {{"), "}"


def _new_line(language: str, n: int) -> str:
    return f"added_{n} = {n}" if language == "python" else f"added_{n} ();"


def _modified(text: str) -> str:
    return text.replace("compute", "measure", 1) if "compute" in text else text + "  # new"


def _span(draw: st.DrawFn, lines: list[Line], size: tuple[int, int] = (1, 4)) -> tuple[int, int]:
    """A block of statement lines (no blank line, no opener at its end) to edit."""
    starts = [i for i, line in enumerate(lines) if _editable(line)]
    assume(starts)
    a = draw(st.sampled_from(starts))
    b = a + draw(st.integers(*size))
    assume(b <= len(lines) and all(_editable(line) for line in lines[a:b]))
    return a, b


def _editable(line: Line) -> bool:
    return line.depth > 0 and bool(line.text) and line.text != "}"


@st.composite
def _edit(draw: st.DrawFn, lines: list[Line], a: int, b: int, language: str) -> list[Line]:
    """The block's lines after a change: one modified, or one added after a line."""
    block = lines[a:b]
    i = draw(st.integers(0, len(block) - 1))
    if draw(st.booleans()):
        return [*block[:i], Line(block[i].depth, _modified(block[i].text)), *block[i + 1 :]]
    added = Line(block[i].depth, _new_line(language, draw(st.integers(900, 999))))
    return [*block[: i + 1], added, *block[i + 1 :]]


def _columns(line: str) -> int:
    return len(line[: len(line) - len(line.lstrip(" \t"))].expandtabs(8))


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


# --- the classes -----------------------------------------------------------------------------


@st.composite
def mixed_tabs(draw: st.DrawFn) -> Case:
    """1. A GNU-style file (a tab per 8 columns, 2- or 4-column steps); the source and target typed
    exactly, with tabs expanded, or shifted a step. The new lines take the file's own mix."""
    language = draw(st.sampled_from(("brace", "python")))
    indent = Indent("mixed", draw(st.sampled_from((2, 4))))
    lines = draw(program(language, deepest=5))
    a, b = _span(draw, lines)
    assume(any(indent.columns(line.depth) >= 8 for line in lines[a:b]))
    new = draw(_edit(lines, a, b, language))
    variant = draw(st.sampled_from(("exact", "expanded", "shifted", "target_exact", "trailing")))
    typed = indent if variant in ("exact", "trailing") else Indent("spaces", indent.step)
    shift = draw(st.sampled_from((-1, 1))) if variant in ("shifted", "target_exact") else 0
    assume(all(line.depth + shift >= 0 for line in [*lines[a:b], *new]))
    source_lines = [typed.line(line, shift) for line in lines[a:b]]
    if variant == "trailing":  # a slip that leaves the exact level, indentation typed exactly
        source_lines[-1] += " "
    source = _join(source_lines)
    if variant in ("target_exact", "trailing"):
        target = _join([indent.line(line) for line in new])
    else:
        target = _join([typed.line(line, shift) for line in new])
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    return Case("mixed_tabs", variant, render(lines, indent), source, target,
                frozenset({intended}))


@st.composite
def drift(draw: st.DrawFn) -> Case:
    """2. A source drifted by whole steps and a target typed in the file's frame; or a target
    drifted otherwise than its source (read back onto the source's frame; a refusal is right
    too, see below)."""
    indent, lines, (a, b), new = draw(_edited(THREE, (2, 4)))
    low = min(line.depth for line in lines[a:b])
    shift = draw(st.sampled_from([s for s in (-2, -1, 1, 2) if s >= -low]))
    variant = draw(st.sampled_from(("file", "file", "other")))
    if variant == "file":
        other = 0
    else:
        other = draw(st.sampled_from([s for s in (-1, 1, 2) if s >= -low and s not in (0, shift)]))
    typed = draw(st.sampled_from((indent, Indent("mixed", 4) if indent.kind == "spaces" else
                                  Indent("spaces", 4))))
    # Another unit can bring a shifted source back to the file's columns: then it has not
    # drifted, and a target drifted otherwise reads as the edit's own indentation.
    assume(any(_columns(typed.line(line, shift)) != indent.columns(line.depth)
               for line in lines[a:b]))
    source = _join([typed.line(line, shift) for line in lines[a:b]])
    target_indent = indent if variant == "file" else typed
    # A target drifted otherwise whose lines land on the file's columns reads as typed for
    # the file: no tool can tell.
    assume(variant == "file" or all(
        _columns(target_indent.line(line, other)) != indent.columns(line.depth)
        for line in new))
    target = _join([target_indent.line(line, other) for line in new])
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    # A target drifted otherwise, every line the same steps from its source line, reads as
    # well as the block re-indented by those steps (as a block moved into a loop above it is):
    # a refusal is right too.
    return Case("drift", variant, render(lines, indent), source, target, frozenset({intended}),
                refusable=variant == "other")


@st.composite
def one_line(draw: st.DrawFn) -> Case:
    """3. A one-line source copied from its first non-blank character; the target restates it
    and adds lines, typed without the file's indentation or with it."""
    language, indent, lines = draw(_file(THREE))
    a, b = _span(draw, lines, (1, 1))
    line = lines[a]
    added = Line(line.depth, _new_line(language, draw(st.integers(900, 999))))
    new = [line, added] if draw(st.booleans()) else [added, line]
    variant = draw(st.sampled_from(("unindented", "as_file", "first_unindented")))
    if variant == "unindented":
        target = _join([item.text for item in new])
    elif variant == "as_file":
        target = _join([indent.line(item) for item in new])
    else:
        target = _join([new[0].text, indent.line(new[1])])
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    return Case("one_line", variant, render(lines, indent), line.text, target,
                frozenset({intended}))


@st.composite
def blank_lines(draw: st.DrawFn) -> Case:
    """4. Lines moved across a blank line; a blank line the source drops or adds, repeated or
    not by the target."""
    _, indent, lines = draw(_file(TWO))
    at = [i for i in range(1, len(lines) - 2)
          if not lines[i].text and _editable(lines[i - 1]) and _editable(lines[i + 1])]
    variant = draw(st.sampled_from(("move", "dropped", "dropped_kept", "added")))
    if variant == "added":
        a, b = _span(draw, lines, (2, 3))
        block = lines[a:b]
        gap = draw(st.integers(1, len(block) - 1))
        typed = [*block[:gap], Line(0, ""), *block[gap:]]
        k = draw(st.integers(0, len(block) - 1))
        changed = [*block[:k], Line(block[k].depth, _modified(block[k].text)), *block[k + 1 :]]
        typed_new = [*changed[:gap], Line(0, ""), *changed[gap:]]
        keep = [*lines[:a], *changed, *lines[b:]]
        also = [*lines[:a], *typed_new, *lines[b:]]
        source, target = _join([indent.line(x) for x in typed]), _join(
            [indent.line(x) for x in typed_new])
        accepted = {render(keep, indent), render(also, indent)}
        return Case("blank_lines", variant, render(lines, indent), source, target,
                    frozenset(accepted))
    assume(at)
    gap = draw(st.sampled_from(at))
    a, b = gap - 1, gap + 2
    before, blank, after = lines[a:b]
    if variant == "move":
        new = [blank, after, before] if draw(st.booleans()) else [before, after, blank]
        if draw(st.booleans()):
            new = [after, blank, before]
        assume(new != lines[a:b])
        source = _join([indent.line(x) for x in lines[a:b]])
        target = _join([indent.line(x) for x in new])
        accepted = {render([*lines[:a], *new, *lines[b:]], indent)}
        if not new[0].text or not new[-1].text:
            # A blank edge of the target: read as noise (trimmed) or as the edit's own.
            bare = [x for x in new if x.text]
            accepted.add(render([*lines[:a], *bare, *lines[b:]], indent))
            accepted.add(render([*lines[:a], *new, *lines[b:]], indent))
        return Case("blank_lines", variant, render(lines, indent), source, target,
                    frozenset(accepted))
    changed = Line(after.depth, _modified(after.text))
    source = _join([indent.line(before), indent.line(after)])
    target_lines = [before, blank, changed] if variant == "dropped_kept" else [before, changed]
    target = _join([indent.line(x) for x in target_lines])
    kept = render([*lines[:a], before, blank, changed, *lines[b:]], indent)
    accepted = {kept}
    if variant == "dropped":
        accepted.add(render([*lines[:a], before, changed, *lines[b:]], indent))
    return Case("blank_lines", variant, render(lines, indent), source, target,
                frozenset(accepted))


@st.composite
def stale_lookalike(draw: st.DrawFn) -> Case:
    """5. A stale source (one line since changed in the file) whose only difference from a
    look-alike block elsewhere is trailing whitespace: the near match is not unique by a
    margin, so it must be refused."""
    language, indent, lines = draw(_file(TWO))
    a, b = _span(draw, lines, (2, 4))
    stale = lines[a:b]
    k = draw(st.integers(0, len(stale) - 1))
    # Changed inside the line: a stale line that is a prefix of the current one still matches it.
    changed = stale[k].text.replace(" > ", " >= ").replace("compute", "measure")
    current = [*stale[:k], Line(stale[k].depth, changed), *stale[k + 1 :]]
    look = [indent.line(x) for x in stale]
    j = draw(st.integers(0, len(look) - 1))
    look[j] += draw(st.sampled_from((" ", "  ", "\t")))
    files = [indent.line(x) for x in lines]
    text_lines = [*files[:a], *[indent.line(x) for x in current], *files[b:], "", *look]
    content = "".join(x + "\n" for x in text_lines)
    source = _join([indent.line(x) for x in stale])
    new = draw(_edit(stale, 0, len(stale), language))
    target = _join([indent.line(x) for x in new])
    return Case("stale_lookalike", "trailing", content, source, target, frozenset())


_LOOKALIKE_SPACES = "\u00a0\u2002\u2003\u2007\u2009\u202f"


@st.composite
def nbsp_indent(draw: st.DrawFn) -> Case:
    """6. New target lines whose indentation has no-break or other look-alike spaces."""
    indent, lines, (a, b), new = draw(_edited((Indent("spaces", 4), Indent("spaces", 2)), (1, 4)))
    odd = draw(st.sampled_from(_LOOKALIKE_SPACES))
    variant = draw(st.sampled_from(("tail", "whole", "source_too")))
    source_lines = [indent.line(x) for x in lines[a:b]]
    target_lines = []
    for line in new:
        text = indent.line(line)
        if line not in lines[a:b] or variant == "source_too":
            text = _spoil(text, odd, whole=variant != "tail")
        target_lines.append(text)
    if variant == "source_too":
        source_lines = [_spoil(x, odd, whole=True) for x in source_lines]
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    return Case("nbsp_indent", variant, render(lines, indent), _join(source_lines),
                _join(target_lines), frozenset({intended}))


def _spoil(line: str, odd: str, *, whole: bool) -> str:
    """`line` with its indentation's spaces (or the last two) turned into `odd`."""
    body = line.lstrip(" ")
    lead = len(line) - len(body)
    if not lead:
        return line
    count = lead if whole else min(2, lead)
    return " " * (lead - count) + odd * count + body


_MARKERS = {
    "brace": ("// ... existing code ...", "/* rest unchanged */", "// ...",
              "/* ... */", "// rest of the function unchanged"),
    "python": ("# ...", "# ... existing code ...", "# rest unchanged",
               "# ... rest of the body ..."),
}


@st.composite
def elision(draw: st.DrawFn) -> Case:
    """7. A target that stands for unchanged source lines with an elision marker the source and
    the file lack: writing it destroys those lines, so it must be refused."""
    language, indent, lines = draw(_file(TWO))
    a, b = _span(draw, lines, (3, 5))
    block = lines[a:b]
    marker = draw(st.sampled_from(_MARKERS[language]))
    variant = draw(st.sampled_from(("middle", "end", "start")))
    first = Line(block[0].depth, _modified(block[0].text))
    kept = Line(block[1].depth, marker)
    if variant == "middle":
        new = [first, kept, block[-1]]
    elif variant == "end":
        new = [first, kept]
    else:
        new = [kept, Line(block[-1].depth, _modified(block[-1].text))]
    source = _join([indent.line(x) for x in block])
    target = _join([indent.line(x) for x in new])
    return Case("elision", variant, render(lines, indent), source, target, frozenset(),
                marker=marker)


@st.composite
def escaped_target(draw: st.DrawFn) -> Case:
    """8. A target whose newlines (and tabs) arrived as literal `\\n` (`\\t`) while the source
    matched real lines: refused, never written as one long line."""
    indent, lines, (a, b), new = draw(_edited(TWO, (2, 4)))
    source = _join([indent.line(x) for x in lines[a:b]])
    target = "\\n".join(indent.line(x) for x in new).replace("\t", "\\t")
    variant = "tabs" if "\\t" in target else "newlines"
    return Case("escaped_target", variant, render(lines, indent), source, target, frozenset(),
                marker="\\n")


@st.composite
def bom_source(draw: st.DrawFn) -> Case:
    """9. An edit at the top of a BOM file whose source (and maybe target) starts with the BOM,
    as read_file shows it."""
    language = draw(st.sampled_from(("brace", "python")))
    indent = Indent("spaces", 4)
    lines = draw(program(language))
    b = draw(st.integers(1, 3))
    k = draw(st.integers(0, b - 1))
    assume(lines[k].text)
    new = [*lines[:k], Line(lines[k].depth, _modified(lines[k].text)), *lines[k + 1 : b]]
    variant = draw(st.sampled_from(("source", "both")))
    source = BOM + _join([indent.line(x) for x in lines[:b]])
    target = ("" if variant == "source" else BOM) + _join([indent.line(x) for x in new])
    intended = render([*new, *lines[b:]], indent, bom=True)
    return Case("bom_source", variant, render(lines, indent, bom=True), source, target,
                frozenset({intended}))


@st.composite
def line_prefixes(draw: st.DrawFn) -> Case:
    """10. A source copied with line-number prefixes (`{n}| ` of the error's quote, or `cat -n`'s
    `{n:6}\\t`): read without them when the numbers are the file's at the match, else refused."""
    indent, lines, (a, b), new = draw(_edited(TWO, (1, 4)))
    style = draw(st.sampled_from(("quote", "cat")))
    variant = draw(st.sampled_from(("plain_target", "prefixed_target", "wrong_numbers")))
    offset = draw(st.sampled_from((-3, -1, 1, 2, 7))) if variant == "wrong_numbers" else 0
    numbers = range(a + 1 + offset, b + 1 + offset)
    assume(numbers.start >= 1)
    digits = len(str(numbers[-1]))

    def prefix(n: int) -> str:
        return f"{n:>{digits}}| " if style == "quote" else f"{n:>6}\t"

    source = _join([prefix(n) + indent.line(x) for n, x in zip(numbers, lines[a:b], strict=True)])
    target_lines = [indent.line(x) for x in new]
    if variant == "prefixed_target":
        target_lines = [prefix(a + 1 + i) + x for i, x in enumerate(target_lines)]
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    accepted = frozenset() if variant == "wrong_numbers" else frozenset({intended})
    return Case("line_prefixes", f"{style}_{variant}", render(lines, indent), source,
                _join(target_lines), accepted)


@st.composite
def second_line_cut(draw: st.DrawFn) -> Case:
    """11a. A source that ends inside its second line, the target changing only what it covers."""
    _, indent, lines = draw(_file(TWO))
    a, _ = _span(draw, lines, (2, 2))
    first, second = lines[a : a + 2]
    assume("(" in second.text)
    cut = second.text.index("(") + 1
    head = indent.line(second)[: len(indent.of(indent.columns(second.depth))) + cut]
    rest = second.text[cut:]
    variant = draw(st.sampled_from(("head_changed", "first_changed")))
    if variant == "head_changed":
        new_first, new_head = indent.line(first), head.replace("compute", "measure")
    else:
        new_first, new_head = indent.line(Line(first.depth, _modified(first.text))), head
    source = indent.line(first) + "\n" + head
    target = new_first + "\n" + new_head
    assume(source != target)  # an opener's head has nothing to change: no edit at all
    edited = [indent.line(x) for x in lines]
    edited[a], edited[a + 1] = new_first, new_head + rest
    intended = "".join(x + "\n" for x in edited)
    return Case("second_line_cut", variant, render(lines, indent), source, target,
                frozenset({intended}))


@st.composite
def json_escaped(draw: st.DrawFn) -> Case:
    """11c. A source (and target) JSON-escaped once more: the unescaped source matches one place
    and the escaped one none. Escaped whole (one line), or line by line (`lines_*`: the line
    breaks arrived real)."""
    indent, lines, (a, b), new = draw(_edited(TWO, (2, 4)))
    source = _join([indent.line(x) for x in lines[a:b]])
    target = _join([indent.line(x) for x in new])
    variant = draw(st.sampled_from(("both", "source", "lines_both", "lines_source")))
    escape = _escaped_lines if variant.startswith("lines") else _escaped_once
    escaped_target = escape(target) if variant.endswith("both") else target
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    return Case("json_escaped", variant, render(lines, indent), escape(source),
                escaped_target, frozenset({intended}))


def _escaped_once(text: str) -> str:
    """`text` as the inside of a JSON string: one line, its breaks `\\n`."""
    return json.dumps(text)[1:-1]


def _escaped_lines(text: str) -> str:
    """Each line of `text` escaped once as the inside of a JSON string, the breaks kept."""
    return "\n".join(_escaped_once(line) for line in text.split("\n"))


CLASSES: dict[str, Callable[[], st.SearchStrategy[Case]]] = {
    "mixed_tabs": mixed_tabs,
    "drift": drift,
    "one_line": one_line,
    "blank_lines": blank_lines,
    "stale_lookalike": stale_lookalike,
    "nbsp_indent": nbsp_indent,
    "elision": elision,
    "escaped_target": escaped_target,
    "bom_source": bom_source,
    "line_prefixes": line_prefixes,
    "second_line_cut": second_line_cut,
    "json_escaped": json_escaped,
}
