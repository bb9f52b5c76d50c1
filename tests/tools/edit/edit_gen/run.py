"""Run the generator through `apply_edit` and count, per slip, what happened."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings

from .calls import SLIPS, Example, examples, judge

Apply = Callable[[str, str, str], object]


@dataclass(slots=True)
class Survey:
    """What the examples gave: totals and per-slip counts of applied, refused and wrong edits."""

    total: int = 0
    applied: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    wrong: Counter[str] = field(default_factory=Counter)
    seen: Counter[str] = field(default_factory=Counter)
    refusal_kinds: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[Example, str]] = field(default_factory=list)
    kept: list[Example] = field(default_factory=list)  # the first examples, to replay elsewhere

    def record(self, example: Example, outcome: str, detail: str = "") -> None:
        self.total += 1
        for slip in example.slips:
            self.seen[slip] += 1
            getattr(self, outcome)[slip] += 1
        self.seen["all"] += 1
        getattr(self, outcome)["all"] += 1
        if outcome == "wrong" and len(self.failures) < 50:
            self.failures.append((example, detail))

    def rate(self, outcome: str, slip: str = "all") -> float:
        seen = self.seen[slip]
        return getattr(self, outcome)[slip] / seen if seen else 0.0

    def table(self) -> str:
        rows = [f"{'slip':<16}{'n':>6}{'refused':>9}{'wrong':>7}"]
        for slip in ("all", *SLIPS):
            rows.append(f"{slip:<16}{self.seen[slip]:>6}{self.rate('refused', slip):>8.1%}"
                        f"{self.wrong[slip]:>7}")
        return "\n".join(rows)


def run_one(apply: Apply, error: type[Exception], example: Example, survey: Survey) -> None:
    """Apply one example and record its outcome; an unexpected exception propagates."""
    try:
        outcome = apply(example.content, example.source, example.target)
    except error as exc:
        survey.refusal_kinds[getattr(exc, "kind", "?")] += 1
        survey.record(example, "refused")
        return
    content = getattr(outcome, "content", outcome)
    assert isinstance(content, str)
    problem = judge(example, content)
    survey.record(example, "applied" if problem is None else "wrong", problem or "")


def survey(apply: Apply, error: type[Exception], count: int, keep: int = 0) -> Survey:
    """`count` seeded examples (the same ones every run) through `apply`; the first `keep`
    distinct ones are kept."""
    found = Survey()
    done: set[tuple[str, str, str]] = set()

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(examples())
    def each(example: Example) -> None:
        key = (example.content, example.source, example.target)
        if key not in done:  # the generator repeats itself now and then; count each call once
            done.add(key)
            if len(found.kept) < keep:
                found.kept.append(example)
            run_one(apply, error, example, found)

    each()
    return found


def describe(example: Example, detail: str) -> str:
    """A failure, readable."""
    return (f"{detail}\nedit={example.edit} slips={example.slips} style={example.style}\n"
            f"content={example.content!r}\nsource={example.source!r}\n"
            f"target={example.target!r}\nintended={example.intended_text()!r}")
