"""The report: a rich table on the terminal and the same rows as JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.core import Row


def _fmt(value: float | None) -> str:
    if value is None:
        return "—"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def table(rows: Sequence[Row], title: str) -> Table:
    """The rows as a rich table: case, ours, floor, unit, ratio, target, pass."""
    grid = Table(title=title)
    for name, justify in (("case", "left"), ("ours", "right"), ("floor", "right"),
                          ("unit", "left"), ("ratio", "right"), ("target", "left"),
                          ("pass", "center")):
        grid.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        ratio = "—" if row.ratio is None else f"{row.ratio:.2f}×"
        verdict = "[green]pass[/]" if row.passed else "[red]FAIL[/]"
        grid.add_row(row.case, _fmt(row.ours), _fmt(row.floor), row.unit, ratio, row.target,
                     verdict)
    return grid


def show(rows: Sequence[Row], console: Console, title: str) -> None:
    """Print the table, then each row's notes."""
    console.print(table(rows, title))
    for row in rows:
        for note in row.notes:
            console.print(f"  [dim]{row.case}:[/] {note}", highlight=False)


def write_json(rows: Sequence[Row], path: Path) -> None:
    """Write the rows as a JSON list of objects."""
    path.write_text(json.dumps([row.as_json() for row in rows], indent=2, ensure_ascii=False))
