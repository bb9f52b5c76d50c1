"""One run's checkpoints around its tool batches, with real git on a real temp workspace: what a
batch's kinds of tools decide, and what the change-measuring step measures."""

from __future__ import annotations

import asyncio
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


async def test_the_runs_first_checkpoint_is_the_workspace_as_the_run_found_it(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("one\n")
    checkpoints = WorkspaceCheckpoints(str(workspace))
    session = Session("s-1")
    keeper = RunCheckpoints(checkpoints, session, "r-1", EventBus(), 2)
    assert keeper.start() is None  # the shadow repository is not open yet: no draft
    await checkpoints.repo()  # as an earlier run left it
    keeper = RunCheckpoints(checkpoints, session, "r-1", EventBus(), 2)
    drafting = keeper.start()
    assert drafting is not None
    await drafting  # while the model answers
    (workspace / "a.txt").write_text("changed while the model answered\n")
    await keeper.before_batch(1, [EDIT], [ToolKind.EDIT], 3)
    [first] = session.checkpoints
    assert (first.turn, first.history_len) == (1, 2)
    repo = await checkpoints.repo()
    assert repo is not None
    assert await repo.git.run("show", f"{first.checkpoint_id}:a.txt") == b"one\n"
    assert await repo.checkpoint_ids() == [first.checkpoint_id]
    await keeper.close()


async def test_a_run_without_tools_names_no_checkpoint(workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\n")
    checkpoints = WorkspaceCheckpoints(str(workspace))
    session = Session("s-1")
    await checkpoints.repo()
    keeper = RunCheckpoints(checkpoints, session, "r-1", EventBus(), 2)
    assert keeper.start() is not None
    await keeper.close()  # the run answered without a tool call: it waits for the draft
    # Nothing of it is left running (a git process cancelled while it starts can hang the
    # event loop's shutdown).
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
    repo = await checkpoints.repo()
    assert repo is not None
    assert (await repo.checkpoint_ids(), session.checkpoints) == ([], [])
    # The next run's first checkpoint is numbered as if the draft had never been.
    later = RunCheckpoints(checkpoints, session, "r-2", EventBus(), 4)
    await later.before_batch(1, [EDIT], [ToolKind.EDIT], 5)
    refs = await repo.git.run("for-each-ref", "--format=%(refname)", "refs/harness9/checkpoints")
    assert refs.decode().split() == ["refs/harness9/checkpoints/000000001"]
