"""The checkpoints of one daemon's workspaces: one `WorkspaceCheckpoints` per real root, the
runs in flight on each (no pruning under them), and restoring a session to a checkpoint: the
files that session's calls changed since then, and no others.

A restore rewrites files that every session on the workspace may be using: it is refused
(`busy`) while a run of any session is in flight on the workspace, or on a folder inside it or
around it, and no run starts there until the restore has ended.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection

from harness9.schema import ChangedFile
from harness9.service.background import Background
from harness9.service.checkpoints.files_then import FileThen, files_then
from harness9.service.checkpoints.shadow_git import GitError
from harness9.service.checkpoints.snapshots import (
    CheckpointsOff,
    Restored,
    RestoreFailed,
    ShadowRepo,
)
from harness9.service.checkpoints.tree_restore import Plan
from harness9.service.checkpoints.workspace_checkpoints import WorkspaceCheckpoints
from harness9.service.service_errors import RunError, UnknownCheckpoint, busy
from harness9.service.sessions.session import Session, SessionCheckpoint
from harness9.tools.update_plan import plans_in


class CheckpointKeeper:
    """Workspace checkpoint state, shared by every session on a workspace."""

    def __init__(self, background: Background) -> None:
        self._workspaces: dict[str, WorkspaceCheckpoints] = {}
        self._background = background

    def workspace(self, root: str) -> WorkspaceCheckpoints:
        """The checkpoint state of a workspace root (one per real path, for every session)."""
        key = os.path.realpath(root)
        if key not in self._workspaces:
            self._workspaces[key] = WorkspaceCheckpoints(root)
        return self._workspaces[key]

    def run_started(self, root: str, run_id: str, session_id: str) -> WorkspaceCheckpoints:
        """Note a run in flight on `root` (nothing is pruned or restored under it); a `busy`
        `RunError` while a restore is under way there."""
        for other in self._overlapping(root):
            if other.restoring is not None:
                raise busy(f"the workspace {other.root} is being restored to a checkpoint "
                           f"(session {other.restoring}); try again in a moment",
                           sessionId=session_id)
        workspace = self.workspace(root)
        workspace.in_flight[run_id] = session_id
        return workspace

    def run_ended(self, workspace: WorkspaceCheckpoints, run_id: str) -> None:
        """Note a run's end; prune old checkpoints in the background once none runs."""
        workspace.in_flight.pop(run_id, None)
        if workspace.needs_pruning():
            self._background.start(workspace.prune())

    def _overlapping(self, root: str) -> list[WorkspaceCheckpoints]:
        """The workspaces known here that are `root`, inside it, or around it."""
        key = os.path.realpath(root)
        return [w for other, w in self._workspaces.items()
                if os.path.commonpath([key, other]) in (key, other)]

    def _refuse_while_busy(self, root: str, session: Session) -> None:
        """A `busy` `RunError` while any run is in flight on (or in, or around) `root`, or
        another restore is under way there."""
        for other in self._overlapping(root):
            if other.in_flight:
                run_id, owner = next(iter(other.in_flight.items()))
                raise busy(f"session {owner} is running {run_id} on {other.root}; a restore "
                           "must not change its files under it: wait for it to finish or "
                           "cancel it", sessionId=session.id)
            if other.restoring is not None:
                raise busy(f"the workspace {other.root} is being restored already (session "
                           f"{other.restoring}); try again in a moment", sessionId=session.id)

    async def restore(
        self, session: Session, checkpoint_id: str, only: Collection[str] | None = None
    ) -> Restored:
        """Put the files `session` (not running) changed since one of its checkpoints back as
        they were then (of them, only those in `only` when given), and cut its history and
        later checkpoints back to what they were then. Other sessions' changes, and files only
        the user changed, are left as they are. The checkpoint the restore took first is
        offered too: restoring to it undoes the restore's changes to the files (the
        conversation stays where the restore cut it).

        `UnknownCheckpoint`, or a `RunError`: `busy` while a run is in flight on the workspace
        (in any session), `config` when checkpoints are off, `conflict` or `internal` when the
        files could not be restored (they are then as they were).
        """
        entry = self._entry(session, checkpoint_id)
        workspace = self.workspace(entry.root)
        workspace.restoring = session.id  # before the first await: no run starts meanwhile
        try:
            return await self._restore(workspace, session, entry, restorable(session, entry, only))
        finally:
            workspace.restoring = None

    async def would_restore(
        self, session: Session, checkpoint_id: str, only: Collection[str] | None = None
    ) -> tuple[str, ...]:
        """The files `restore` would put back now (nothing changes); its errors but for the
        ones of writing."""
        entry = self._entry(session, checkpoint_id)
        _, plan = await self._planned(session, entry, only)
        return tuple(plan.paths())

    async def changed_since(self, session: Session, checkpoint_id: str) -> list[FileThen]:
        """The files `restore` would put back now, each as it was at the checkpoint (nothing
        changes, and runs may go on meanwhile)."""
        entry = session.checkpoint(checkpoint_id)
        if entry is None:
            raise UnknownCheckpoint(checkpoint_id)
        repo, plan = await self._planned(session, entry, None)
        try:
            return await files_then(repo.git, plan)
        except GitError as exc:
            raise RunError(f"reading the checkpoint failed: {exc}", "internal",
                           sessionId=session.id) from None

    async def _planned(
        self, session: Session, entry: SessionCheckpoint, only: Collection[str] | None
    ) -> tuple[ShadowRepo, Plan]:
        """The plan of a restore to `entry` as the workspace is now."""
        workspace = self.workspace(entry.root)
        repo = await workspace.repo()
        if repo is None:
            raise RunError(workspace.off or "checkpoints are off", "config")
        try:
            plan = await repo.plan_restore(entry.checkpoint_id, restorable(session, entry, only))
        except KeyError:
            raise UnknownCheckpoint(entry.checkpoint_id, "it is no longer kept") from None
        except (CheckpointsOff, GitError) as exc:
            raise RunError(f"restore failed: {exc}", "internal", sessionId=session.id) from None
        return repo, plan

    def _entry(self, session: Session, checkpoint_id: str) -> SessionCheckpoint:
        """The session's checkpoint to restore: `UnknownCheckpoint`, or `busy` while a run
        is in flight on its workspace."""
        entry = session.checkpoint(checkpoint_id)
        if entry is None:
            raise UnknownCheckpoint(checkpoint_id)
        self._refuse_while_busy(entry.root, session)
        return entry

    async def _restore(
        self, workspace: WorkspaceCheckpoints, session: Session, entry: SessionCheckpoint,
        only: Collection[str],
    ) -> Restored:
        checkpoint_id = entry.checkpoint_id
        repo = await workspace.repo()
        if repo is None:
            raise RunError(workspace.off or "checkpoints are off", "config")
        session.rewriting = "restored to a checkpoint"
        try:
            restored = await repo.restore(entry.checkpoint_id, only)
            workspace.kept += 1  # the restore's own undo checkpoint
        except KeyError:
            raise UnknownCheckpoint(checkpoint_id, "it is no longer kept") from None
        except RestoreFailed as exc:
            workspace.kept += 1  # its undo checkpoint was taken before it failed
            raise _not_restored(exc, session) from None
        except CheckpointsOff as exc:  # the workspace outgrew the limits: no undo snapshot
            raise RunError(str(exc), "config", sessionId=session.id) from None
        except GitError as exc:
            raise RunError(f"restore failed: {exc}", "internal", sessionId=session.id) from None
        finally:
            session.rewriting = None
        _cut_back(session, entry, restored)
        return restored


