"""Edits as models write them: an intended change to a real-looking file, then the
`source_text` / `target_text` a model sends for it with one or two slips, and the oracle.

The intended file is known, so every applied edit can be judged: it must equal the intended file,
except on the lines the edit changes or adds, where the model's own target-side slips (lost
trailing spaces, plain or curly punctuation, either line ending in a mixed file) are accepted as
written, since no tool can know them. Anything else is a wrong edit.

Calls that no tool could read one way only are not generated: a wrapped or re-indented block
whose target is typed in another frame than its source (the re-indentation and the frame change
are then the same signal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from hypothesis import assume
from hypothesis import strategies as st

from .files import CURLY, UNITS, Line, Style, files, render, render_line

INDENT_SLIPS = ("shift", "dedent", "unit", "tabs")
TEXT_SLIPS = ("first_nonblank", "lost_trailing", "line_endings", "blank_around",
              "blank_inside", "truncated", "punctuation", "lookalike")
SLIPS = (*INDENT_SLIPS, *TEXT_SLIPS)
EDITS = ("modify", "insert", "delete", "delete_all", "wrap", "reindent")
_ASCII = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "—": "-", "–": "-"})


@dataclass(frozen=True, slots=True)
class Frame:
    """How a model indents: its unit and how many units it shifts every line."""

    unit: str
    shift: int

    def line(self, line: Line) -> str:
        if line.blank:
            return line.trail
        return self.unit * (line.depth + self.shift) + line.text + line.trail


@dataclass(slots=True)
class Example:
    """One generated call and what it should do."""

    content: str
    source: str
    target: str
    intended: list[Line]
    changed: set[int]
    style: Style
    edit: str
    slips: tuple[str, ...]
    target_slips: list[str] = field(default_factory=list)
    loose_endings: set[int] = field(default_factory=set)  # a last line that got an ending

    def intended_text(self) -> str:
        return render(self.intended, self.style)


@st.composite
def examples(draw: st.DrawFn) -> Example:
    """A file, an intended edit of one block, and the call a model sends with one or two slips."""
    lines, style = draw(files())
    slips = tuple(sorted(draw(st.sets(st.sampled_from(SLIPS), min_size=1, max_size=2))))
    assume(sum(s in INDENT_SLIPS for s in slips) <= 1)
    # A look-alike block one level off and a source shifted one level: the source then is the
    # other block, exactly; no tool can know.
    assume(not ("lookalike" in slips and any(s in INDENT_SLIPS for s in slips)))
    a, b = _block(draw, lines)
    edit = draw(st.sampled_from(EDITS))
    if "lookalike" in slips:
        lines, a, b = _lookalike(draw, lines, a, b)
    new, changed = _intended_block(draw, lines, a, b, edit, style)
    assume(new is not None)
    assert new is not None
    intended = lines[:a] + new
    changed_at = {a + i for i in changed}
    tail = lines[b:]
    if not tail and lines[b - 1].ending == "" and intended:
        intended[-1] = replace(intended[-1], ending="")
    intended += tail
    loose = set()
    for i, line in enumerate(intended[:-1]):
        if line.ending == "":
            intended[i] = replace(line, ending="\n")
            loose.add(i)
    src_frame, tgt_frame = _frames(draw, lines[a:b], new, style, slips, edit)
    model_lines = list(lines[a:b])
    target_lines = list(new)
    if "blank_inside" in slips:
        model_lines, target_lines = _blank_inside(draw, model_lines, target_lines, edit)
    source = [src_frame.line(line) for line in model_lines]
    target = [tgt_frame.line(line) for line in target_lines]
    example = Example(render(lines, style), "", "", intended, changed_at, style, edit, slips)
    as_filed = [Frame(style.unit, 0).line(line) for line in model_lines]
    # A block that ends or starts with a blank line: a target's blank edge reads as noise.
    assume(not new or not (new[0].blank or new[-1].blank))
    example.loose_endings = loose
    same_first = bool(target_lines) and (
        target_lines[0] is model_lines[0] or (edit == "modify" and 0 in changed)
    )
    # A re-indented first line typed without indentation: no tool can know it moved.
    assume(not ("first_nonblank" in slips and edit == "reindent"))
    source, target = _text_slips(draw, example, source, target, same_first)
    join_s, join_t = _joins(draw, style, slips)
    example.source = _around(draw, example, join_s.join(source), join_t.join(target), join_s)
    example.target = example.target or join_t.join(target)
    assume(example.source.strip() and example.source != example.target)
    assume(not _elsewhere(lines, a, b, style, example.source))
    # A source that shows nothing of the model's indentation, and a target in another frame
    # than the file's: the target's indentation reads as the edit's own.
    assume(tgt_frame == Frame(style.unit, 0) or not _shows_nothing(source, as_filed))
    # Blank lines around the source that the file has too: a target without them deletes them.
    flat = "".join(render_line(line, style.unit) + "\n" for line in lines)
    mirrored = example.target.startswith(("\n", "\r\n")) == example.source.startswith(
        ("\n", "\r\n")
    ) and example.target.endswith("\n\n") == example.source.endswith("\n\n")
    assume(mirrored or example.source.replace("\r\n", "\n") not in flat)
    # Blank lines around a source that the file has too are part of what it deletes.
    assume(not ("blank_around" in slips and not example.target.strip()))
    assume(example.intended_text() != example.content)
    return example


def _shows_nothing(source: list[str], as_filed: list[str]) -> bool:
    """Whether the source as sent is indented as the file (its first line maybe not at all)."""
    return len(source) == len(as_filed) and all(
        _indent(sent) == _indent(filed) or (k == 0 and not _indent(sent))
        for k, (sent, filed) in enumerate(zip(source, as_filed, strict=True))
        if sent.strip()
    )


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _elsewhere(lines: list[Line], a: int, b: int, style: Style, source: str) -> bool:
    """Whether the source as sent (trimmed) is text of the file outside the block: the slip
    made it another place's exact copy, which no tool can tell from the intended one."""
    text = "".join(render_line(line, style.unit) + "\n" for line in lines)
    start = sum(len(render_line(line, style.unit)) + 1 for line in lines[:a])
    end = start + sum(len(render_line(line, style.unit)) + 1 for line in lines[a:b])
    needle = source.replace("\r\n", "\n").strip()
    at = text.find(needle)
    while at != -1:
        if not start <= at < end:
            return True
        at = text.find(needle, at + 1)
    return False


