"""Session modes (the approval modes, `session/set_mode`) and `session/list` paging."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError

from harness9.acp.listing import page_of
from harness9.service.sessions.session_log import SessionMeta
from tests.acp.agent import StartAgent, openai_env
from tests.fakellm.server import FakeLLM
from tests.fakellm.steps import Call, Reply


async def test_sessions_offer_the_approval_modes_and_the_client_picks_one(
    start: StartAgent, fake_llm: FakeLLM, workspace: Path
) -> None:
    agent = await start(env=openai_env(fake_llm))  # HARNESS9_APPROVALS=yolo
    answer = await agent.conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert answer.modes is not None and answer.modes.current_mode_id == "yolo"
    ids = [mode.id for mode in answer.modes.available_modes]
    assert ids == ["ask", "auto", "auto-edit", "yolo", "read-only", "plan"]
    session = answer.session_id
    await agent.conn.set_session_mode(session_id=session, mode_id="read-only")
    write = Call("write_file", {"path": "b.txt", "content": "x"}, id="w")
    fake_llm.script([Reply("", [write]), Reply("refused")])
    await agent.prompt(session, "write b")
    assert not (workspace / "b.txt").exists()
    assert agent.client.tool_updates(session, "w")[-1]["status"] == "failed"
    loaded = await agent.conn.load_session(cwd=str(workspace), session_id=session,
                                           mcp_servers=[])
    assert loaded.modes is not None and loaded.modes.current_mode_id == "read-only"
    other = await agent.conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert other.modes is not None and other.modes.current_mode_id == "yolo"
    await agent.end()  # the agent exits; the mode is stored with the session
    again = await start(env=openai_env(fake_llm))
    reloaded = await again.conn.load_session(cwd=str(workspace), session_id=session,
                                             mcp_servers=[])
    assert reloaded.modes is not None and reloaded.modes.current_mode_id == "read-only"


async def test_a_bad_mode_or_session_names_the_field(
    start: StartAgent, workspace: Path
) -> None:
    agent = await start()
    session = await agent.new_session(workspace)
    with pytest.raises(RequestError) as info:
        await agent.conn.set_session_mode(session_id=session, mode_id="reckless")
    assert info.value.code == -32602 and str(info.value).startswith("modeId:")
    with pytest.raises(RequestError) as info:
        await agent.conn.set_session_mode(session_id="s-nope", mode_id="ask")
    assert info.value.code == -32602 and str(info.value).startswith("sessionId:")
    with pytest.raises(RequestError) as info:
        await agent.conn.list_sessions(cwd=str(workspace), cursor="not-a-cursor")
    assert info.value.code == -32602 and str(info.value).startswith("cursor:")


def test_pages_go_on_after_the_cursor_newest_first_each_session_once() -> None:
    metas = [SessionMeta(f"s-{n}", "/w", updated_at=float(n)) for n in range(1, 6)]
    first, cursor = page_of(metas, None, size=2)
    assert [m.session_id for m in first] == ["s-5", "s-4"] and cursor is not None
    metas[0] = SessionMeta("s-1", "/w", updated_at=9.0)  # changed meanwhile: now the newest
    second, cursor = page_of(metas, cursor, size=2)
    # s-1 moved before the cursor: the pages end here rather than show a session twice
    assert [m.session_id for m in second] == ["s-3", "s-2"] and cursor is None
    whole, cursor = page_of(metas, None, size=5)
    assert len(whole) == 5 and cursor is None