def _not_restored(exc: RestoreFailed, session: Session) -> RunError:
    """The error of a restore that left the workspace as it was: `conflict` when it was refused
    before any write, `internal` when a write failed and what was written was put back."""
    if exc.conflict:
        message = f"restore refused, nothing was changed: {exc}"
        return RunError(message, "conflict", sessionId=session.id)
    return RunError(f"restore failed: {exc}", "internal", sessionId=session.id)


def _cut_back(session: Session, entry: SessionCheckpoint, restored: Restored) -> None:
    """The session as it was at `entry`, with the restore's undo checkpoint offered last:
    its plan too, when the model wrote it after (the plan the kept history last wrote)."""
    if plans_in(session.history[entry.history_len :]):
        kept = plans_in(session.history[: entry.history_len])
        session.plan = kept[-1] if kept else None
    del session.history[entry.history_len :]
    session.history_rewritten()
    del session.checkpoints[session.checkpoints.index(entry) + 1 :]
    if entry.touched_len is not None:  # the files put back are as they were then
        del session.touched[entry.touched_len :]
    changed = tuple(ChangedFile(path, "modified") for path in restored.paths)
    session.checkpoints.append(SessionCheckpoint(
        restored.undo, entry.run_id, entry.turn, time.time(), changed,
        len(session.history), entry.root, undoes=entry.checkpoint_id,
        touched_len=len(session.touched),
    ))


def restorable(
    session: Session, entry: SessionCheckpoint, only: Collection[str] | None = None
) -> set[str]:
    """The files a restore to `entry` may put back: those the session's calls changed since
    it was taken, and for a restore's undo checkpoint the files that restore changed (of them,
    those in `only` when given)."""
    if entry.touched_len is None:  # kept before sessions counted their files
        later = session.checkpoints[session.checkpoints.index(entry) + 1 :]
        files = {f.path for c in later for f in c.files}
    else:
        touched = session.touched[entry.touched_len :]
        real = os.path.realpath(entry.root)
        roots = {root for root, _ in touched if os.path.realpath(root) == real}
        files = {path for root, path in touched if root in roots}
    if entry.undoes is not None:
        files |= {f.path for f in entry.files}
    return files if only is None else files & set(only)
