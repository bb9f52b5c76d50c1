"""No secret reaches the daemon's log or its answers: a key the service echoes, a password in
the base URL (which the HTTP library logs with every request)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.raw import Spawn, spawn
from tests.fakellm import Fail, FakeLLM, Reply

__all__ = ["spawn"]  # the fixture

pytestmark = pytest.mark.timeout(30)

KEY = "sk-live-0123456789abcdef"
PASSWORD = "pw-0123456789"


def test_keys_and_url_passwords_are_redacted_in_logs_and_errors(
    spawn: Spawn, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    fake_llm.script([Reply("fine"), Fail(401, f"Incorrect API key provided: {KEY}")])
    url = fake_llm.openai_base_url.replace("http://", f"http://me:{PASSWORD}@")
    env = {"HARNESS9_PROVIDER": "openai", "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url,
           "HARNESS9_LOG_LEVEL": "DEBUG"}
    daemon = spawn(env=env)
    daemon.initialize(tmp_path)
    daemon.send({"id": 5, "method": "agent/run", "params": {"prompt": "hi"}})
    _, first = daemon.until_id(5)
    assert first["result"]["text"] == "fine"
    daemon.send({"id": 6, "method": "agent/run", "params": {"prompt": "again"}})
    _, refused = daemon.until_id(6)
    assert refused["error"]["data"]["kind"] == "auth"
    assert "Incorrect API key provided: [redacted]" in refused["error"]["message"]
    daemon.close()
    log = daemon.log()
    assert "HTTP Request: POST" in log  # what the library logs is there, its password is not
    assert KEY not in log and PASSWORD not in log
    assert "[redacted]" in log


STORED = "sk-stored-9876543210fedcba"


def test_a_key_stored_by_login_is_redacted_when_the_service_echoes_it(
    spawn: Spawn, fake_llm: FakeLLM, tmp_path: Path
) -> None:
    """The key comes from `harness9 login`'s file, not the environment: redaction knows it
    once the daemon has read it."""
    done = subprocess.run([sys.executable, "-m", "harness9", "login", "openai"],
                          input=f"{STORED}\n", capture_output=True, text=True, timeout=30,
                          check=False)
    assert done.returncode == 0, done.stderr
    fake_llm.script([Fail(401, f"Incorrect API key provided: {STORED}")])
    env = {"HARNESS9_PROVIDER": "openai", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "",
           "OPENAI_BASE_URL": fake_llm.openai_base_url,
           "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"], "HARNESS9_LOG_LEVEL": "DEBUG"}
    daemon = spawn(env=env)
    daemon.initialize(tmp_path)
    daemon.send({"id": 5, "method": "agent/run", "params": {"prompt": "hi"}})
    notes, refused = daemon.until_id(5)
    assert fake_llm.requests[0].headers["authorization"] == f"Bearer {STORED}"
    assert refused["error"]["data"]["kind"] == "auth"
    assert "Incorrect API key provided: [redacted]" in refused["error"]["message"]
    assert STORED not in str(notes)
    daemon.close()
    assert STORED not in daemon.log()
