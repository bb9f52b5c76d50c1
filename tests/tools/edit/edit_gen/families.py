"""More edit cases by class of model slip: the failures models report from real editing tools.

Each family carries its oracle the way `classes` does: the intended file and every defensible
alternative (a refusal of such a call is counted as needless), or nothing (`must_refuse`); an
applied result holding the family's `marker` where the file had none is the slip written as sent.

- `reapplied`: an edit sent again after it was applied (a wrap nests twice, a change is doubled);
- `frame` (see `frames`): a source typed in another indentation frame than the file's;
- `curly_mixed`: curly quotes typed in some places of one changed line and not others;
- `backslashes`: a source with doubled backslashes (a Windows path, a regex), the target typed
  right or doubled alike;
- `blank_edges`: a deletion whose source starts with the blank line above the block, and an
  insertion whose source has one blank line more than the file;
- `sent_slips`: target slips that are never code: a bare `...` line, a markdown fence, HTML
  entities, typographic operators, `\\uXXXX` left escaped, a diff marker column, a `\\'` escape;
- `repeated` (see `repeats`): a source that matches several places, the model meaning one;
- `read_tools`: sources copied from other read tools (`grep -n`, `12→`, ` 12 | `, `^I`) or with
  invisible differences (zero-width characters, NFD accents, a leading newline, alignment).
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from itertools import pairwise

from hypothesis import assume
from hypothesis import strategies as st

from .classes import (
    TWO,
    Case,
    Indent,
    Line,
    _edit,
    _edited,
    _file,
    _join,
    _new_line,
    _span,
    render,
)
from .frames import _wrapped, frame
from .repeats import repeated


def _language(lines: list[Line]) -> str:
    return "brace" if any(line.text.endswith(";") or line.text == "}" for line in lines) else (
        "python")


def _same_depth(lines: list[Line], a: int, b: int) -> bool:
    return len({line.depth for line in lines[a:b]}) == 1


@st.composite
def reapplied(draw: st.DrawFn) -> Case:
    """1. The edit is already in the file (it was applied before); the source, no longer there
    as sent, still matches inside the target's lines at another depth, or nowhere."""
    language, indent, lines = draw(_file(TWO))
    a, b = _span(draw, lines, (1, 3))
    assume(_same_depth(lines, a, b))
    variant = draw(st.sampled_from(("wrap", "wrap", "modify")))
    block = lines[a:b]
    new = _wrapped(language, block) if variant == "wrap" else draw(_edit(lines, a, b, language))
    applied = [*lines[:a], *new, *lines[b:]]
    source = _join([indent.line(x) for x in block])
    assume(source not in render(applied, indent))
    target = _join([indent.line(x) for x in new])
    return Case("reapplied", variant, render(applied, indent), source, target, frozenset())


def _curly_some(text: str, draw: st.DrawFn) -> str:
    """`text` with some of its straight double quotes typed curly (opening or closing form)."""
    out = []
    for i, char in enumerate(text):
        if char == '"' and draw(st.booleans()):
            char = "\u201c" if text[:i].count('"') % 2 == 0 else "\u201d"
        out.append(char)
    return "".join(out)


@st.composite
def curly_mixed(draw: st.DrawFn) -> Case:
    """3. A line of strings changed, the model typing curly quotes in some places of it (in the
    source, the target or both): every quote of the changed line is the file's straight one."""
    language, indent, lines = draw(_file(TWO))
    a, _ = _span(draw, lines, (1, 1))
    n = draw(st.integers(100, 999))
    line = Line(lines[a].depth, f'label_{n} = g("b{n}", "c{n}")' + (";" * (language == "brace")))
    lines = [*lines[:a], line, *lines[a + 1 :]]
    changed = Line(line.depth, line.text.replace(f'"c{n}")', f'"c{n}", "d{n}")'))
    variant = draw(st.sampled_from(("both", "target", "source")))
    source = indent.line(line)
    target = indent.line(changed)
    if variant in ("both", "source"):
        source = _curly_some(source, draw)
    if variant in ("both", "target"):
        target = _curly_some(target, draw)
    assume(source != indent.line(line) or target != indent.line(changed))
    intended = render([*lines[:a], changed, *lines[a + 1 :]], indent)
    curly = [char for char in target if char in "\u201c\u201d"]
    marker = curly[0] if curly and variant == "target" else ""
    return Case("curly_mixed", variant, render(lines, indent), source, target,
                frozenset({intended}), marker=marker)


