"""One run's checkpoints: the engine's `BatchObserver`, and the step that measures what each
bash call changed.

Before a run's first tool batch a checkpoint is always kept (the contract's "before this run"):
the workspace as it was when the run started, written beside the first model call (`start`)
and numbered when the first batch comes, so the batch does not wait for git.
A later batch whose calls only read (every tool of kind `read`) changes nothing and costs nothing
here: no snapshot before it or after it. Before and after every other batch, one is kept when
something changed (the user's own edits between turns included). Each goes into the session's
list with the history length a restore cuts back to: for a run's first checkpoint, the length
before the run's prompt; otherwise the history as it was when the snapshot was taken (never
ending in tool calls without results). When checkpoints cannot work the run goes on
without them, and the first run to find out says so with a `CheckpointsUnavailable` event.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from harness9.engine.events import CheckpointsUnavailable, CheckpointTaken, EventBus
from harness9.schema import FileChanges, ToolCall, ToolKind
from harness9.service.checkpoints.shadow_git import GitError
from harness9.service.checkpoints.snapshots import Checkpoint, CheckpointsOff, ShadowRepo
from harness9.service.checkpoints.workspace_checkpoints import WorkspaceCheckpoints
from harness9.service.sessions.session import Session, SessionCheckpoint
from harness9.tools.contract import BaseTool, ToolOutput, as_output
from harness9.tools.registry import Proceed

_Drafting = asyncio.Task[tuple[ShadowRepo, Checkpoint] | None]  # a run's first checkpoint


class RunCheckpoints:
    """Keeps the checkpoints of one run on its session (implements `BatchObserver`)."""

    def __init__(
        self,
        workspace: WorkspaceCheckpoints,
        session: Session,
        run_id: str,
        bus: EventBus,
        history_at_start: int,
    ) -> None:
        self._workspace = workspace
        self._session = session
        self._run_id = run_id
        self._bus = bus
        self._history_at_start = history_at_start
        self._first = True
        self._early: _Drafting | None = None

    def start(self) -> _Drafting | None:
        """Begin the run's first checkpoint now (the workspace as the run found it), while
        the model answers; the first batch keeps it. The task writing it (waiting for it is
        up to the caller); None on a workspace whose shadow repository is not open yet (its
        first run opens it, and takes its first checkpoint before the first batch: opening
        costs tens of git calls, which a run without tools would wait for at its end)."""
        if not self._workspace.opened:
            return None
        self._early = asyncio.get_running_loop().create_task(self._draft())
        return self._early

    async def _draft(self) -> tuple[ShadowRepo, Checkpoint] | None:
        """The run's first checkpoint, drafted; None when checkpoints are off or failed (the
        first batch then finds out again, and says so)."""
        repo = await self._workspace.repo()
        if repo is None:
            return None
        try:
            return repo, await repo.draft(f"{self._run_id} before the run")
        except (CheckpointsOff, GitError):
            return None

    async def close(self) -> None:
        """The run ended: wait until its first checkpoint's draft is written, if it still is
        (git is not interrupted: a process cancelled while it starts can hang the event loop's
        shutdown on Python 3.11, and a killed `git add` leaves the shadow index locked), and let
        it go when no batch kept it."""
        early, self._early = self._early, None
        if early is not None:
            _unkept.add(early)
            early.add_done_callback(_drop_draft)
            await asyncio.wait([early])

    async def before_batch(
        self, turn: int, calls: Sequence[ToolCall], kinds: Sequence[ToolKind], history_len: int
    ) -> None:
        """Keep the workspace as it is before the batch: always before the run's first, then
        before a batch that may change files, when something changed."""
        if not self._first and _only_reads(kinds):
            return
        first, self._first = self._first, False
        if first and await self._keep_early(turn):
            return
        cut = self._history_at_start if first else history_len
        await self._snapshot(turn, f"before turn {turn}", cut, force=first)

    async def _keep_early(self, turn: int) -> bool:
        """Keep the run's drafted first checkpoint; False when there is none to keep."""
        early, self._early = self._early, None
        drafted = await early if early is not None else None
        if drafted is None:
            return False
        repo, draft = drafted
        try:
            checkpoint = await repo.keep(draft, f"{self._run_id} before turn {turn}")
        except (CheckpointsOff, GitError) as exc:
            self._workspace.turn_off(str(exc))
            self._tell()
            return True
        self._keep(turn, checkpoint, self._history_at_start)
        return True

    async def after_batch(
        self, turn: int, calls: Sequence[ToolCall], kinds: Sequence[ToolKind], history_len: int
    ) -> None:
        """Keep what the batch changed (nothing to look at when it only read files)."""
        if _only_reads(kinds):
            return
        await self._snapshot(turn, f"after turn {turn}", history_len, force=False)

    async def _snapshot(self, turn: int, what: str, cut: int, *, force: bool) -> None:
        repo = await self._workspace.repo()
        if repo is None:
            self._tell()
            return
        try:
            checkpoint = await repo.snapshot(f"{self._run_id} {what}", force=force)
        except (CheckpointsOff, GitError) as exc:
            self._workspace.turn_off(str(exc))
            self._tell()
            return
        if checkpoint is not None:
            self._keep(turn, checkpoint, cut)

    def _keep(self, turn: int, checkpoint: Checkpoint, cut: int) -> None:
        self._workspace.kept += 1
        self._session.checkpoints.append(
            SessionCheckpoint(
                checkpoint.id, self._run_id, turn, checkpoint.created_at, checkpoint.files,
                cut, self._workspace.root, touched_len=len(self._session.touched),
            )
        )
        self._bus.emit(CheckpointTaken(turn, checkpoint.id, checkpoint.files))

    def _tell(self) -> None:
        message = self._workspace.tell()
        if message is not None:
            self._bus.emit(CheckpointsUnavailable(message))


