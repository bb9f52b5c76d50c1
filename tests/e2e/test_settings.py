"""Client settings end to end: init options and didChangeConfiguration merged key by key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon import Daemon, StartDaemon

pytestmark = pytest.mark.timeout(60)

SCRIPT = {"turns": [{"text": "done"}]}


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(SCRIPT))
    return path


async def run_started(daemon: Daemon) -> dict[str, Any]:
    """Run once (it must complete) and return its `run_started` notification."""
    result = await daemon.run(prompt="go")
    assert result["status"] == "completed", result
    return daemon.of_run(result["runId"])[0]


async def test_empty_changes_keep_the_initialization_options(
    start: StartDaemon, workspace: Path, script: Path
) -> None:
    init = {"provider": "replay", "replayFile": str(script), "model": "from-init"}
    # No provider in the environment: only the init options can make a run work.
    env = {"HARNESS9_PROVIDER": "", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": ""}
    daemon = await start(workspace, env={**env, "HARNESS9_MODEL": "from-env"}, init=init)
    for empty in ({}, None, {"harness9": {}}, {"harness9": None}, {"otherTool": {"x": 1}}):
        daemon.change_configuration(empty)  # Neovim and eglot send one right after connecting
    first = await run_started(daemon)
    assert (first["provider"], first["model"]) == ("replay", "from-init")

    daemon.change_configuration({"harness9": {"maxTurns": 3}})  # one key: the others stay
    second = await run_started(daemon)
    assert (second["model"], second["maxTurns"]) == ("from-init", 3)

    daemon.change_configuration({"harness9": {"model": None, "maxTurns": "many"}})
    third = await run_started(daemon)
    assert third["model"] == "from-env"  # null: back to the environment's value
    assert third["maxTurns"] == 3  # an invalid value changes nothing (and is reported)
    assert any("maxTurns" in m.message for m in daemon.client.messages)
    assert not any("no LLM provider" in m.message for m in daemon.client.messages)


async def test_null_returns_a_key_to_its_default(
    start: StartDaemon, workspace: Path, script: Path
) -> None:
    init = {"provider": "replay", "replayFile": str(script), "toolTimeoutMs": 5000}
    daemon = await start(workspace, env={"HARNESS9_MODEL": ""}, init=init)
    daemon.change_configuration({"toolTimeoutMs": None})  # a bare settings object, no section
    started = await run_started(daemon)
    assert (started["model"], started["toolTimeoutMs"]) == ("replay", 60_000)
