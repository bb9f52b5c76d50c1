"""The checkpoint keeper on real workspaces: a restore and the runs of every session on the
workspace (or a folder inside it, or around it) never overlap."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness9.service.background import Background
from harness9.service.checkpoints.keeper import CheckpointKeeper
from harness9.service.service_errors import RunError
from harness9.service.sessions.session import Session, SessionCheckpoint

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n")
    return root


async def session_with_checkpoint(keeper: CheckpointKeeper, root: Path) -> Session:
    repo = await keeper.workspace(str(root)).repo()
    assert repo is not None
    checkpoint = await repo.snapshot("start", force=True)
    assert checkpoint is not None
    session = Session(id="s-restored", root=str(root))
    session.checkpoints.append(
        SessionCheckpoint(checkpoint.id, "r-1", 1, 0.0, (), 0, str(root), touched_len=0))
    session.note_touched(str(root), ["a.txt"])  # the tests change it as the session's call would
    return session


async def test_no_run_starts_on_the_workspace_while_it_is_restored(workspace: Path) -> None:
    keeper = CheckpointKeeper(Background())
    session = await session_with_checkpoint(keeper, workspace)
    (workspace / "a.txt").write_text("changed\n")
    restoring = asyncio.ensure_future(keeper.restore(session, session.checkpoints[0].checkpoint_id))
    await asyncio.sleep(0)  # the restore has begun: it waits for git
    for root in (workspace, workspace / "sub", workspace.parent):
        with pytest.raises(RunError) as refused:
            keeper.run_started(str(root), "r-other", "s-other")
        assert refused.value.kind == "busy" and "being restored" in refused.value.message
    await restoring
    assert (workspace / "a.txt").read_text() == "alpha\n"
    keeper.run_ended(keeper.run_started(str(workspace), "r-after", "s-other"), "r-after")


async def test_no_restore_while_a_run_of_any_session_is_in_flight_in_or_around_it(
    workspace: Path
) -> None:
    keeper = CheckpointKeeper(Background())
    session = await session_with_checkpoint(keeper, workspace)
    (workspace / "a.txt").write_text("changed\n")
    for root in (workspace, workspace / "sub", workspace.parent):
        running = keeper.run_started(str(root), "r-other", "s-other")
        with pytest.raises(RunError) as refused:
            await keeper.restore(session, session.checkpoints[0].checkpoint_id)
        assert refused.value.kind == "busy" and "s-other" in refused.value.message
        keeper.run_ended(running, "r-other")
        assert (workspace / "a.txt").read_text() == "changed\n"
    await keeper.restore(session, session.checkpoints[0].checkpoint_id)
    assert (workspace / "a.txt").read_text() == "alpha\n"


async def test_a_workspace_grown_past_the_limits_refuses_the_restore_as_config(
    workspace: Path
) -> None:
    keeper = CheckpointKeeper(Background())
    session = await session_with_checkpoint(keeper, workspace)
    repo = await keeper.workspace(str(workspace)).repo()
    assert repo is not None
    repo.limits.max_files = 1  # as if the workspace had grown past 20,000 files since
    (workspace / "b.txt").write_text("more\n")
    with pytest.raises(RunError) as refused:
        await keeper.restore(session, session.checkpoints[0].checkpoint_id)
    assert refused.value.kind == "config" and "more than 1" in refused.value.message
    assert (workspace / "b.txt").exists()