def _block(draw: st.DrawFn, lines: list[Line]) -> tuple[int, int]:
    starts = [i for i, line in enumerate(lines) if not line.blank]
    a = draw(st.sampled_from(starts))
    size = draw(st.integers(1, 5))
    b = min(len(lines), a + size)
    while b > a + 1 and lines[b - 1].blank:
        b -= 1
    return a, b


def _lookalike(draw: st.DrawFn, lines: list[Line], a: int, b: int) -> tuple[list[Line], int, int]:
    """A copy of the block, nested one level deeper or shallower, elsewhere in the file."""
    delta = draw(st.sampled_from((1, -1)))
    assume(all(line.depth + delta >= 0 for line in lines[a:b]))
    copy = [replace(line, depth=line.depth + delta, ending=line.ending or "\n")
            for line in lines[a:b]]
    at = draw(st.sampled_from([i for i in range(len(lines) + 1) if i <= a or i >= b]))
    if at == len(lines) and lines and lines[-1].ending == "":
        lines = [*lines[:-1], replace(lines[-1], ending="\n")]
    lines = lines[:at] + copy + lines[at:]
    return (lines, a + len(copy), b + len(copy)) if at <= a else (lines, a, b)


def _new_statement(draw: st.DrawFn, style: Style, depth: int, ending: str) -> Line:
    n = draw(st.integers(900, 999))
    text = {"python": f"added_{n} = {n}", "brace": f"added_{n}();", "json": f'"added_{n}": {n},',
            "yaml": f"added_{n}: {n}", "markdown": f"- added {n}"}[style.language]
    return Line(depth, text, "", ending)


def _wrapper(style: Style) -> tuple[str, str | None]:
    return {"python": ("if ready:", None), "brace": ("if (ready) {", "}"),
            "json": ('"wrapped": {', "},"), "yaml": ("wrapped:", None),
            "markdown": ("- wrapped", None)}[style.language]


def _modified(draw: st.DrawFn, text: str) -> str:
    digits = [m.start() for m in re.finditer(r"\d", text)]
    if digits and draw(st.booleans()):
        at = digits[-1]
        return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1 :]
    word = re.search(r"\w+", text)
    if word is None:
        return text + " changed"
    return text[: word.end()] + "_new" + text[word.end() :]