_log = logging.getLogger("harness9.checkpoints")
_unkept: set[_Drafting] = set()  # referenced till done


def _drop_draft(task: _Drafting) -> None:
    _unkept.discard(task)
    if task.cancelled():
        return
    if task.exception() is not None:
        _log.warning("the run's first checkpoint failed: %s", task.exception())
    elif drafted := task.result():
        drafted[0].drop(drafted[1])


def _only_reads(kinds: Sequence[ToolKind]) -> bool:
    """Whether a batch's calls all only read (it changes nothing a checkpoint keeps)."""
    return all(kind is ToolKind.READ for kind in kinds)


class FileChangesStep:
    """Registry middleware (after the approval step): a bash call's result carries what it
    changed in the workspace, from the workspace's tree before and after it. Calls that ran at
    the same time (on this workspace, in any session) are named, not guessed apart."""

    def __init__(self, workspace: WorkspaceCheckpoints) -> None:
        self._workspace = workspace

    async def __call__(
        self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], proceed: Proceed
    ) -> str | ToolOutput:
        """Run the call; measure a command's changes when checkpoints work on this workspace."""
        kind = tool.definition().kind
        if kind is ToolKind.READ:  # it changes nothing
            return await proceed()
        self._workspace.call_started(call.id)
        try:
            if kind is ToolKind.EXECUTE and await self._workspace.repo() is not None:
                output: str | ToolOutput = await self._measured(proceed)
            else:
                output = await proceed()
        finally:
            shared = self._workspace.call_ended(call.id)
        if isinstance(output, ToolOutput) and output.changes is not None and shared:
            return replace(output, changes=replace(output.changes, shared_with=shared))
        return output

    async def _measured(self, proceed: Proceed) -> ToolOutput:
        try:
            before = await self._workspace.tree()
        except (CheckpointsOff, GitError) as exc:
            self._workspace.turn_off(str(exc))
            return as_output(await proceed())
        output = as_output(await proceed())
        try:
            after = await self._workspace.tree()
            files = await self._workspace.changes(before, after)
        except GitError:
            return output  # the batch's checkpoint still records the change
        return replace(output, changes=FileChanges(files))