@st.composite
def backslashes(draw: st.DrawFn) -> Case:
    """4. A line holding backslashes (a Windows path, a regex) sent with them doubled in the
    source; the target typed right (single) or doubled alike. Either way the file gets single
    backslashes."""
    language, indent, lines = draw(_file(TWO))
    a, _ = _span(draw, lines, (1, 1))
    n = draw(st.integers(100, 999))
    kind = draw(st.sampled_from(("path", "regex")))
    if kind == "path":
        old, new_value = f"C:\\tools\\bin{n}", f"C:\\tools\\new{n}"
    else:
        old, new_value = f"\\d+\\s{n}", f"\\w+\\s{n}"
    end = ";" if language == "brace" else ""
    line = Line(lines[a].depth, f'pattern_{n} = r"{old}"{end}')
    changed = Line(line.depth, f'pattern_{n} = r"{new_value}"{end}')
    lines = [*lines[:a], line, *lines[a + 1 :]]
    variant = draw(st.sampled_from(("target_plain", "target_doubled")))
    source = indent.line(line).replace("\\", "\\\\")
    target = indent.line(changed)
    if variant == "target_doubled":
        target = target.replace("\\", "\\\\")
    intended = render([*lines[:a], changed, *lines[a + 1 :]], indent)
    return Case("backslashes", f"{kind}_{variant}", render(lines, indent), source, target,
                frozenset({intended}))


@st.composite
def blank_edges(draw: st.DrawFn) -> Case:
    """5. A block deleted with a source that starts with the blank line above it (the blank line
    goes too); or a line inserted next to a blank line that the source doubles."""
    _, indent, lines = draw(_file(TWO))
    variant = draw(st.sampled_from(("delete", "insert_after", "insert_before")))
    if variant == "delete":
        at = [i for i in range(1, len(lines) - 2)
              if not lines[i].text and lines[i - 1].text and lines[i + 1].depth > 0]
        assume(at)
        gap = draw(st.sampled_from(at))
        end = gap + 1 + draw(st.integers(1, 2))
        assume(end < len(lines) and all(x.text and x.depth > 0 and x.text != "}"
                                        for x in lines[gap + 1 : end]))
        source = "\n" + _join([indent.line(x) for x in lines[gap + 1 : end]])
        intended = render([*lines[:gap], *lines[end:]], indent)
        return Case("blank_edges", variant, render(lines, indent), source, "",
                    frozenset({intended}))
    at = [i for i in range(1, len(lines) - 1)
          if not lines[i].text and lines[i - 1].depth > 0 and lines[i + 1].depth > 0
          and lines[i - 1].text and lines[i + 1].text]
    assume(at)
    gap = draw(st.sampled_from(at))
    before, blank, after = lines[gap - 1 : gap + 2]
    # A block that occurs more than once (`}`, blank, `}`, at any depth, across blank lines) is
    # ambiguous whatever the blank lines.
    filled = [line.text for line in lines if line.text]
    assume(sum(pair == (before.text, after.text) for pair in pairwise(filled)) == 1)
    added = Line(after.depth if variant == "insert_before" else before.depth,
                 _new_line(_language(lines), draw(st.integers(900, 999))))
    source = _join([indent.line(before), "", "", indent.line(after)])
    if variant == "insert_before":
        typed = [before, blank, blank, added, after]
        kept = [before, blank, added, after]
    else:
        typed = [before, added, blank, blank, after]
        kept = [before, added, blank, after]
    target = _join([indent.line(x) for x in typed])
    accepted = {render([*lines[: gap - 1], *x, *lines[gap + 2 :]], indent) for x in (kept, typed)}
    return Case("blank_edges", variant, render(lines, indent), source, target,
                frozenset(accepted))


