"""scripts/test's report: one line per suite, what a suite prints kept in its log, and a failing
suite's log named with its tail shown (scripts/suites.sh, run by real bash)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(30)

SCRIPT = """
set -uo pipefail
logs="$1"
failed=()
. scripts/suites.sh
suite chatty bash -c 'for i in $(seq 730); do echo "ok $i - a TAP line"; done'
background beside bash -c 'sleep 0.2; echo beside-output'
suite broken bash -c 'echo first words; echo the reason it failed >&2; exit 3'
finish beside
echo "failed: ${failed[*]}"
"""


def test_each_suite_is_one_line_and_a_failure_shows_its_log(tmp_path: Path) -> None:
    done = subprocess.run(["bash", "-c", SCRIPT, "suites", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=20, check=True)
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"chatty +passed +\d+ s", lines[0])
    assert re.fullmatch(rf"broken +FAILED +\d+ s  \(exit 3; log: {tmp_path}/broken\.log\)",
                        lines[1])
    assert lines[2:4] == ["    first words", "    the reason it failed"]
    assert re.fullmatch(r"beside +passed +\d+ s", lines[4])
    assert lines[5:] == ["failed: broken"]
    assert done.stderr == ""
    # What the suites printed is in their logs, not on the screen.
    assert (tmp_path / "chatty.log").read_text().count("a TAP line") == 730
    assert "beside-output" in (tmp_path / "beside.log").read_text()
