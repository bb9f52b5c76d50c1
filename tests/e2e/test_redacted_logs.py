"""No secret reaches the daemon's log or its answers: a key the service echoes, a password in
the base URL (which the HTTP library logs with every request)."""

from __future__ import annotations

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
