"""Case 5: `edit_file`'s four matching levels on a 20,000-line file.

Each level gets a source text that only it can match (the lower levels all miss first, so a
level-4 figure includes three failed searches). The floor is the least any unique replacement
costs: `str.count` plus `str.replace` of the exact text on the same content. Then an edit inside
a 100,000-character line and one replacing it whole, against the same floor.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable

from benchmarks.core import Config, Row, info_row, limit_row, median
from harness9.schema import ToolError

LIMIT_MS = 50.0
BLOCK = 6  # lines in the edited block
TARGET = "  # replaced\n"  # indented like the level-4 source, so it can be re-indented


def make_file(lines: int) -> str:
    """Python-like source with unique, indented lines."""
    out = []
    for i in range(lines):
        if i % 50 == 0:
            out.append(f"def function_{i}(value, scale=1):")
        else:
            out.append(f"    value_{i} = compute(value, {i} * scale)  # step {i % 7}")
    return "\n".join(out) + "\n"


def cases(lines: int) -> dict[str, tuple[str, str, str]]:
    """Level name → (file content, source text, the block as the file spells it), where only
    that level finds a unique match."""
    content = make_file(lines)
    rows = content.splitlines()
    start = lines - lines // 20
    block = "\n".join(rows[start:start + BLOCK])
    shifted = "\n".join("  " + line for line in rows[start:start + BLOCK])
    crlf = content.replace("\n", "\r\n")
    return {
        "L1 exact": (content, block, block),
        "L2 CRLF": (crlf, block, block.replace("\n", "\r\n")),
        "L3 trimmed": (content, "\n\n" + block + "   \n\n", block),
        "L4 indentation": (content, shifted, block),
    }


def _best_ms(reps: int, action: Callable[[], object]) -> float:
    samples = []
    for _ in range(reps):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return median(samples)


def _floor(content: str, source: str) -> None:
    if content.count(source) == 1:
        content.replace(source, "replacement", 1)


async def run(config: Config) -> list[Row]:
    """Time each level against the exact-replace floor."""
    from harness9.tools.edit_file import apply_edit

    lines = config.size(20_000, 2_000)
    reps = max(config.reps, 3)
    rows = []
    for number, (level, (content, source, exact)) in enumerate(cases(lines).items(), start=1):
        found = getattr(apply_edit(content, source, TARGET), "level", number)
        if found != number:
            raise RuntimeError(f"{level}: matched at level {found}")
        ours = _best_ms(reps, functools.partial(apply_edit, content, source, TARGET))
        floor = _best_ms(reps, functools.partial(_floor, content, exact))
        rows.append(limit_row(f"edit_file {level} ({lines} lines)", ours, floor, "ms", LIMIT_MS))
    rows.append(_miss_row(apply_edit, lines, reps))
    rows.extend(_long_line_rows(apply_edit, config.size(100_000, 10_000), reps))
    return rows


def _long_line_rows(
    apply_edit: Callable[[str, str, str], object], chars: int, reps: int
) -> list[Row]:
    """An edit inside one line of `chars` characters (a minified file, a data line), and the
    whole line replaced: each against the exact-replace floor."""
    line = ("data = [" + ", ".join(str(i) for i in range(chars // 4)) + "]")[:chars]
    content = f"def f():\n    {line}\n    return data\n"
    inside = line[chars // 2 : chars // 2 + 50]
    whole = f"    {line}\n    return data"
    rows = []
    for name, source, target in (("inside", inside, "zz"),
                                 ("replacing", whole, "    data = []\n    return data")):
        ours = _best_ms(reps, functools.partial(apply_edit, content, source, target))
        floor = _best_ms(reps, functools.partial(_floor, content, source))
        rows.append(limit_row(f"edit_file {name} a {chars}-character line", ours, floor, "ms",
                              LIMIT_MS))
    return rows


def _miss_row(apply_edit: Callable[[str, str, str], object], lines: int, reps: int) -> Row:
    """The failure path: no level matches, so the error text with its hints is built."""
    content = make_file(lines)
    source = "    value_1 = compute(value, 999999 * scale)\n    missing()"

    def attempt() -> None:
        with contextlib.suppress(ToolError):
            apply_edit(content, source, "x")

    return info_row(f"edit_file no match ({lines} lines)", _best_ms(reps, attempt), None, "ms")
