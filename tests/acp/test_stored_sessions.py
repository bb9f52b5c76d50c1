"""Sessions are stored when created: another process lists, loads and resumes a session before
its first prompt, and `session/list` without `cwd` lists every stored session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Reply

pytestmark = pytest.mark.timeout(60)


async def test_a_session_without_a_prompt_is_resumed_and_loaded_by_another_process(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    first = await start(env=openai_env(fake_llm))
    early = await first.new_session(workspace)  # the first: answered before the SDK loaded
    later = await first.new_session(workspace)  # answered by the SDK
    await first.conn.set_session_mode(session_id=later, mode_id="read-only")
    second = await start(env=openai_env(fake_llm))  # the first is still running, idle
    listed = await second.conn.list_sessions(cwd=str(workspace))
    assert {s.session_id for s in listed.sessions} == {early, later}
    resumed = await second.conn.resume_session(cwd=str(workspace), session_id=early,
                                               mcp_servers=[])
    assert resumed.modes is not None
    loaded = await second.conn.load_session(cwd=str(workspace), session_id=later,
                                            mcp_servers=[])
    assert loaded.modes is not None and loaded.modes.current_mode_id == "read-only"
    fake_llm.script([Reply("here")])
    assert (await second.prompt(early, "hello")).stop_reason == "end_turn"


async def test_list_without_cwd_lists_the_sessions_of_every_workspace(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    fake_llm.script([Reply("one"), Reply("two")])
    first = await start(env=openai_env(fake_llm))
    here, there = await first.new_session(workspace), await first.new_session(other)
    await first.prompt(here, "in the workspace")
    await first.prompt(there, "in the other one")
    await first.end()
    fresh = await start(env=openai_env(fake_llm))  # has opened no session yet
    listed = await fresh.conn.list_sessions()
    assert [(s.session_id, s.cwd, s.title) for s in listed.sessions] == [
        (there, str(other), "in the other one"), (here, str(workspace), "in the workspace")]
