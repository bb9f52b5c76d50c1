"""The splitter against real bash: whatever a line it understands runs, it listed.

Generated lines (tests/tools/approvals/shell_lines.py) run through `bash -c`; their markers
record each call they make (bash_trace.py). For every line the splitter claims to understand,
each call bash made must be one it listed (the program after wrappers, and the arguments when
it knew them all), and each file bash created must be the target of a redirection it counted
as a write. `H9_SHELL_EXAMPLES` runs more examples than CI does.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness9.tools.approvals.command_forms import runs
from harness9.tools.approvals.shell_split import split_command
from tests.tools.approvals.bash_trace import BIN, Ran, make_markers, run_lines
from tests.tools.approvals.shell_lines import lines, soup

pytestmark = pytest.mark.timeout(240)

_EXAMPLES = int(os.environ.get("H9_SHELL_EXAMPLES", "120"))
_BATCH = 25


def disagreements(line: str, ran: Ran) -> list[str]:
    """How what bash did differs from what the splitter said it would do ([] when the
    splitter does not claim to understand the line)."""
    split = split_command(line)
    if not split.understood:
        return []
    # (program, arguments): an expanded command word matches the programs its text names
    # (`m1$x` may run m1), unknown arguments (None) any arguments.
    listed: list[tuple[str, bool, tuple[str, ...] | None]] = []
    written: set[str] = set()
    unknown_write = False
    for command in split.commands:
        words = runs(command.words)
        if words:
            head = words[0].value
            values = [word.value for word in words[1:]]
            known = None if None in values else tuple(str(value) for value in values)
            name = head.rsplit("/", 1)[-1] if head is not None else words[0].raw
            listed.append((name, head is None, known))
        for redirect in command.redirects:
            if redirect.writes and redirect.target.value is None:
                unknown_write = True
            elif redirect.writes:
                written.add(os.path.normpath(str(redirect.target.value)))
    problems = [
        f"bash ran {name} {args!r}; the splitter listed {listed!r}"
        for name, args in ran.calls
        if not any((name in program if expanded else name == program) and known in (None, args)
                   for program, expanded, known in listed)
    ]
    if not unknown_write:
        problems += [f"bash wrote {path}; the splitter counted writes to {sorted(written)}"
                     for path in sorted(ran.created - written)]
    return problems


def test_what_bash_runs_is_what_the_splitter_lists(tmp_path_factory: pytest.TempPathFactory
                                                   ) -> None:
    markers = make_markers(tmp_path_factory.mktemp("markers"))
    stats: Counter[str] = Counter()

    @settings(max_examples=_EXAMPLES, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(st.one_of(lines(), lines(), soup()), min_size=_BATCH, max_size=_BATCH))
    def check(batch: list[str]) -> None:
        texts = [line.replace(BIN, str(markers)) for line in batch]
        results = run_lines(texts, tmp_path_factory.mktemp("lines"), markers)
        problems = []
        for text, ran in zip(texts, results, strict=True):
            understood = split_command(text).understood
            stats["understood" if understood else "not understood"] += 1
            stats["understood, ran markers" if understood and ran.calls else "other"] += 1
            problems += [f"{text!r}: {problem}" for problem in disagreements(text, ran)]
        assert problems == []

    check()
    # The check must have teeth: many lines understood, and running markers.
    print(dict(stats))
    assert stats["understood, ran markers"] >= _EXAMPLES * _BATCH // 5


@pytest.mark.parametrize("line", [
    "m1 status \\ #; m2 PWNED",
    "m1 status\\\n#; m2 PWNED",
    "m1 $[1<<X]\nm2 PWNED\nX]",
    "m1 ${x<<X}\nm2 PWNED\nX}",
    "m1 \\\n#x; m2\nm3",
    "m1 <<EOF\nEO\\\nF\nm2\nEOF",
    "x='a[$(m2)]'; m1 $((x))",
    "x='a[$(m2 >&2)]'; [ -v \"$x\" ]",
    "m1 `m2 \\`m3\\``",
    "m1 <<EOF $(m2\n)\nbody\nEOF",
    "echo $(cat <<EOF\nm2\nEOF\n)",
])
def test_lines_that_fooled_the_old_splitter(tmp_path: Path, line: str) -> None:
    markers = make_markers(tmp_path / "m")
    [ran] = run_lines([line], tmp_path, markers)
    assert disagreements(line, ran) == []
