"""Case: `edit_file` against edits generated the way models write them (tests/tools/edit/edit_gen).

10,000 seeded examples (a real-looking file, an intended change, the source and target a model
sends with one or two slips) go through `apply_edit`; the oracle knows the intended file. The
target is no wrong edit at all; the refusal rate, overall and per slip, is reported beside it.

Then 10,000 examples of each slip class of `edit_gen.classes` and `edit_gen.families` (mixed
tabs, drift, elision markers, double escaping, BOM, line-number prefixes, edits sent again,
mixed curly quotes, doubled backslashes, slips that are never code, read tools' output...), each
with its own oracle: per class, no wrong edit and no slip written as sent (targets 0), and the
rate of needless refusals (calls whose intent was clear; at most 20% over all classes), with
how often the model's second call, made from the refusal's quote of the file, gets it right.
"""

from __future__ import annotations

import asyncio
import sys

from benchmarks.core import REPO, Config, Row, info_row, limit_row

NEEDLESS_PERCENT = 20.0  # the most needless refusals over all classes


async def run(config: Config) -> list[Row]:
    """Survey the examples and report wrong edits (target 0) and refusals per slip."""
    count = config.size(10_000, 300, smoke=20)
    rows = await asyncio.to_thread(_survey, count)
    return rows + await asyncio.to_thread(_classes, config.size(10_000, 300, smoke=10))


def _survey(count: int) -> list[Row]:
    sys.path.insert(0, str(REPO / "tests" / "tools" / "edit"))
    from edit_gen.calls import SLIPS
    from edit_gen.run import describe, survey

    from harness9.tools.edit.refusals import EditError
    from harness9.tools.edit_file import apply_edit

    found = survey(apply_edit, EditError, count)
    wrong = limit_row(f"edit_file generated: wrong edits of {found.total}",
                      found.wrong["all"], None, "edits", 0)
    wrong.notes = [describe(*failure) for failure in found.failures[:2]]
    rows = [wrong, info_row("edit_file generated: refused, all slips",
                            100 * found.rate("refused"), None, "%")]
    # A truncated first or last line is refused by design ("include the whole line"), so the
    # rate of the others is the one that measures needless refusals.
    others = found.seen["all"] - found.seen["truncated"]
    needless = found.refused["all"] - found.refused["truncated"]
    rows.append(info_row(f"edit_file generated: refused, calls without a truncated line "
                         f"(n={others})", 100 * needless / max(others, 1), None, "%"))
    for slip in SLIPS:
        rows.append(info_row(f"edit_file generated: refused, {slip} (n={found.seen[slip]})",
                             100 * found.rate("refused", slip), None, "%"))
    return rows


def _classes(count: int) -> list[Row]:
    sys.path.insert(0, str(REPO / "tests" / "tools" / "edit"))
    from edit_gen.run import ALL_CLASSES, describe_case, survey_class

    from harness9.tools.edit.refusals import EditError
    from harness9.tools.edit_file import apply_edit

    rows = []
    surveys = []
    for name in ALL_CLASSES:
        found = survey_class(apply_edit, EditError, name, count)
        surveys.append(found)
        n, counts = found.total, found.counts
        bad = counts["wrong"] + counts["destructive"]
        row = limit_row(f"edit_file class {name}: wrong {counts['wrong']} + written as sent "
                        f"{counts['destructive']} of {n} (refused {counts['refused']}, "
                        f"{found.must_refuse} may be)", bad, None, "edits", 0)
        row.notes = [describe_case(*failure) for failure in found.failures[:2]]
        rows.append(row)
        clear = n - found.must_refuse
        rows.append(info_row(f"edit_file class {name}: needless refusals (n={clear}); second "
                             f"call right after {found.retried_ok} of {found.retried}",
                             100 * found.needless / max(clear, 1), None, "%"))
    clear = sum(s.total - s.must_refuse for s in surveys)
    needless = sum(s.needless for s in surveys)
    retried, retried_ok = sum(s.retried for s in surveys), sum(s.retried_ok for s in surveys)
    rows.append(limit_row(f"edit_file classes: needless refusals over all (n={clear})",
                          100 * needless / max(clear, 1), None, "%", NEEDLESS_PERCENT))
    # A refusal is followed when the model's intent is known: a needless one, or a refusal of
    # a source matching several places, one of which it meant (the `repeated` family).
    rows.append(info_row(f"edit_file classes: second call right after a refusal of a known "
                         f"intent (n={retried})", 100 * retried_ok / max(retried, 1), None, "%"))
    return rows
