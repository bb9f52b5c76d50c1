"""The `frame` family of edit cases: a source typed in another indentation frame than the file's.

The variants are the ways one line or one map could steer a whole edit (see `frame`); each is
read in the file's frame, or (where marked) may be refused.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from .classes import Case, Indent, Line, _edit, _file, _join, _span, program, render

VARIANTS = ("wrap", "wrap_file", "tabs", "first_unindented", "scale", "closers", "no_closer",
            "gnu")


def _wrapped(language: str, block: list[Line]) -> list[Line]:
    """`block` inside a new `if enabled` at its first line's depth."""
    depth = block[0].depth
    inner = [Line(line.depth + 1, line.text) if line.text else line for line in block]
    if language == "python":
        return [Line(depth, "if enabled:"), *inner]
    return [Line(depth, "if (enabled) {"), *inner, Line(depth, "}")]


@st.composite
def frame(draw: st.DrawFn) -> Case:
    """2. The indentation frame:

    - `wrap`, `wrap_file`: a source drifted by a step, its target wrapping the block in a new
      opener in the same drifted frame, or typed for the file;
    - `tabs`: a target typed with tabs, one a depth, for a file and source in spaces;
    - `first_unindented`: a source drifted so that its first line has no indentation, the
      target typed for the file but for its first line, unindented like the source's;
    - `scale`: a source nesting one step where the file has two (a dedent across two levels),
      its target nesting new lines in the source's step (may be refused);
    - `closers`: a drifted source ending with two closing braces, the target typed for the
      file unwrapping the inner block (may be refused: typed like the source, its `}` would be
      the inner one);
    - `no_closer`: a source that leaves out its block's closing line, the target restating it;
    - `gnu`: a GNU-style file with one line indented tab, spaces, tab, changed by a source
      matched loosely (trailing whitespace): the line keeps the file's indentation.
    """
    variant = draw(st.sampled_from(VARIANTS))
    if variant in ("scale", "closers", "no_closer", "gnu"):
        return draw(_OTHERS[variant]())
    language, indent, lines = draw(_file((Indent("spaces", 4), Indent("spaces", 2))))
    a, b = _span(draw, lines, (2, 3))
    block = lines[a:b]
    low = min(line.depth for line in block)
    assume(all(line.depth >= low for line in block) and block[0].depth == low)
    shift = draw(st.sampled_from((-1, 1) if low >= 1 else (1,)))
    if variant in ("wrap", "wrap_file"):
        new = _wrapped(language, block)
        source = _join([indent.line(x, shift) for x in block])
        target = _join([indent.line(x, shift if variant == "wrap" else 0) for x in new])
    elif variant == "tabs":
        new = draw(_edit(lines, a, b, language))
        source = _join([indent.line(x) for x in block])
        target = _join(["\t" * x.depth + x.text for x in new])
    else:
        assume(low >= 1)
        new = draw(_edit(lines, a, b, language))
        source = _join([indent.line(x, -low) for x in block])
        target = _join([new[0].text, *(indent.line(x) for x in new[1:])])
    intended = render([*lines[:a], *new, *lines[b:]], indent)
    return Case("frame", variant, render(lines, indent), source, target, frozenset({intended}))


@st.composite
def _scale(draw: st.DrawFn) -> Case:
    language, indent, lines = draw(_file((Indent("spaces", 4),)))
    at = [i for i in range(len(lines) - 1) if lines[i].text and lines[i + 1].text
          and lines[i].depth == lines[i + 1].depth + 2 and lines[i + 1].text != "}"]
    assume(at)
    i = draw(st.sampled_from(at))
    upper, lower = lines[i : i + 2]
    n = draw(st.integers(900, 999))
    opener = f"if flag_{n}:" if language == "python" else f"if (flag_{n}) {{"
    added = [Line(lower.depth, opener), Line(lower.depth + 1, f"call_{n}()" + (
        ";" * (language == "brace")))]
    if language == "brace":
        added.append(Line(lower.depth, "}"))
    source = _join([indent.line(Line(1, upper.text)), lower.text])
    target = _join([source, *(indent.line(Line(x.depth - lower.depth, x.text)) for x in added)])
    intended = render([*lines[: i + 2], *added, *lines[i + 2 :]], indent)
    return Case("frame", "scale", render(lines, indent), source, target, frozenset({intended}),
                refusable=True)


