"""`CheckpointDesk`: the facade's checkpoints (`AgentService.checkpoints`): a session's
checkpoints, what a restore would put back, and the restore itself; a workspace's
shadow repository opened ahead of its first run."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from harness9.service.checkpoints.files_then import FileThen
from harness9.service.checkpoints.keeper import CheckpointKeeper
from harness9.service.checkpoints.snapshots import Restored
from harness9.service.runs.session_desk import SessionDesk
from harness9.service.sessions.session import Session, SessionCheckpoint
from harness9.service.sessions.session_store import SessionStore


class CheckpointDesk:
    """The checkpoints `keeper` keeps of the sessions of `sessions` (stored in `store`)."""

    def __init__(self, keeper: CheckpointKeeper, sessions: SessionDesk,
                 store: SessionStore) -> None:
        self._keeper = keeper
        self._sessions = sessions
        self._store = store

    async def prepare(self, root: str) -> None:
        """Open the shadow repository of workspace `root` ahead of its first run."""
        await self._keeper.workspace(root).repo()

    def listing(self, session_id: str) -> list[SessionCheckpoint]:
        """The session's checkpoints, oldest first; `UnknownSession`."""
        return list(self._sessions.known(session_id).checkpoints)

    async def restore(
        self, session_id: str, checkpoint_id: str, only: Sequence[str] | None = None
    ) -> Restored:
        """Put the files the session changed since one of its checkpoints back as they were
        then (of them, only those in `only` when given), and cut the session's history back
        to what it was then; the session's later checkpoints are dropped with the history
        they belonged to.

        `UnknownSession`, `UnknownCheckpoint`, or a `RunError` (`busy` while any session runs
        on the workspace; see `CheckpointKeeper.restore`).
        """
        session = self._sessions.idle(session_id)
        # A restore runs to its end even when its request is cancelled: stopped between two
        # writes, it would leave the workspace half restored (its own failures are undone).
        return await asyncio.shield(self._restore(session, checkpoint_id, only))

    async def would_restore(
        self, session_id: str, checkpoint_id: str, only: Sequence[str] | None = None
    ) -> tuple[str, ...]:
        """The files `restore` would put back now; nothing changes."""
        session = self._sessions.idle(session_id)
        return await self._keeper.would_restore(session, checkpoint_id, only)

    async def changed_since(self, session_id: str, checkpoint_id: str) -> list[FileThen]:
        """The files `restore` would put back now, as they were at the checkpoint."""
        session = self._sessions.known(session_id)
        return await self._keeper.changed_since(session, checkpoint_id)

    async def _restore(
        self, session: Session, checkpoint_id: str, only: Sequence[str] | None
    ) -> Restored:
        restored = await self._keeper.restore(session, checkpoint_id, only)
        self._store.save(session)
        return restored
