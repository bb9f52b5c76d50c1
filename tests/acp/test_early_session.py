"""A client's first `session/new` is answered before the ACP SDK has loaded, with the answer the
SDK side gives, and the session then works as any other."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness9.acp.agent import Harness9Agent
from harness9.acp.early_session import _new_session, plain_new_session
from harness9.service.agent_service import AgentService
from tests.acp.agent import StartAgent, openai_env
from tests.fakellm import FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


def _line(**params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/new",
                       "params": params}).encode()


async def test_the_early_answer_is_what_the_sdk_side_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS9_STATE_DIR", str(tmp_path / "state"))
    settings = {"model": "gpt-test", "provider": "openai", "approvals": {"mode": "auto-edit"}}
    early, result = _new_session(str(tmp_path), settings)
    sdk = await Harness9Agent(AgentService(), settings).new_session(str(tmp_path), [])
    wire = sdk.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert result["sessionId"] == early.session_id != wire.pop("sessionId")
    del result["sessionId"]
    assert result == wire
    assert result["modes"]["currentModeId"] == "auto-edit"


@pytest.mark.parametrize("line", [
    _line(cwd="relative/path", mcpServers=[]),
    _line(cwd="/no/such/folder/here", mcpServers=[]),
    _line(cwd="/"),  # no mcpServers: the SDK names the missing field
    _line(cwd="/", mcpServers=[{"name": "x", "command": "y", "args": [], "env": []}]),
    json.dumps({"jsonrpc": "2.0", "id": True, "method": "session/new",
                "params": {"cwd": "/", "mcpServers": []}}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "session/load",
                "params": {"cwd": "/", "mcpServers": [], "sessionId": "s-1"}}).encode(),
    b"not json",
])
def test_anything_but_a_plain_session_new_is_left_to_the_sdk(line: bytes) -> None:
    assert plain_new_session(line) is None
    assert plain_new_session(_line(cwd="/", mcpServers=[])) is not None


async def test_the_session_answered_early_runs_and_hears_its_commands(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    fake_llm.script([Reply("hello from the model")])
    agent = await start(env={**openai_env(fake_llm), "HARNESS9_LOG_LEVEL": "DEBUG"})
    session_id = await agent.new_session(workspace)
    said = f"session/new answered before the ACP SDK loaded: {session_id}"
    for _ in range(100):  # a thread writes the log
        if said in agent.stderr.read_text():
            break
        await asyncio.sleep(0.05)
    assert said in agent.stderr.read_text()
    await agent.client.wait_for(lambda u: u.get("sessionUpdate") == "available_commands_update")
    answer = await agent.prompt(session_id, "hi")
    assert answer.stop_reason == "end_turn"
    assert agent.client.text(session_id) == "hello from the model"
    second = await agent.new_session(workspace)  # through the SDK, on the same service
    assert second != session_id
    assert "answered before the ACP SDK loaded: " + second not in agent.stderr.read_text()
