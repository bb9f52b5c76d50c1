"""Sources escaped once more (or less) than the file's text, read back when only one reading
matches.

A source JSON-escaped once more than the file (`\\"`, `\\n` for the file's `"` and line break)
is read unescaped, and so is its target, line by line, where the target's escapes are the
source's kind: a target typed right beside a source whose only escapes were doubled backslashes
(`C:\\\\tools` for `C:\\tools`) keeps its single backslashes, `\\uXXXX` is read on every line of
a multi-line target, and `\\'` (no JSON escape) as `'`. A source whose backslashes are all
doubled, or all single, is read with them halved or doubled when that form matches, and the
target likewise only when its backslashes are written the source's way.
"""

from __future__ import annotations

import json
import re

_RUN = re.compile(r"\\+")
_QUOTE_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\'")
_QUOTE = r"\1'"  # `\'` is no JSON escape; models send it for `'`


def json_unescaped(file: str, source: str, target: str) -> tuple[str, str] | None:
    """The source and target JSON-unescaped once, when the source holds an escape, occurs
    nowhere as sent, and its unescaped form occurs exactly once (the only reading)."""
    if "\\" not in source or "\n" in source.strip() or source in file:
        return None
    plain = _json(source)
    if plain is None or plain == source or file.count(plain) != 1:
        return None
    only_backslashes = "\\" not in source.replace("\\\\", "")
    return plain, _target_like(target, only_backslashes)


def _json(text: str) -> str | None:
    """`text` read as the inside of a JSON string (`\\'` read as `'`), or None."""
    try:
        value = json.loads('"' + _QUOTE_ESCAPE.sub(_QUOTE, text) + '"')
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
