"""`harness9 login`: a key stored 0600 in the config folder serves when the environment has
none, and never reaches what the tools run."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.daemon import StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


def login(*args: str, key: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness9", "login", *args], input=key,
                          capture_output=True, text=True, timeout=30, check=False)


def stored() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "harness9" / "credentials.json"


async def test_a_stored_key_serves_the_daemon_and_stays_out_of_tools(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    done = login("openai", key="sk-stored-123\n")
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(stored().stat().st_mode) == 0o600
    assert json.loads(stored().read_text()) == {"OPENAI_API_KEY": "sk-stored-123"}
    fake_llm.script([Reply("", [Call("bash", {"command": "env"})]), Reply("done")])
    env = {**fake_llm.env(), "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "",
           "HARNESS9_MODEL": "gpt-test"}
    daemon = await start(workspace, env=env)
    result = await daemon.run(prompt="show the environment")
    assert result["status"] == "completed"
    assert fake_llm.requests[0].headers["authorization"] == "Bearer sk-stored-123"
    output = next(m["content"] for m in fake_llm.requests[1].messages if m["role"] == "tool")
    assert "sk-stored-123" not in output and "PATH=" in output
    assert login("openai", "--remove").returncode == 0
    assert json.loads(stored().read_text()) == {}


async def test_a_key_in_the_environment_wins_and_an_open_file_is_ignored(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    assert login("openai", key="sk-stored\n").returncode == 0
    fake_llm.script([Reply("one")])
    daemon = await start(workspace, env={**fake_llm.env(), "HARNESS9_MODEL": "gpt-test"})
    await daemon.run(prompt="hi")
    assert fake_llm.requests[0].headers["authorization"] == "Bearer sk-fake"
    stored().chmod(0o644)
    bare = await start(workspace, env={**fake_llm.env(), "OPENAI_API_KEY": "",
                                       "ANTHROPIC_API_KEY": ""})
    result = await bare.request("agent/models", {})
    assert result["current"] is None  # no key anywhere that may be used


def test_login_refuses_an_empty_key_and_an_unknown_service() -> None:
    assert login("openai", key="\n").returncode == 1
    assert login("gemini").returncode == 2
    assert not stored().exists()
