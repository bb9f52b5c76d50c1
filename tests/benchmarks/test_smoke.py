"""`python -m benchmarks --smoke` runs every case to the end and reports each one.

Timings are not checked here (the machine may be busy); only that the benchmark code works.
Not part of the default run: `pytest -m benchmark` runs it (scripts/test does, as its own step).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The first words of the rows each case reports.
PREFIXES = {
    "cold_start": "cold start",
    "exec": "exec: ",
    "turn_overhead": "turn overhead",
    "parallel_tools": "parallel tools",
    "streaming": "stream ",
    "edit_file": "edit_file ",
    "floods": "flood: ",
    "many_runs": "concurrent runs",
    "memory": "memory: ",
    "acp": "acp ",
    "mcp": "mcp: ",
    "steering": "steer: ",
    "subagents": "explore children",
    "worktrees": "worktree task",
}


@pytest.mark.benchmark
@pytest.mark.timeout(420)  # a busy machine can make it take minutes
def test_smoke_run_reports_every_case(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--smoke", "--json", str(out)],
        cwd=REPO, env={**os.environ, "COLUMNS": "160"}, capture_output=True, text=True,
        timeout=400, check=False,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    rows = json.loads(out.read_text())
    keys = {"case", "ours", "floor", "unit", "ratio", "target", "pass"}
    assert all(set(row) == keys for row in rows), rows
    for case, prefix in PREFIXES.items():
        assert any(prefix in row["case"] for row in rows), f"no row for {case}: {proc.stdout}"
    missing = [row["case"] for row in rows if row["ours"] is None]
    assert not missing, proc.stdout
    assert "harness9 benchmarks" in proc.stdout
