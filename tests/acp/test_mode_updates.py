"""`current_mode_update`: every mode change the agent makes is told to the client, so its mode
picker never shows a mode the session is not in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp.agent import AcpAgent, StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Reply

pytestmark = pytest.mark.timeout(60)


def told_modes(agent: AcpAgent, session: str) -> list[str]:
    """The modes the agent told the client, in order."""
    return [u["currentModeId"] for u in agent.client.of(session)
            if u["sessionUpdate"] == "current_mode_update"]


async def test_approvals_and_plan_commands_tell_the_client_the_new_mode(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm, HARNESS9_APPROVALS="ask"))
    answer = await agent.conn.new_session(cwd=str(workspace), mcp_servers=[])
    session = answer.session_id
    assert answer.modes is not None and answer.modes.current_mode_id == "ask"
    await agent.prompt(session, "/approvals yolo")
    # Told before the prompt answers: the badge no longer says Ask while writes run unasked.
    assert told_modes(agent, session) == ["yolo"]
    await agent.prompt(session, "/approvals")  # shows the mode, changes nothing
    await agent.prompt(session, "/plan")
    assert told_modes(agent, session) == ["yolo", "plan"]
    await agent.conn.set_session_mode(session_id=session, mode_id="auto-edit")  # its own choice
    assert told_modes(agent, session) == ["yolo", "plan"]
    fake_llm.script([Reply("a plan")])
    await agent.prompt(session, "/plan look around")  # this prompt plans, then the mode is back
    assert told_modes(agent, session) == ["yolo", "plan", "plan", "auto-edit"]
    loaded = await agent.conn.load_session(cwd=str(workspace), session_id=session, mcp_servers=[])
    assert loaded.modes is not None and loaded.modes.current_mode_id == "auto-edit"
