"""One run's checkpoints around its tool batches, with real git on a real temp workspace: what a
batch's kinds of tools decide, and what the change-measuring step measures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness9.engine.events import EventBus
from harness9.schema import ToolCall, ToolKind
from harness9.service.checkpoints.run_checkpoints import FileChangesStep, RunCheckpoints
from harness9.service.checkpoints.workspace_checkpoints import WorkspaceCheckpoints
from harness9.service.sessions.session import Session
from harness9.tools import Registry, default_registry

pytestmark = pytest.mark.timeout(60)

READ = ToolCall("c1", "read_file", '{"path": "a.txt"}')
EDIT = ToolCall("c2", "write_file", '{"path": "a.txt", "content": "x"}')


async def run_checkpoints(workspace: Path) -> tuple[RunCheckpoints, Session]:
    session = Session("s-1")
    keeper = RunCheckpoints(WorkspaceCheckpoints(str(workspace)), session, "r-1", EventBus(), 2)
    await keeper.before_batch(1, [EDIT], [ToolKind.EDIT], 3)
    return keeper, session


async def test_a_batch_of_reads_keeps_no_checkpoint_after_it(workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\n")
    keeper, session = await run_checkpoints(workspace)
    (workspace / "a.txt").write_text("changed by the user meanwhile\n")
    await keeper.after_batch(1, [READ], [ToolKind.READ], 3)
    assert len(session.checkpoints) == 1  # the one before the batch
    # The kind decides, not the name: a call of another kind may have changed files.
    await keeper.after_batch(2, [READ], [ToolKind.OTHER], 5)
    assert [c.turn for c in session.checkpoints] == [1, 2]
    assert [f.path for f in session.checkpoints[-1].files] == ["a.txt"]


async def test_after_the_runs_first_batch_batches_that_only_read_keep_nothing(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("one\n")
    session = Session("s-1")
    keeper = RunCheckpoints(WorkspaceCheckpoints(str(workspace)), session, "r-1", EventBus(), 2)
    for turn in (1, 2):
        await keeper.before_batch(turn, [READ, READ], [ToolKind.READ, ToolKind.READ], 1 + turn)
        await keeper.after_batch(turn, [READ, READ], [ToolKind.READ, ToolKind.READ], 3 + turn)
    # The one before the run, whatever its first batch does: a restore to it cuts the history
    # back to before the run's prompt.
    assert [(c.turn, c.history_len) for c in session.checkpoints] == [(1, 2)]
    (workspace / "a.txt").write_text("changed by the user meanwhile\n")
    await keeper.before_batch(3, [READ], [ToolKind.READ], 7)  # reading it changes nothing
    assert len(session.checkpoints) == 1
    await keeper.before_batch(4, [READ, EDIT], [ToolKind.READ, ToolKind.EDIT], 9)
    assert [(c.turn, c.history_len) for c in session.checkpoints] == [(1, 2), (4, 9)]
    assert [f.path for f in session.checkpoints[-1].files] == ["a.txt"]


async def test_the_changes_of_execute_calls_are_measured_and_reads_are_left_alone(
    workspace: Path,
) -> None:
    checkpoints = WorkspaceCheckpoints(str(workspace))
    tools: Registry = default_registry(workspace, middleware=[FileChangesStep(checkpoints)])
    (workspace / "a.txt").write_text("one\n")
    command = {"command": "echo two > b.txt"}
    ran = await tools.execute(ToolCall("c1", "bash", json.dumps(command)))
    assert ran.changes is not None
    assert [(f.path, f.status) for f in ran.changes.files] == [("b.txt", "added")]
    read = await tools.execute(READ)
    assert (read.output, read.changes) == ("one\n", None)