@st.composite
def _closers(draw: st.DrawFn) -> Case:
    indent = draw(st.sampled_from((Indent("spaces", 4), Indent("spaces", 2), Indent("tabs", 8))))
    lines = draw(program("brace", deepest=4))
    at = [c for c in range(2, len(lines) - 1)
          if lines[c].text == "}" and lines[c + 1].text == "}"
          and lines[c].depth == lines[c + 1].depth + 1]
    assume(at)
    c = draw(st.sampled_from(at))
    o = max(i for i in range(c) if lines[i].depth == lines[c].depth and lines[i].text)
    body = lines[o + 1 : c]
    assume(lines[o].text.endswith("{") and body and all(
        x.text and x.depth == lines[c].depth + 1 and x.text != "}" for x in body))
    block = lines[o : c + 2]
    shift = draw(st.sampled_from([s for s in (-1, 1) if block[-1].depth + s >= 0]))
    new = [*(Line(x.depth - 1, x.text) for x in body), lines[c + 1]]
    source = _join([indent.line(x, shift) for x in block])
    target = _join([indent.line(x) for x in new])
    intended = render([*lines[:o], *new, *lines[c + 2 :]], indent)
    return Case("frame", "closers", render(lines, indent), source, target,
                frozenset({intended}), refusable=True)


@st.composite
def _no_closer(draw: st.DrawFn) -> Case:
    indent = draw(st.sampled_from((Indent("spaces", 4), Indent("spaces", 2), Indent("tabs", 8))))
    lines = draw(program("brace"))
    at = [c for c in range(2, len(lines)) if lines[c].text == "}" and lines[c].depth >= 1
          and lines[c - 1].text and lines[c - 1].text != "}"]
    assume(at)
    c = draw(st.sampled_from(at))
    o = max(i for i in range(c) if lines[i].depth == lines[c].depth and lines[i].text)
    assume(lines[o].text.endswith("{") and c - o <= 4 and all(x.text for x in lines[o:c]))
    new = draw(_edit(lines, o + 1, c, "brace"))
    shift = draw(st.sampled_from([s for s in (-1, 0, 1) if lines[o].depth + s >= 0]))
    frame = draw(st.sampled_from(("source", "file")))
    source = _join([indent.line(x, shift) for x in lines[o:c]])
    typed = shift if frame == "source" else 0
    target = _join([indent.line(x, typed) for x in [lines[o], *new, lines[c]]])
    intended = render([*lines[: o + 1], *new, *lines[c:]], indent)
    return Case("frame", "no_closer", render(lines, indent), source, target,
                frozenset({intended}))


_ODD = "\t  \t"  # 16 columns, as `\t\t` would be


@st.composite
def _gnu(draw: st.DrawFn) -> Case:
    indent = Indent("mixed", 4)
    lines = draw(program(draw(st.sampled_from(("brace", "python"))), deepest=5))
    at = [i for i in range(1, len(lines)) if lines[i].depth == 4 and "compute" in lines[i - 1].text
          and "compute" in lines[i].text]
    assume(at)
    i = draw(st.sampled_from(at))
    text = [indent.line(x) for x in lines]
    text[i] = _ODD + lines[i].text
    changed = list(text)
    changed[i] = _ODD + lines[i].text.replace("compute", "measure")
    slip = draw(st.sampled_from(("trailing", "blank_after")))
    source = _join(text[i - 1 : i + 1])
    target = _join(changed[i - 1 : i + 1])
    if slip == "trailing":
        source = _join([text[i - 1] + "  ", text[i]])
    else:
        assume(i + 1 < len(text) and text[i + 1])
        source += "\n\n"
    return Case("frame", "gnu", "".join(x + "\n" for x in text), source, target,
                frozenset({"".join(x + "\n" for x in changed)}))


_OTHERS = {"scale": _scale, "closers": _closers, "no_closer": _no_closer, "gnu": _gnu}
