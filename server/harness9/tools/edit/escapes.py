"""Sources escaped once more (or less) than the file's text, read back when only one reading
matches.

A source JSON-escaped once more than the file (`\\"`, `\\n` for the file's `"` and line break)
is read unescaped, and so is its target, line by line, where the target's escapes are the
source's kind: a target typed right beside a source whose only escapes were doubled backslashes
(`C:\\\\tools` for `C:\\tools`) keeps its single backslashes, `\\uXXXX` is read on every line of
a multi-line target, and `\\'` (no JSON escape) as `'`. A source of several lines whose line
breaks arrived real but whose lines are each escaped is read line by line, and its target so
only when it is escaped alike (it repeats an escaped line of the source, or escapes its
quotes). A source whose backslashes are all doubled, or all single, is read with them halved
or doubled when that form matches, and the target likewise only when its backslashes are
written the source's way.
"""

from __future__ import annotations

import json
import re

_RUN = re.compile(r"\\+")
_QUOTE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\'")
_QUOTE = r"\1'"  # `\'` is no JSON escape; models send it for `'`


def json_unescaped(file: str, source: str, target: str) -> tuple[str, str | None] | None:
    """The source and target JSON-unescaped once, when the source holds an escape and occurs
    nowhere as sent. A one-line source must then occur exactly once (the only reading); a
    source of several lines is read line by line (its line breaks arrived real, each line's
    text escaped), only when every line reads as escaped text, and is matched as any source.
    The target is None when its backslashes could be read either way."""
    if "\\" not in source or source in file:
        return None
    lines = source.strip("\n").split("\n")
    if len(lines) == 1:
        plain = _json(source)
        if plain is None or plain == source or file.count(plain) != 1:
            return None
    else:
        plain = _json_lines(source)
        if plain is None or plain == source:
            return None
        if not _escaped_like(target, lines):
            return plain, None if "\\" in target else target
    only_backslashes = "\\" not in source.replace("\\\\", "")
    return plain, _target_like(target, only_backslashes)


def _json_lines(text: str) -> str | None:
    """`text` read line by line as the insides of JSON strings, or None when a line is not."""
    lines = [_json(line) for line in text.split("\n")]
    return None if None in lines else "\n".join(line or "" for line in lines)


def _escaped_like(target: str, source_lines: list[str]) -> bool:
    """Whether a target of several lines is escaped as its source's lines are: it repeats an
    escaped source line, or it escapes quotes and every line with a quote or a backslash reads
    as escaped text (plain code puts a bare quote on such a line)."""
    escaped = {line for line in source_lines if "\\" in line}
    lines = target.split("\n")
    if any(line in escaped for line in lines):
        return True
    quoting = [line for line in lines if '"' in line or "\\" in line]
    return any('\\"' in line for line in lines) and all(_json(line) is not None
                                                            for line in quoting)


def _json(text: str) -> str | None:
    """`text` read as the inside of a JSON string (`\\'` read as `'`), or None."""
    try:
        # Not strict: a real tab (indentation typed beside escaped text) reads as itself.
        value = json.loads('"' + _QUOTE_ESCAPE.sub(_QUOTE, text) + '"', strict=False)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _target_like(target: str, only_backslashes: bool) -> str:
    """The target unescaped line by line where a line's escapes are the source's kind."""
    if "\\" not in target:
        return target
    if "\n" not in target and not only_backslashes:
        whole = _json(target)
        if whole is not None:
            return whole
        return target.replace("\\n", "\n").replace("\\t", "\t")
    lines = []
    for line in target.split("\n"):
        if only_backslashes and not _all_runs(line, even=True):
            lines.append(line)  # typed right: single backslashes are the file's
            continue
        plain = _json(line) if "\\" in line else None
        lines.append(line if plain is None else plain)
    return "\n".join(lines)


def _all_runs(text: str, *, even: bool) -> bool:
    runs = [len(run) for run in _RUN.findall(text)]
    return bool(runs) and all((n % 2 == 0) if even else n == 1 for n in runs)


def backslash_scaled(source: str, target: str) -> list[tuple[str, str]]:
    """The readings of a source whose backslashes are all doubled (halved) or all single
    (doubled), each with the target scaled alike when its backslashes are written the same
    way (else typed right and kept)."""
    readings = []
    if _all_runs(source, even=True):
        halve = _all_runs(target, even=True)
        readings.append((_scaled(source, 0.5), _scaled(target, 0.5) if halve else target))
    if _all_runs(source, even=False):
        double = _all_runs(target, even=False)
        readings.append((_scaled(source, 2), _scaled(target, 2) if double else target))
    return readings


def _scaled(text: str, factor: float) -> str:
    return _RUN.sub(lambda run: "\\" * int(len(run.group()) * factor), text)
