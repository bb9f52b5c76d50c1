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


def test_each_guarantee_is_listed_and_auto_is_the_default_only_where_all_hold(
    tmp_path: object,
) -> None:
    from harness9.process.landlock import abi_version
    from harness9.process.sandbox import Mechanism

    if availability().mechanism is Mechanism.BWRAP:
        proc = doctor()
        listed = [line for line in proc.stdout.splitlines() if "held: " in line]
        assert len(listed) >= 8 and all(line.startswith("  held: ") for line in listed)
        assert "default approval mode: auto" in proc.stdout
        if os.geteuid() == 0:
            assert "running as root" in proc.stdout
    if abi_version() < 1:
        pytest.skip("no Landlock here")
    landlock_only = doctor(PATH=str(tmp_path))  # no bubblewrap on this PATH
    assert landlock_only.stdout.splitlines()[0] == "sandbox: landlock"
    assert "  NOT held: protected paths stay read-only" in landlock_only.stdout
    assert "default approval mode: ask" in landlock_only.stdout
