"""Slips in `edit_file`'s arguments that are never the file's code, read before matching.

Read when the reading is certain: a markdown fence around the whole source or target (in a file
without fences), a diff marker column (` `, `-`, `+`) whose old side is the source, curly double
quotes mixed with straight ones in one target line of a file without curly quotes (or curly
quotes the source also used where the file has straight ones). Refused with what to send
instead, since written as sent they break the code: HTML entities (`&lt;`) in a target for a
file and source without any, and typographic operators (`→`, `≠`, `—`) in the code of a target
line for a file that never uses them.
"""

from __future__ import annotations

import re

from harness9.tools.edit import refusals as errors

_FENCE_OPEN = re.compile(r"^[ \t]*```[\w+#.-]*[ \t]*$")
_FENCE_CLOSE = re.compile(r"^[ \t]*```[ \t]*$")
_DOUBLE = "\u201c\u201d\u201e\u201f"
_SINGLE = "\u2018\u2019\u201a\u201b"
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|nbsp|#\d+|#x[0-9a-fA-F]+);")
_OPERATORS = {"\u2192": "->", "\u2260": "!=", "\u2264": "<=", "\u2265": ">=", "\u2014": "-",
              "\u2013": "-", "\u2212": "-", "\u00d7": "*"}
# A line's string literals and comments, where typographic characters are prose.
_PROSE = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|`[^`]*`|(?:#|//|/\*|<!--|--\s).*$")
# Code punctuation, a block opener's colon, a comparison: what prose rarely has together with a
# typographic operator.
_CODE = re.compile(r"[=;(){}\[\]]|:\s*$| [<>] ")
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def without_fences(file: str, source: str, target: str) -> tuple[str, str]:
    """The source and target without a markdown fence around the whole of either, unless the
    file holds fences itself."""
    if ("```" not in source and "```" not in target) or "```" in file:
        return source, target
    return _unfenced(source), _unfenced(target)


def _unfenced(text: str) -> str:
    lines = text.splitlines(keepends=True)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2 or not _FENCE_OPEN.match(lines[0]) or not _FENCE_CLOSE.match(lines[-1]):
        return text
    inside = "".join(lines[1:-1])
    return inside[:-1] if inside.endswith("\n") else inside


def without_diff_column(source: str, target: str) -> tuple[str, str]:
    """The source and target without a diff's marker column, when every target line starts
    with ` `, `-` or `+`, some with `+`, and its old side (` ` and `-` lines) is the source,
    with or without the same column."""
    lines = target.split("\n")
    if not any(line.startswith("+") for line in lines) or not all(
        line[:1] in ("", " ", "-", "+") for line in lines
    ):
        return source, target
    old = [line[1:] for line in lines if line[:1] in ("", " ", "-")]
    new = [line[1:] for line in lines if line[:1] in ("", " ", "+")]
    plain = source.split("\n")
    for reading in (plain, [line[1:] if line[:1] in " -" else line for line in plain]):
        if old == reading:
            return "\n".join(reading), "\n".join(new)
    return source, target


def straight_quotes(file: str, source: str, target: str) -> str:
    """The target with curly quotes turned straight where they are the model's slips in a file
    without curly quotes of their kind: all of them when the source has them too (it was copied
    from the file, so its curly quotes are slips), else those of a target line that mixes them
    with straight ones out of pairs (`"c”, “d"`)."""
    for family, straight in ((_DOUBLE, '"'), (_SINGLE, "'")):
        # The target first: the file is only read when the target has such quotes.
        if not any(char in target for char in family) or any(char in file for char in family):
            continue
        if any(char in source for char in family):
            target = _straightened(target, family, straight)
        elif family == _DOUBLE:
            strings = set(_STRING.findall(source))
            target = "\n".join(_straight_delimiters(line, strings) for line in target.split("\n"))
    return target


def _straight_delimiters(line: str, strings: set[str]) -> str:
    """`line` with curly double quotes that stand for string delimiters made straight: all of
    them when they do not pair as “…” or when they quote again a string the source quotes
    straight, else those outside straight-quoted strings (a curly pair inside one is quoted
    text)."""
    straight = _straightened(line, _DOUBLE, '"')
    if _mixed(line) or any(
        found in strings and found not in line for found in _STRING.findall(straight)
    ):
        return straight
    if '"' not in line:
        return line
    out, inside = [], False
    for char in line:
        if char == '"':
            inside = not inside
        out.append('"' if char in _DOUBLE and not inside else char)
    return "".join(out)


def _straightened(text: str, family: str, straight: str) -> str:
    for char in family:
        text = text.replace(char, straight)
    return text


def _mixed(line: str) -> bool:
    """Whether `line` has straight double quotes and curly ones that do not pair as “…”."""
    curly = [char for char in line if char in _DOUBLE]
    if '"' not in line or not curly:
        return False
    paired = len(curly) % 2 == 0 and all(
        (char == "\u201c") == (n % 2 == 0) for n, char in enumerate(curly)
    )
    return not paired


def refuse_never_code(file: str, source: str, target: str) -> None:
    """Refuse HTML entities or typographic operators that the target brings into code."""
    found = _ENTITY.search(target)
    if found is not None and not _ENTITY.search(source) and not _ENTITY.search(file):
        raise errors.sent_slip(
            f"target_text holds the HTML entity {found.group()!r}, which neither the file "
            "nor source_text uses: it was escaped on the way. Send the characters "
            "themselves (<, >, &, quotes)"
        )
    known = set(source.split("\n"))
    for number, line in enumerate(target.split("\n"), 1):
        if line in known:
            continue
        code = _PROSE.sub("", line)
        if not _CODE.search(code):
            continue
        for char, ascii_form in _OPERATORS.items():
            # One the source has too is the model's habit for the file's ASCII: level 5.
            if char in code and char not in file and char not in source:
                raise errors.sent_slip(
                    f"line {number} of target_text has the typographic character {char!r} in "
                    f"its code, which the file never uses: write the operator as code "
                    f"({ascii_form!r}), or put the character inside a string or comment"
                )
