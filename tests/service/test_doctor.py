"""`harness9 doctor` as a user runs it: which sandbox works here, and what follows."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness9.process.sandbox import availability

pytestmark = pytest.mark.timeout(60)


def doctor(**env: str) -> subprocess.CompletedProcess[str]:
    defaults = {"HARNESS9_APPROVALS": "", "HARNESS9_SANDBOX": ""}  # the machine's own
    return subprocess.run([sys.executable, "-m", "harness9", "doctor"], capture_output=True,
                          text=True, env={**os.environ, **defaults, **env}, timeout=50,
                          check=False)


def test_doctor_names_the_sandbox_and_the_default_mode() -> None:
    found = availability()
    proc = doctor()
    assert proc.stdout.splitlines()[0] == f"sandbox: {found.mechanism.value}"
    mode = "auto" if found.works else "ask"
    assert f"default approval mode: {mode}" in proc.stdout
    assert proc.returncode == (0 if found.works else 1)


def test_a_sandbox_switched_off_is_said_so() -> None:
    proc = doctor(HARNESS9_SANDBOX="off")
    assert "sandbox setting: off" in proc.stdout
    assert "default approval mode: ask" in proc.stdout
    assert proc.returncode == 1
