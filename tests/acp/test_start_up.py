"""What opening a session prepares for its first prompt while warming up is on: the workspace's
shadow repository, so that prompt's run drafts its first checkpoint beside its first model call.
With checkpoints off nothing is made; an agent closed at once still ends cleanly."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm import Call, FakeLLM, Reply

pytestmark = pytest.mark.timeout(60)


def _repositories(state: Path) -> list[Path]:
    return sorted((state / "checkpoints").glob("*/HEAD"))


async def test_a_new_session_opens_its_shadow_repository_before_the_first_prompt(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    agent = await start(env=openai_env(fake_llm, HARNESS9_WARM_UP="1",
                                       HARNESS9_STATE_DIR=str(state)))
    session = await agent.new_session(workspace)
    async with asyncio.timeout(20):
        while not _repositories(state):
            await asyncio.sleep(0.05)
    fake_llm.script([Reply("", [Call("read_file", {"path": "a.txt"})]), Reply("read")])
    answer = await agent.prompt(session, "read a.txt")
    assert answer.stop_reason == "end_turn"
    assert len(_repositories(state)) == 1  # the run's checkpoints went to that one


async def test_no_shadow_repository_with_checkpoints_off(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    agent = await start(env=openai_env(fake_llm, HARNESS9_WARM_UP="1",
                                       HARNESS9_STATE_DIR=str(state)),
                        settings={"checkpoints": False})
    await agent.new_session(workspace)
    await agent.client.wait_for(lambda u: u.get("sessionUpdate") == "available_commands_update")
    await asyncio.sleep(0.5)
    assert _repositories(state) == []


async def test_an_agent_closed_right_after_session_new_ends_cleanly(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    agent = await start(env=openai_env(fake_llm, HARNESS9_WARM_UP="1",
                                       HARNESS9_STATE_DIR=str(tmp_path / "state")))
    await agent.new_session(workspace)
    assert await agent.end() == 0
