"""Run the generator through `apply_edit` and count, per slip, what happened."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings

from .calls import SLIPS, Example, examples, judge
from .classes import CLASSES, Case
from .classes import judge as judge_case
from .families import FAMILIES
from .retry import second_call

Apply = Callable[[str, str, str], object]

# Every class of `classes` and `families`, in that order.
ALL_CLASSES = {**CLASSES, **FAMILIES}


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


OUTCOMES = ("applied", "refused", "wrong", "destructive")


@dataclass(slots=True)
class ClassSurvey:
    """What the examples of one slip class gave: outcome counts and the first failures."""

    name: str
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[Case, str]] = field(default_factory=list)
    must_refuse: int = 0  # examples for which a refusal is right (the only or one right answer)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def needless(self) -> int:
        """Refusals of calls whose intent was clear."""
        return self.counts["refused"] - self.must_refuse_refused

    must_refuse_refused: int = 0
    # Needless refusals, and refusals of calls whose meaning the model knows (`Case.meant`),
    # whose error a model reads for its second call:
    retried: int = 0
    retried_ok: int = 0  # of them, those whose second call (see `retry`) gives an intended file

    def row(self) -> str:
        c = self.counts
        return (f"{self.name:<16}{self.total:>7}{c['wrong']:>7}{c['destructive']:>7}"
                f"{c['refused']:>8}{self.needless:>9}{self.retried_ok:>7}/{self.retried}")


def class_table(surveys: list[ClassSurvey]) -> str:
    """One row a class: examples, wrong, destructive, refused, needless refusals, and the
    needless refusals whose second call succeeded."""
    head = (f"{'class':<16}{'n':>7}{'wrong':>7}{'destr':>7}{'refused':>8}{'needless':>9}"
            f"{'2nd call ok':>12}")
    return "\n".join([head, *(s.row() for s in surveys)])


def survey_class(apply: Apply, error: type[Exception], name: str, count: int) -> ClassSurvey:
    """`count` seeded examples of class `name` through `apply`."""
    found = ClassSurvey(name)
    done: set[tuple[str, str, str]] = set()

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(ALL_CLASSES[name]())
    def each(case: Case) -> None:
        key = (case.content, case.source, case.target)
        if key in done:
            return
        done.add(key)
        try:
            outcome = apply(case.content, case.source, case.target)
            result: str | None = getattr(outcome, "content", outcome)  # type: ignore[assignment]
        except error as exc:
            result = None
            if not case.may_refuse or case.meant:
                found.retried += 1
                found.retried_ok += second_call(apply, error, case, str(exc))
        verdict = judge_case(case, result)
        found.counts[verdict] += 1
        if case.may_refuse:
            found.must_refuse += 1
            found.must_refuse_refused += verdict == "refused"
        if verdict in ("wrong", "destructive") and len(found.failures) < 20:
            found.failures.append((case, verdict if result is None else result))

    each()
    return found


def describe_case(case: Case, result: str) -> str:
    """A failure of a class case, readable."""
    return (f"{case.name}/{case.variant}\ncontent={case.content!r}\nsource={case.source!r}\n"
            f"target={case.target!r}\ngot={result!r}\naccepted={sorted(case.accepted)!r}")
