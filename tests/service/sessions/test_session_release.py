"""A session is let go once what used it is done, also after a restore: `/undo` or
`agent/restore` on an idle session leaves it free for another daemon (`harness9 restore`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness9.service.agent_service import AgentService
from tests.fakellm import Call, FakeLLM, Reply
from tests.service.test_runs import Recorder, request

pytestmark = pytest.mark.timeout(30)


async def _written_session(service: AgentService, fake: FakeLLM, root: Path) -> str:
    fake.script([Reply("", [Call("write_file", {"path": "a.txt", "content": "new\n"})]),
                 Reply("done")])
    outcome = await service.turns.run(request(root, "write a.txt"), Recorder().wire)
    assert (root / "a.txt").read_text() == "new\n"
    return outcome.ids.session_id


async def _free_for_another_daemon(session_id: str) -> None:
    await asyncio.sleep(0)  # what used the session is done: it is let go now
    other = AgentService()
    try:
        assert other.sessions.known(session_id).id == session_id  # busy if still held
    finally:
        other.close()


async def test_undo_lets_the_session_go(fake: FakeLLM, tmp_path: Path) -> None:
    service = AgentService()
    session_id = await _written_session(service, fake, tmp_path)
    undone = await service.turns.run(request(tmp_path, "/undo", session_id), Recorder().wire)
    assert undone.result.status == "completed" and not (tmp_path / "a.txt").exists()
    await _free_for_another_daemon(session_id)
    service.close()


async def test_a_restore_lets_the_session_go(fake: FakeLLM, tmp_path: Path) -> None:
    service = AgentService()
    session_id = await _written_session(service, fake, tmp_path)
    await asyncio.sleep(0)
    first = service.checkpoints.listing(session_id)[0].checkpoint_id
    await service.checkpoints.restore(session_id, first)
    assert not (tmp_path / "a.txt").exists()
    await _free_for_another_daemon(session_id)
    service.close()
