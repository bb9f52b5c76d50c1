"""The second call of a model that reads a refusal: does the error lead it to the edit?

A refusal of a call whose intent was clear should name the nearest place and what differs, so
that the next call succeeds. The simulated model copies the file lines the error quotes
(`N| text`) as its new source and writes the intended text of those lines as its target; the
second call succeeds when that edit gives an intended file. An error that quotes no lines, or
not the lines the edit changes, gives the model nothing to copy: the second call fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .classes import Case

_QUOTED = re.compile(r"^ *(\d+)\| (.*)$", re.MULTILINE)

Apply = Callable[[str, str, str], object]


def second_call(apply: Apply, error: type[Exception], case: Case, message: str) -> bool:
    """Whether the call the refusal `message` leads to gives an intended file."""
    numbers = [int(n) for n, _ in _QUOTED.findall(message)]
    if not numbers:
        return False
    lines = case.content.split("\n")
    first, last = numbers[0] - 1, numbers[-1]
    for intended in sorted(case.accepted):
        new = intended.split("\n")
        head, tail = _common(lines, new)
        if head < first or len(lines) - tail > last:
            continue  # the quote does not cover what the edit changes
        source = "\n".join(lines[first:last])
        target = "\n".join(new[first : last + len(new) - len(lines)])
        try:
            outcome = apply(case.content, source, target)
        except error:
            continue
        if getattr(outcome, "content", outcome) in case.accepted:
            return True
    return False


def _common(old: list[str], new: list[str]) -> tuple[int, int]:
    """The number of lines `old` and `new` share at their start and (after that) at their end."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail
