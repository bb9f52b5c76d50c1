"""The second call of a model that reads a refusal: does the error lead it to the edit?

A refusal of a call whose intent was clear should name the nearest place and what differs, so
that the next call succeeds. The simulated model copies the file lines the error quotes
(`N| text`) as its new source and writes the intended text of those lines as its target; the
second call succeeds when that edit gives an intended file. Of a refusal that quotes several
places, it takes the quote of the place it means. An error that quotes no lines, or
not the lines the edit changes, gives the model nothing to copy: the second call fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .classes import Case

_QUOTED = re.compile(r"^ *(\d+)\| (.*)$", re.MULTILINE)

Apply = Callable[[str, str, str], object]


def second_call(apply: Apply, error: type[Exception], case: Case, message: str) -> bool:
    """Whether a call the refusal `message` leads to gives an intended file: the model takes
    the quote (a run of `N| ` lines; a refusal may quote several places) of the place it
    means."""
    return any(_from_quote(apply, error, case, numbers) for numbers in _quotes(message))


def _quotes(message: str) -> list[list[int]]:
    """The line numbers of each quote in `message`, a quote being a run of `N| ` lines."""
    quotes: list[list[int]] = [[]]
    for line in message.split("\n"):
        quoted = _QUOTED.match(line)
        if quoted:
            quotes[-1].append(int(quoted.group(1)))
        elif quotes[-1]:
            quotes.append([])
    return [numbers for numbers in quotes if numbers]


def _from_quote(apply: Apply, error: type[Exception], case: Case, numbers: list[int]) -> bool:
    """Whether the edit made from the file lines `numbers` quote gives an intended file."""
    lines = case.content.split("\n")
    first, last = numbers[0] - 1, numbers[-1]
    wanted = case.accepted or frozenset({case.meant} if case.meant else ())
    for intended in sorted(wanted):
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
        if getattr(outcome, "content", outcome) in wanted:
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
