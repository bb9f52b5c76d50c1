"""The daemon keeps its keys out of reach of other processes of the user's: not in the
environment the kernel shows for it, nor in what it starts."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

KEY = "sk-hardening-test-key-0123456789"


@pytest.mark.parametrize("command", [["serve"], ["acp"]])
def test_the_key_is_wiped_from_the_daemons_process_environment(
    tmp_path: Path, command: list[str]
) -> None:
    env = {**os.environ, "OPENAI_API_KEY": KEY, "MY_SERVICE_TOKEN": "tok-hardening-secret"}
    daemon = subprocess.Popen([sys.executable, "-m", "harness9", *command], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        environ = Path(f"/proc/{daemon.pid}/environ")
        deadline = time.monotonic() + 20
        seen = environ.read_bytes()
        while (KEY.encode() in seen or b"PATH=" not in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
            seen = environ.read_bytes()
        assert KEY.encode() not in seen
        assert b"tok-hardening-secret" not in seen
        assert b"PATH=" in seen  # only the secrets are wiped
    finally:
        assert daemon.stdin is not None
        daemon.stdin.close()
        daemon.wait(20)
        if daemon.stdout is not None:
            daemon.stdout.close()
