"""Real-looking files for the edit generator: a tree of lines rendered in one language and style.

A file is a list of `Line`s (depth, text without indentation, trailing whitespace, line ending)
plus a BOM flag; `render` turns it into the text `edit_file` sees. Every statement line carries a
number, so most blocks are unique, while closing braces and a few stock lines repeat, as in real
code.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

LANGUAGES = ("python", "brace", "json", "yaml", "markdown")
UNITS = ("  ", "    ", "\t")
ENDINGS = ("lf", "crlf", "mixed")
CURLY = "“”‘’—–"


@dataclass(frozen=True, slots=True)
class Line:
    """One file line: its nesting depth, its text, trailing whitespace and line ending."""

    depth: int
    text: str
    trail: str = ""
    ending: str = "\n"

    @property
    def blank(self) -> bool:
        return not self.text


@dataclass(frozen=True, slots=True)
class Style:
    """How a file is written: language, indentation unit, endings, BOM."""

    language: str
    unit: str
    endings: str
    bom: bool

    @property
    def mixed(self) -> bool:
        return self.endings == "mixed"


def indent(unit: str, depth: int) -> str:
    """`depth` units of indentation."""
    return unit * depth


def render_line(line: Line, unit: str) -> str:
    """A line without its ending."""
    if line.blank:
        return line.trail
    return indent(unit, line.depth) + line.text + line.trail


def render(lines: list[Line], style: Style) -> str:
    """The file's text."""
    body = "".join(render_line(line, style.unit) + line.ending for line in lines)
    return ("\ufeff" if style.bom else "") + body


def _statement(language: str, n: int, decorated: int) -> str:
    quote = ("“", "”") if decorated == 1 else ("'", "'")
    word = "it’s" if decorated == 2 else "value"
    if language == "python":
        return f"total_{n} = compute({word!s}_{n}, {quote[0]}k{n}{quote[1]})" if decorated else (
            f"total_{n} = compute(value_{n}, {n})")
    if language == "brace":
        comment = f" // {word} — {n}" if decorated else ""
        return f"let total_{n} = compute(value_{n}, {n});{comment}"
    if language == "json":
        return f'"key_{n}": "{word} {n}",'
    if language == "yaml":
        return f"key_{n}: {quote[0]}{word} {n}{quote[1]}"
    return f"- item {n}: {quote[0]}{word}{quote[1]} — note {n}" if decorated else f"- item {n} text"


def _opener(language: str, n: int) -> tuple[str, str | None]:
    if language == "python":
        return f"def function_{n}(value, scale=1):", None
    if language == "brace":
        return f"function run_{n}(value) {{", "}"
    if language == "json":
        return f'"group_{n}": {{', "},"
    if language == "yaml":
        return f"group_{n}:", None
    return f"- section {n}", None


@st.composite
def files(draw: st.DrawFn) -> tuple[list[Line], Style]:
    """A file of 8-60 lines in some language and style."""
    language = draw(st.sampled_from(LANGUAGES))
    unit = "\t" if language == "brace" and draw(st.booleans()) else draw(st.sampled_from(UNITS))
    style = Style(language, unit, draw(st.sampled_from(ENDINGS)), draw(st.booleans()))
    lines: list[Line] = []
    counter = [0]

    def number() -> int:
        counter[0] += 1
        return counter[0]

    def block(depth: int, budget: int) -> None:
        while budget > 0 and len(lines) < 60:
            kind = draw(st.integers(0, 9))
            if kind <= 5 or depth >= 3:
                trail = "  " if draw(st.integers(0, 9)) == 0 else ""
                decorated = draw(st.integers(0, 6))
                lines.append(Line(depth, _statement(language, number(), decorated % 3
                                                    if decorated >= 4 else 0), trail))
                budget -= 1
            elif kind == 6:
                lines.append(Line(depth, "" if draw(st.booleans()) else _stock(language)))
                budget -= 1
            else:
                head, close = _opener(language, number())
                lines.append(Line(depth, head))
                inner = draw(st.integers(1, 6))
                block(depth + 1, inner)
                if close:
                    lines.append(Line(depth, close))
                budget -= inner + 1

    block(0, draw(st.integers(8, 40)))
    lines = [line for i, line in enumerate(lines) if not (line.blank and i and lines[i - 1].blank)]
    return _with_endings(draw, lines, style), style


def _stock(language: str) -> str:
    return {"python": "return None", "brace": "return;", "json": '"enabled": true,',
            "yaml": "enabled: true", "markdown": "---"}[language]


def _with_endings(draw: st.DrawFn, lines: list[Line], style: Style) -> list[Line]:
    out = []
    for line in lines:
        if style.endings == "crlf":
            ending = "\r\n"
        elif style.endings == "mixed":
            ending = draw(st.sampled_from(("\n", "\r\n")))
        else:
            ending = "\n"
        out.append(replace(line, ending=ending))
    if out and not out[-1].blank and draw(st.integers(0, 4)) == 0:
        out[-1] = replace(out[-1], ending="")
    return out
