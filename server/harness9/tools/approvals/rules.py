"""Approval rules: `tool` or `tool(pattern)`, the pattern a glob over what a call is about."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

_RULE = re.compile(r"(?P<tool>[A-Za-z0-9_.\-]+)(?:\((?P<pattern>.*)\))?", re.DOTALL)


class PolicyError(ValueError):
    """An approvals setting that cannot be used; the message names the part."""


@dataclass(frozen=True, slots=True)
class Rule:
    """`tool` or `tool(pattern)`."""

    text: str
    tool: str
    pattern: str | None

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Read a rule; a malformed one is a `PolicyError`."""
        match = _RULE.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise PolicyError(f"{text!r} is not a rule: write tool or tool(pattern)")
        return cls(text.strip(), match["tool"], match["pattern"])

    def matches(
        self, tool: str, subject: str | None, *, command: bool, fold_case: bool = False
    ) -> bool:
        """Whether this rule covers a call of `tool` about `subject` (a path or a name, or
        with `command` a command, where `*` spans slashes too); `fold_case` for paths on a
        file system that ignores letter case."""
        if tool != self.tool:
            return False
        if self.pattern is None:
            return True
        return subject is not None and bool(
            _glob(self.pattern, command, fold_case).fullmatch(subject)
        )


def first_match(
    rules: Iterable[Rule], tool: str, subjects: Iterable[str | None], *, command: bool,
    fold_case: bool = False,
) -> Rule | None:
    """The first rule that matches any of `subjects`."""
    subjects = tuple(subjects)
    for rule in rules:
        for subject in subjects:
            if rule.matches(tool, subject, command=command, fold_case=fold_case):
                return rule
    return None


@functools.lru_cache(maxsize=256)
def _glob(pattern: str, command: bool, fold_case: bool) -> re.Pattern[str]:
    """`*` any text (within one path segment for paths), `**` any path, the rest literal."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i) and not command:
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append(".*" if command else "[^/]*")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL | (re.IGNORECASE if fold_case else 0))
