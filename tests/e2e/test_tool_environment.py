"""End to end: tool processes never see the daemon's secrets, and `toolEnvironment` adjusts that."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.e2e.daemon import Daemon, StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)

SECRETS = {
    "OPENAI_API_KEY": "sk-openai-e2e-secret",
    "ANTHROPIC_API_KEY": "sk-ant-e2e-secret",
    "GITHUB_TOKEN": "ghp-e2e-secret",
    "MY_SECRET": "my-e2e-secret",
}
ENV_RUN = [Reply("", [Call("bash", {"command": "env"})]), Reply("done")]


async def secret_daemon(
    start: StartDaemon, fake: FakeLLM, root: Path, init: dict[str, Any] | None = None
) -> Daemon:
    env = {**fake.env(), **SECRETS, "VISIBLE_VAR": "visible", "HARNESS9_PROVIDER": "openai"}
    return await start(root, env=env, init=init)


async def bash_env(daemon: Daemon) -> set[str]:
    """The `NAME=value` lines `bash: env` showed the model, in one run."""
    result = await daemon.run(prompt="show the environment")
    assert result["status"] == "completed", result
    done = [n for n in daemon.of_run(result["runId"]) if n["kind"] == "tool_completed"]
    return set(done[0]["output"].splitlines())


async def test_bash_env_shows_no_secret(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script(ENV_RUN)
    daemon = await secret_daemon(start, fake_llm, workspace)
    lines = await bash_env(daemon)
    text = "\n".join(lines)
    for value in SECRETS.values():
        assert value not in text
    assert "VISIBLE_VAR=visible" in lines
    names = {line.split("=", 1)[0] for line in lines}
    assert {"PATH", "HOME"} <= names
    # Nothing the model is sent carries the values either: the system prompt, the tool result.
    for request in fake_llm.requests:
        for value in SECRETS.values():
            assert value not in str(request.body)


async def test_tool_environment_setting_adjusts_it(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script(ENV_RUN * 2)
    init = {"toolEnvironment": {"include": ["GITHUB_TOKEN", "*"], "exclude": ["VISIBLE_*"]}}
    daemon = await secret_daemon(start, fake_llm, workspace, init)
    lines = await bash_env(daemon)
    assert {"GITHUB_TOKEN=ghp-e2e-secret", "MY_SECRET=my-e2e-secret"} <= lines
    assert "VISIBLE_VAR=visible" in lines  # include wins over exclude
    text = "\n".join(lines)
    assert SECRETS["OPENAI_API_KEY"] not in text and SECRETS["ANTHROPIC_API_KEY"] not in text

    change = {"harness9": {"toolEnvironment": {"exclude": ["VISIBLE_*"]}}}
    daemon.change_configuration(change)
    lines = await bash_env(daemon)
    assert not any(line.startswith(("VISIBLE_VAR=", "GITHUB_TOKEN=")) for line in lines)


async def test_tool_environment_is_daemon_wide(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    init = {"toolEnvironment": {"include": "GITHUB_TOKEN"}}
    daemon = await secret_daemon(start, fake_llm, workspace, init)
    assert any("toolEnvironment" in m.message for m in daemon.client.messages)
    with pytest.raises(JsonRpcInvalidParams, match="toolEnvironment: is daemon-wide"):
        await daemon.run(prompt="x", toolEnvironment={"include": ["*"]})
