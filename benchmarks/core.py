"""Result rows, targets and the interleaved timing helpers every case shares."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


TIGHT_REPS = 9


@dataclass(frozen=True, slots=True)
class Config:
    """How a run is sized: `quick` shrinks every case to seconds; `reps` repetitions per figure;
    `smoke` (a quick run that is smaller still) only shows that every case runs to its end."""

    quick: bool = False
    reps: int = 5
    smoke: bool = False

    @property
    def tight_reps(self) -> int:
        """Rounds for a figure whose target is a margin of a millisecond or two a turn over its
        floor: the machine's noise between rounds is of that size, and the median of three
        flaps around the target. At least `TIGHT_REPS` (quick runs keep theirs)."""
        return self.reps if self.quick else max(self.reps, TIGHT_REPS)

    def size(self, full: int, quick: int, smoke: int | None = None) -> int:
        """`full` normally, `quick` in quick mode, `smoke` (else `quick`) in a smoke run."""
        if self.smoke and smoke is not None:
            return smoke
        return quick if self.quick else full


@dataclass(slots=True)
class Row:
    """One line of the report: our figure, its floor, and whether the target is met."""

    case: str
    ours: float | None
    floor: float | None
    unit: str
    target: str
    passed: bool
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """ours / floor, when both exist."""
        if self.ours is None or not self.floor:
            return None
        return self.ours / self.floor

    def as_json(self) -> dict[str, Any]:
        """The JSON object of this row (the report's stable keys)."""
        return {
            "case": self.case,
            "ours": _round(self.ours),
            "floor": _round(self.floor),
            "unit": self.unit,
            "ratio": _round(self.ratio),
            "target": self.target,
            "pass": self.passed,
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def ratio_row(case: str, ours: float, floor: float, unit: str, limit: float) -> Row:
    """Pass when ours ≤ limit × floor."""
    return Row(case, ours, floor, unit, f"≤ {limit:g}× floor", ours <= limit * floor)


def margin_row(case: str, ours: float, floor: float, unit: str, margin: float) -> Row:
    """Pass when ours − floor ≤ margin (an overhead budget in the row's unit)."""
    return Row(case, ours, floor, unit, f"≤ floor + {margin:g} {unit}", ours - floor <= margin)


def limit_row(case: str, ours: float, floor: float | None, unit: str, limit: float) -> Row:
    """Pass when ours ≤ an absolute limit; the floor, if any, is for information."""
    return Row(case, ours, floor, unit, f"≤ {limit:g} {unit}", ours <= limit)


def info_row(case: str, ours: float, floor: float | None, unit: str) -> Row:
    """A figure reported for information only: it always passes."""
    return Row(case, ours, floor, unit, "info", True)


def error_row(case: str, exc: BaseException) -> Row:
    """A case that could not run: reported as a failure with the reason."""
    return Row(case, None, None, "", "runs", False, [f"{type(exc).__name__}: {exc}"])


def median(values: list[float]) -> float:
    """The median of a non-empty list."""
    return statistics.median(values)


Timed = Callable[[], Awaitable[float]]


async def interleave(reps: int, *measures: Timed) -> list[list[float]]:
    """Run each measure `reps` times, alternating their order every round, and collect samples.

    Interleaving spreads the machine's noise (other jobs on the 2 cores) evenly over ours and the
    floor; reversing the order each round cancels the advantage of going first.
    """
    samples: list[list[float]] = [[] for _ in measures]
    order = list(range(len(measures)))
    for _ in range(reps):
        for index in order:
            samples[index].append(await measures[index]())
        order.reverse()
    return samples


def now() -> float:
    """A monotonic clock shared by every process of the machine (CLOCK_MONOTONIC)."""
    return time.monotonic()
