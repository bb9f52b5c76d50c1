"""The block log's tool lines reach the editor's log view as `window/logMessage` (Info)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.daemon import StartDaemon
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(30)


async def test_tool_starts_and_ends_are_logged_to_the_editor(
    start: StartDaemon, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("", [Call("bash", {"command": "echo hi"}, id="c1")]), Reply("ok")])
    env = {**fake_llm.env(), "HARNESS9_PROVIDER": "openai", "HARNESS9_MODEL": "gpt-test"}
    daemon = await start(workspace, env=env)
    await daemon.run(prompt="go")
    logged = [m for m in daemon.client.log_messages if "tool=bash" in m.message]
    assert [m.type for m in logged] == [3, 3]  # Info
    assert "Tool start" in logged[0].message and "id=c1" in logged[0].message
    assert "Tool done" in logged[1].message and "hi" in logged[1].message
