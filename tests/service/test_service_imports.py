"""What importing the service costs: ACP's first `session/new` waits for it, so the language
server client (lsprotocol's types alone take ~370 ms) loads only when a run needs its own
servers."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(60)


def test_the_service_loads_without_the_language_server_client() -> None:
    probe = ("import sys, harness9.service.agent_service\n"
             "print(sorted(m for m in ('lsprotocol', 'pygls') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"
