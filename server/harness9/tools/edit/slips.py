"""Slips in `edit_file`'s arguments that are read before (or instead of) matching.

Some are repaired when their reading is certain: a BOM copied at the start of the source, odd
spaces (no-break, figure, thin...) in the indentation, line-number prefixes copied from a quote
or a read tool (`12| `, `12→`, `12:`, `cat -n`) when their numbers are the file's lines at the
match (JSON escaping: see `escapes`). Others would destroy code if written as sent, so they are
refused with what to send instead: an elision marker (`// ... existing code ...`, or a bare
`...` line) that stands for lines the target leaves out, and a target whose newlines arrived
escaped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from harness9.tools.edit import refusals as errors

ODD_SPACES = "\u00a0\u2002\u2003\u2007\u2009\u200a\u202f\u3000"
_ODD_INDENT = re.compile(f"^[ \\t{ODD_SPACES}]*[{ODD_SPACES}][ \\t{ODD_SPACES}]*", re.MULTILINE)
_TO_SPACE = str.maketrans(dict.fromkeys(ODD_SPACES, " "))

# A comment line that only stands for code left out: "// ...", "# ... existing code ...",
# "/* rest unchanged */", "<!-- ... -->".
_COMMENT = re.compile(r"^\s*(?://+|#+|/\*+|<!--|--|;+|\*)\s*(?P<body>.*?)\s*(?:\*/|-->)?\s*$")
_ELIDED = re.compile(
    r"^(?:\.\.\.|…)|(?:\.\.\.|…)$|\bexisting code\b|\b(?:rest|remainder|remaining)\b.*"
    r"\b(?:unchanged|same|omitted|as before|untouched)\b|\bunchanged\b|\bomitted\b",
    re.IGNORECASE,
)
_MARKER_LENGTH = 60  # longer comments are prose, not markers
_BARE = ("...", "\u2026")  # an elision without a comment

# Line-number prefixes: the not-found error's quote (`12| `, ` 12 | `), `cat -n` and `nl`
# (`    12\t`), read tools' `    12→`, `grep -n` and `rg -n` (`12:`).
_PREFIXES = {
    "`N| ` (the error's quote)": re.compile(r"^ *(\d+) ?\| ?"),
    "`N<tab>` (cat -n, nl)": re.compile(r"^ *(\d+)\t"),
    "`N→` (a read tool's)": re.compile(r"^ *(\d+)\u2192"),
    # A match's `N:` or a context line's `N-`, after the file's name when several were read.
    "`N:` (grep -n, rg -n)": re.compile(r"^(?:[^\s:]+[:-])?(\d+)[:-]"),
}


def without_bom(bom: str, source: str, target: str) -> tuple[str, str]:
    """The source and target without the file's BOM when the source starts with it (read_file
    shows it as the first character; it is the file's encoding, never part of an edit)."""
    if not bom or not source.startswith(bom):
        return source, target
    return source[len(bom) :], target.removeprefix(bom)


def plain_indentation(text: str) -> str:
    """`text` with no-break and other odd spaces in its lines' indentation turned into spaces."""
    if not any(char in text for char in ODD_SPACES):
        return text
    return _ODD_INDENT.sub(lambda found: found.group().translate(_TO_SPACE), text)


def refuse_elision(source: str, target: str, file: str) -> None:
    """Refuse a target line that is only an elision marker which neither the source nor the
    file holds: written as sent, it would replace the code it stands for."""
    known = {line.strip() for line in source.splitlines()}
    for number, line in enumerate(target.splitlines(), 1):
        marker = line.strip()
        if marker in known or not _is_marker(marker) or marker in file:
            continue
        raise errors.elision(number, marker)
    _refuse_bare_ellipsis(source, target, file, known)


def _refuse_bare_ellipsis(source: str, target: str, file: str, known: set[str]) -> None:
    """Refuse a target line that is only `...` or `…` (no comment) where the target leaves out
    lines of the source while keeping others, or leaves out several: it stands for them.
    Python's `...` body in place of a line, or one the file or source already has, is code."""
    kept = {line.strip() for line in target.splitlines()}
    dropped = [line for line in known if line and line not in kept and line != "pass"]
    restated = any(line and line in kept for line in known)
    if not dropped or (len(dropped) < 2 and not restated):
        return
    for number, line in enumerate(target.splitlines(), 1):
        marker = line.strip()
        if marker in _BARE and marker not in known and not _is_line_of(marker, file):
            raise errors.elision(number, marker)


def _is_line_of(text: str, file: str) -> bool:
    return re.search(rf"^[ \t]*{re.escape(text)}[ \t]*\r?$", file, re.MULTILINE) is not None


def _is_marker(line: str) -> bool:
    comment = _COMMENT.match(line)
    if comment is None or len(line) > _MARKER_LENGTH:
        return False
    return bool(_ELIDED.search(comment.group("body")))


def refuse_escaped_target(source: str, target: str) -> None:
    """Refuse a one-line target holding a literal `\\n` when the source spans lines and the
    target, unescaped, restates one of them: its newlines were escaped twice on the way."""
    source_lines = source.strip().splitlines()
    if "\n" in target or "\\n" not in target or len(source_lines) < 2:
        return
    lines = _unescaped(target).splitlines()
    known = {line.strip() for line in source_lines}
    if len(lines) > 1 and any(line.strip() in known for line in lines):
        raise errors.escaped_target(target.count("\\n"), len(source_lines))


def _unescaped(text: str) -> str:
    """`text` read as the inside of a JSON string, or as it is when it is not one."""
    try:
        value = json.loads(f'"{text}"')
    except ValueError:
        return text.replace("\\n", "\n").replace("\\t", "\t")
    return value if isinstance(value, str) else text


@dataclass(frozen=True, slots=True)
class Numbered:
    """A source whose every non-blank line carries a line-number prefix of one kind."""

    kind: str  # how the prefix looks, for the refusal
    numbers: tuple[int, ...]  # each prefixed line's number
    source: str  # without the prefixes
    target: str  # the target without them, when every non-blank target line had one too


def numbered(source: str, target: str) -> Numbered | None:
    """The source's line-number prefixes, if every non-blank line of it has one."""
    lines = source.split("\n")
    for kind, pattern in _PREFIXES.items():
        found = [pattern.match(line) for line in lines if line.strip()]
        if not found or not all(found):
            continue
        numbers = tuple(int(m.group(1)) for m in found if m is not None)
        return Numbered(kind, numbers, _strip(lines, pattern), _target(target, pattern))
    return None


def _strip(lines: Sequence[str], pattern: re.Pattern[str]) -> str:
    return "\n".join(pattern.sub("", line, count=1) for line in lines)


def _target(target: str, pattern: re.Pattern[str]) -> str:
    lines = target.split("\n")
    if all(pattern.match(line) for line in lines if line.strip()):
        return _strip(lines, pattern)
    return target


def check_numbers(prefixes: Numbered, first_line: int, rows: Sequence[int | None]) -> None:
    """Refuse prefixes whose numbers are not the file's lines where the stripped source
    matched (`first_line`, and each source line's file line counted from it)."""
    filled = [row for row in rows if row is not None]
    expected = tuple(first_line + row for row in filled)
    if len(expected) != len(prefixes.numbers) or expected != prefixes.numbers:
        raise errors.line_prefixes(prefixes.kind, prefixes.numbers[0], first_line)