def _intended_block(draw: st.DrawFn, lines: list[Line], a: int, b: int, edit: str,
                    style: Style) -> tuple[list[Line] | None, list[int]]:
    """The block's lines after the edit, and which of them are new or changed."""
    block = lines[a:b]
    ending = next((line.ending for line in block if line.ending), "\n")
    filled = [i for i, line in enumerate(block) if not line.blank]
    if edit == "modify":
        i = draw(st.sampled_from(filled))
        new_text = _modified(draw, block[i].text)
        return [*block[:i], replace(block[i], text=new_text), *block[i + 1 :]], [i]
    if edit == "insert":
        i = draw(st.sampled_from(filled))
        added = _new_statement(draw, style, block[i].depth, ending)
        return [*block[: i + 1], added, *block[i + 1 :]], [i + 1]
    if edit == "delete":
        if len(filled) < 2:
            return None, []
        i = draw(st.sampled_from(filled))
        return block[:i] + block[i + 1 :], []
    if edit == "delete_all":
        return [], []
    depths = {line.depth for line in block if not line.blank}
    if edit == "wrap":
        if len(depths) != 1:
            return None, []
        depth = depths.pop()
        head, close = _wrapper(style)
        inner = [replace(line, depth=line.depth + 1) for line in block]
        new = [Line(depth, head, "", ending), *inner]
        if close:
            new.append(Line(depth, close, "", ending))
        moved = [i + 1 for i, line in enumerate(block) if not line.blank]
        return new, [0, *moved, *([len(new) - 1] if close else [])]
    new = [replace(line, depth=line.depth + 1) for line in block]
    return new, [i for i, line in enumerate(block) if not line.blank]


def _frames(draw: st.DrawFn, block: list[Line], new: list[Line], style: Style,
            slips: tuple[str, ...], edit: str) -> tuple[Frame, Frame]:
    file_frame = Frame(style.unit, 0)
    kind = next((s for s in slips if s in INDENT_SLIPS), None)
    if kind is None:
        return file_frame, file_frame
    low = min((line.depth for line in [*block, *new] if not line.blank), default=0)
    if kind == "shift":
        shift = draw(st.sampled_from([s for s in (-2, -1, 1, 2) if s >= -low]
                                     or [1]))
        source = Frame(style.unit, shift)
    elif kind == "dedent":
        assume(low > 0)
        source = Frame(style.unit, -low)
    elif kind == "unit":
        unit = draw(st.sampled_from([u for u in UNITS if u != style.unit and u != "\t"]))
        source = Frame(unit, draw(st.sampled_from((0, -low))))
    else:
        source = Frame("    " if style.unit == "\t" else "\t", draw(st.sampled_from((0, -low))))
    how = draw(st.sampled_from(("same", "same", "file", "other")))
    if how != "same" and edit in ("wrap", "reindent"):
        assume(False)
    # A target in a third frame only for edits that keep the block's lines in place: with lines
    # deleted, a restated line can equal another source line, which reads as another edit.
    assume(how != "other" or edit in ("modify", "insert"))
    if how == "same":
        # A block moved by exactly the source's drift: its restated lines then read as typed
        # for the file; no tool can tell.
        moved = {id(line) for line in new} ^ {id(line) for line in block}
        assume(not (moved and any(
            source.line(a) != file_frame.line(a) and source.line(b) == file_frame.line(a)
            for a, b in zip(block, new[1:] if edit == "wrap" else new, strict=False)
            if not a.blank and edit in ("wrap", "reindent"))))
        return source, source
    if how == "file":
        return source, file_frame
    other = Frame(source.unit, source.shift + draw(st.sampled_from((-1, 1))))
    assume(other.shift >= -low and other != file_frame)
    return source, other


def _blank_inside(draw: st.DrawFn, model: list[Line], target: list[Line],
                  edit: str) -> tuple[list[Line], list[Line]]:
    """A blank line the file has left out of the model's lines, or one the file lacks put in."""
    blanks = [i for i, line in enumerate(model) if line.blank]
    if blanks:
        i = draw(st.sampled_from(blanks))
        gone = model[i]
        if edit in ("wrap", "reindent"):  # the target's lines are copies, in the same order
            k = i + (edit == "wrap")
            return model[:i] + model[i + 1 :], target[:k] + target[k + 1 :]
        return [x for x in model if x is not gone], [x for x in target if x is not gone]
    assume(len(model) >= 2)
    at = draw(st.integers(1, len(model) - 1))
    blank = Line(0, "", "", "\n")
    after = model[at - 1]
    model = [*model[:at], blank, *model[at:]]
    if draw(st.booleans()) and after in target:
        k = target.index(after) + 1
        target = [*target[:k], blank, *target[k:]]
    return model, target


