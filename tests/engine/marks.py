"""Measuring how many bash calls ran at once: each appends its start and end instants to a file."""

from __future__ import annotations

from pathlib import Path


def marked_command(marks: Path, n: int, sleep: float) -> str:
    """A bash command that appends its start and end instants (bash's own clock, no fork) to
    `marks`, sleeping in between, and prints `n`."""
    return (f'echo "S $EPOCHREALTIME" >> {marks}; sleep {sleep}; '
            f'echo "E $EPOCHREALTIME" >> {marks}; echo {n}')


def most_at_once(marks: Path) -> int:
    """The largest number of calls between their start and end marks at any instant."""
    points = []
    for line in marks.read_text().splitlines():
        kind, at = line.split()
        # At equal instants count the end first: a call that starts as another ends is a handover.
        points.append((float(at), 0 if kind == "E" else 1))
    live = peak = 0
    for _, start in sorted(points):
        live += 1 if start else -1
        peak = max(peak, live)
    return peak
