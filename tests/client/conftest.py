"""Helpers for driving `harness9` as a real subprocess, the way a user or a script does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.sshd import ssh_host

__all__ = ["ssh_host"]

HARNESS9 = [sys.executable, "-m", "harness9"]


@dataclass
class Completed:
    """A finished `harness9` process: exit code, stdout, stderr."""

    code: int
    out: str
    err: str

    def json_lines(self) -> list[dict[str, Any]]:
        """stdout parsed as JSON lines."""
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


def run_harness9(*args: str, timeout: float = 30, env: dict[str, str] | None = None) -> Completed:
    """Run `python -m harness9 ARGS…` to completion."""
    proc = subprocess.run(
        [*HARNESS9, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env if env is not None else dict(os.environ),
    )
    return Completed(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(autouse=True)
def _private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Demo copies and daemon logs of the processes a test starts land in its own temp folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    # Tests of the view let every tool run; the approval tests choose their mode themselves.
    monkeypatch.setenv("HARNESS9_APPROVALS", "yolo")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def replay(tmp_path: Path) -> Any:
    """Writes a replay script of `turns` and returns its path."""

    def write(turns: list[dict[str, Any]], **extra: Any) -> Path:
        path = tmp_path / "replay.json"
        path.write_text(json.dumps({"turns": turns, **extra}), encoding="utf-8")
        return path

    return write