def _text_slips(draw: st.DrawFn, example: Example, source: list[str],
                target: list[str], same_first: bool) -> tuple[list[str], list[str]]:
    slips = example.slips
    both = draw(st.booleans())  # whether the target repeats the slip
    if "first_nonblank" in slips:
        assume(source[0] != source[0].lstrip())
        source = [source[0].lstrip(), *source[1:]]
        if both and same_first:
            target = [target[0].lstrip(), *target[1:]]
    if "lost_trailing" in slips:
        assume(any(line != line.rstrip() for line in source))
        source = [line.rstrip() for line in source]
        if both:
            target = [line.rstrip() for line in target]
            example.target_slips.append("rstrip")
    if "punctuation" in slips:
        if any(c in CURLY for line in source for c in line):
            source = [line.translate(_ASCII) for line in source]
            if both:
                target = [line.translate(_ASCII) for line in target]
                example.target_slips.append("ascii")
        else:
            assume("'" in "".join(source))
            source = [line.replace("'", "’") for line in source]
            if both:
                target = [line.replace("'", "’") for line in target]
                example.target_slips.append("curly")
    if "truncated" in slips:
        source = _truncate(draw, source)
    return source, target


def _truncate(draw: st.DrawFn, source: list[str]) -> list[str]:
    """The first line cut after its first word, or the last line cut before its last word."""
    if draw(st.booleans()):
        line = source[0]
        cut = line.lstrip().find(" ")
        assume(cut > 0)
        return [line.lstrip()[cut + 1 :], *source[1:]]
    line = source[-1]
    cut = line.rstrip().rfind(" ")
    assume(cut > len(line) - len(line.lstrip()))
    return [*source[:-1], line[:cut]]


def _joins(draw: st.DrawFn, style: Style, slips: tuple[str, ...]) -> tuple[str, str]:
    usual = "\r\n" if style.endings == "crlf" else "\n"
    if "line_endings" not in slips:
        return "\n", "\n"  # models mostly send LF whatever the file has
    other = "\n" if usual == "\r\n" else "\r\n"
    return other, draw(st.sampled_from((other, usual, "\n")))


def _around(draw: st.DrawFn, example: Example, source: str, target: str, join: str) -> str:
    """`source` as sent, with blank lines around it when that is one of the slips; the
    target gets the same when the model repeats them."""
    if "blank_around" not in example.slips:
        return source
    before, after = draw(st.integers(0, 2)), draw(st.integers(1, 2))
    if draw(st.booleans()):
        example.target = join * before + target + join * after
    return join * before + source + join * after


def split_lines(text: str) -> list[tuple[str, str]]:
    """(line, ending) pairs; the last line's ending is empty when the text has no final one."""
    out = []
    at = 0
    while at <= len(text):
        nl = text.find("\n", at)
        if nl == -1:
            if at < len(text):
                out.append((text[at:], ""))
            break
        line = text[at:nl]
        if line.endswith("\r"):
            out.append((line[:-1], "\r\n"))
        else:
            out.append((line, "\n"))
        at = nl + 1
    return out


def judge(example: Example, result: str) -> str | None:
    """None when `result` is acceptable for the example, else what is wrong with it."""
    bom = "\ufeff" if example.style.bom else ""
    if not result.startswith(bom) or result[len(bom):].startswith("\ufeff"):
        return "BOM changed"
    got = split_lines(result[len(bom):])
    want = example.intended
    if len(got) != len(want):
        return f"{len(got)} lines, expected {len(want)}"
    for i, ((text, ending), line) in enumerate(zip(got, want, strict=True)):
        rendered = render_line(line, example.style.unit)
        if i in example.changed:
            if text not in _variants(example, line):
                return f"line {i + 1}: {text!r}, expected {rendered!r}"
            if ending != line.ending and not (example.style.mixed and ending and line.ending):
                return f"line {i + 1} ending {ending!r}, expected {line.ending!r}"
        elif (text, ending) != (rendered, line.ending) and not (
            i in example.loose_endings and ending and text == rendered
        ):
            return f"line {i + 1}: {text + ending!r}, expected {rendered + line.ending!r}"
    return None


def _variants(example: Example, line: Line) -> set[str]:
    text = render_line(line, example.style.unit)
    out = {text}
    for slip in example.target_slips:
        for known in list(out):
            if slip == "rstrip":
                out.add(known.rstrip())
            elif slip == "ascii":
                out.add(known.translate(_ASCII))
            elif slip == "curly":
                out.add(known.replace("'", "’"))
    return out