_FENCE = {"python": "```python", "brace": "```c"}
_OPERATORS = (("-", "\u2014"), ("->", "\u2192"), ("!=", "\u2260"))


@st.composite
def sent_slips(draw: st.DrawFn) -> Case:
    """6. Target slips that are never code. Where the reading is certain (a fence around the
    whole target, a diff marker column on both sides) the intended file is accepted; the others
    may be refused. Written as sent, the slip is destructive."""
    language, indent, lines = draw(_file(TWO))
    a, b = _span(draw, lines, (2, 4))
    block = lines[a:b]
    variant = draw(st.sampled_from(("ellipsis", "fence", "entities", "operator", "uescape",
                                    "diff", "bad_escape")))
    source_lines = [indent.line(x) for x in block]
    new = draw(_edit(lines, a, b, language))
    target_lines = [indent.line(x) for x in new]
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    if variant == "ellipsis":
        dots = draw(st.sampled_from(("...", "\u2026")))
        elided = [target_lines[0], indent.line(Line(block[1].depth, dots))]
        return Case("sent_slips", variant, render(lines, indent), _join(source_lines),
                    _join(elided), frozenset(), marker=dots)
    if variant == "fence":
        fenced = [_FENCE[language], *target_lines, "```"]
        return Case("sent_slips", variant, render(lines, indent), _join(source_lines),
                    _join(fenced), frozenset({intended}), marker="```")
    if variant == "diff":
        hunk = _hunk(source_lines, target_lines)
        plus = next(x for x in hunk if x.startswith("+"))
        sent = _join([" " + x for x in source_lines]) if draw(st.booleans()) else _join(
            source_lines)
        return Case("sent_slips", variant, render(lines, indent), sent, _join(hunk),
                    frozenset({intended}), marker=plus)
    if variant in ("uescape", "bad_escape"):
        return _escaped(draw, language, indent, lines, a, variant)
    k = next((i for i, x in enumerate(new) if x not in block), 0)
    code, comment = [*new[k].text.split("  #", 1), ""][:2]
    comment = f"  #{comment}" if comment else ""  # the slip goes in the code, not the comment
    if variant == "entities":
        plain = code + " if 0 < 1 and 2 > 1 else 0" + comment
        typed, marker = plain.replace("<", "&lt;").replace(">", "&gt;"), "&lt;"
    else:
        ascii_op, typo = draw(st.sampled_from(_OPERATORS))
        plain, typed, marker = (f"{code} {ascii_op} 1{comment}", f"{code} {typo} 1{comment}",
                                typo)
    spoilt = [*target_lines[:k], indent.line(Line(new[k].depth, typed)), *target_lines[k + 1 :]]
    fixed = [*new[:k], Line(new[k].depth, plain), *new[k + 1 :]]
    # Entities and typographic characters could be meant (a template, a string): a refusal
    # that names them is as right as the reading.
    return Case("sent_slips", variant, render(lines, indent), _join(source_lines),
                _join(spoilt), frozenset({render([*lines[:a], *fixed, *lines[b:]], indent)}),
                marker=marker, refusable=True)


def _hunk(old: list[str], new: list[str]) -> list[str]:
    """A unified diff's body lines from `old` to `new` (` ` kept, `-` removed, `+` added)."""
    out = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(" " + x for x in old[i1:i2])
            continue
        out.extend("-" + x for x in old[i1:i2])
        out.extend("+" + x for x in new[j1:j2])
    return out


def _escaped(draw: st.DrawFn, language: str, indent: Indent, lines: list[Line], a: int,
             variant: str) -> Case:
    """A one-line source JSON-escaped once more than the file (`\\"`), and its target holding
    `\\uXXXX` on one of several lines, or a `\\'` no JSON string has: read right or refused,
    never written with the backslashes."""
    n = draw(st.integers(100, 999))
    end = ";" if language == "brace" else ""
    line = Line(lines[a].depth, f'label_{n} = g("b{n}"){end}')
    lines = [*lines[:a], line, *lines[a + 1 :]]
    source = json.dumps(indent.line(line))[1:-1]
    if variant == "uescape":
        changed = Line(line.depth, f'label_{n} = g("b{n}", "caf\u00e9"){end}')
        added = Line(line.depth, _new_line(language, draw(st.integers(900, 999))))
        target = json.dumps(indent.line(changed))[1:-1] + "\n" + indent.line(added)
        new = [changed, added]
    else:
        changed = Line(line.depth, f"label_{n} = g(\"b{n}\", 'c'){end}")
        target = json.dumps(indent.line(changed))[1:-1].replace("'", "\\'")
        new = [changed]
    intended = render([*lines[:a], *new, *lines[a + 1 :]], indent)
    return Case("sent_slips", variant, render(lines, indent), source, target,
                frozenset({intended}), marker="\\")


_READ_PREFIXES = {
    "grep": lambda n, digits: f"{n}:",
    # `grep -n -C` over several files: the file's name, `N:` on a match, `N-` around it.
    "grep_context": lambda n, digits: "lib/calc-v2.py" + (f":{n}:" if n % 3 == 0 else f"-{n}-"),
    "arrow": lambda n, digits: f"{n:>6}\u2192",
    "pipe": lambda n, digits: f" {n:>{digits}} | ",
}
_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060")


@st.composite
def read_tools(draw: st.DrawFn) -> Case:
    """7. A source copied from another read tool's output or with invisible differences: line
    prefixes of `grep -n`/`rg` (`12:`, and with the file's name and context lines' `12-`),
    `12→`, ` 12 | ` (the target prefixed alike or not), tabs shown as `^I`, a zero-width
    character, a decomposed accent (NFD), a leading newline, collapsed alignment spaces. Each
    has one reading; the file gets the intended change."""
    variant = draw(st.sampled_from(("grep", "grep_context", "arrow", "pipe", "caret_i",
                                    "invisible", "nfd", "leading_newline", "alignment")))
    indents = (Indent("tabs", 8),) if variant == "caret_i" else TWO
    indent, lines, (a, b), new = draw(_edited(indents, (1, 4)))
    if variant in ("nfd", "alignment"):
        extra = "caf\u00e9 = 1" if variant == "nfd" else "width    = 1"
        lines = [*lines[:a], Line(lines[a].depth, extra), *lines[a:]]
        new = [Line(lines[a].depth, extra), *new]
        b += 1
    source_lines = [indent.line(x) for x in lines[a:b]]
    target_lines = [indent.line(x) for x in new]
    if variant in _READ_PREFIXES:
        digits = len(str(b))
        prefix = _READ_PREFIXES[variant]
        source_lines = [prefix(a + 1 + i, digits) + x for i, x in enumerate(source_lines)]
        if draw(st.booleans()):
            target_lines = [prefix(a + 1 + i, digits) + x for i, x in enumerate(target_lines)]
    elif variant == "caret_i":
        source_lines = [x.replace("\t", "^I") for x in source_lines]
    elif variant == "invisible":
        k = draw(st.integers(0, len(source_lines) - 1))
        cut = len(source_lines[k]) // 2
        source_lines[k] = source_lines[k][:cut] + draw(st.sampled_from(_INVISIBLE)) + (
            source_lines[k][cut:])
    elif variant == "nfd":
        source_lines[0] = source_lines[0].replace("\u00e9", "e\u0301")
    elif variant == "alignment":
        source_lines[0] = source_lines[0].replace("width    =", "width =")
    source = _join(source_lines)
    if variant == "leading_newline":
        source = "\n" + source
        target_lines = ["", *target_lines] if draw(st.booleans()) else target_lines
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    return Case("read_tools", variant, render(lines, indent), source, _join(target_lines),
                frozenset({intended}))


FAMILIES = {
    "reapplied": reapplied,
    "frame": frame,
    "curly_mixed": curly_mixed,
    "backslashes": backslashes,
    "blank_edges": blank_edges,
    "sent_slips": sent_slips,
    "read_tools": read_tools,
    "repeated": repeated,
}
