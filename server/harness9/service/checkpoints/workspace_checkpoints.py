"""Checkpoints in runs: one shadow repository per workspace, shared by every session on it.

`WorkspaceCheckpoints` opens the workspace's `ShadowRepo` on first use and remembers when
checkpoints cannot work there (the user is told once). It also tracks the tool calls running on
the workspace, so the changes measured around one bash call can say which other calls ran at
the same time, and it coalesces tree reads: calls that start together share one `git add`.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from harness9.schema import ChangedFile
from harness9.service.checkpoints.shadow_git import GitError
from harness9.service.checkpoints.snapshots import CheckpointsOff, ShadowRepo

_log = logging.getLogger("harness9.checkpoints")
KEEP = 200  # checkpoints kept per workspace; older ones are pruned after a run


@dataclass
class WorkspaceCheckpoints:
    """The checkpoint state of one workspace root in this daemon."""

    root: str
    off: str | None = None  # why checkpoints are off here, once known
    told: bool = False
    # The runs in flight on this root (run id → session id): no pruning, no restore meanwhile.
    in_flight: dict[str, str] = field(default_factory=dict)
    restoring: str | None = None  # the session being restored here: no run starts meanwhile
    kept: int = 0  # checkpoints in the shadow repository (counted once, then followed)
    _repo: ShadowRepo | None = None
    _opening: asyncio.Lock = field(default_factory=asyncio.Lock)
    _running: dict[str, set[str]] = field(default_factory=dict)
    _trees: _TreeReads | None = None

    @property
    def opened(self) -> bool:
        """Whether the shadow repository is open and checkpoints are on (`repo` answers
        without git)."""
        return self._repo is not None and self.off is None

    async def repo(self) -> ShadowRepo | None:
        """The shadow repository, opened on first use; None when checkpoints are off."""
        async with self._opening:
            if self._repo is None and self.off is None:
                try:
                    self._repo = await ShadowRepo.open(self.root)
                    self._trees = _TreeReads(self._repo)
                    self.kept = len(await self._repo.checkpoint_ids())
                except (CheckpointsOff, GitError, OSError) as exc:
                    self.turn_off(str(exc))
            return self._repo if self.off is None else None

    def turn_off(self, reason: str) -> None:
        """Checkpoints stop for this workspace (the reason is logged once)."""
        if self.off is None:
            message = reason if reason.startswith("checkpoints are off") else (
                f"checkpoints are off for this workspace: {reason}"
            )
            self.off = message
            _log.warning("%s (%s)", message, self.root)

    def tell(self) -> str | None:
        """The reason checkpoints are off, the first time it is asked for; then None."""
        if self.off is None or self.told:
            return None
        self.told = True
        return self.off

    async def tree(self) -> str:
        """The workspace's tree now (a read that started after this call, maybe shared)."""
        assert self._trees is not None
        return await self._trees.read()

    def call_started(self, call_id: str) -> None:
        """A call that may change files is running: it overlaps every other running one."""
        mine = self._running.setdefault(call_id, set())
        for other, theirs in self._running.items():
            if other != call_id:
                theirs.add(call_id)
                mine.add(other)

    def call_ended(self, call_id: str) -> tuple[str, ...]:
        """The call ended: the ids of the calls that ran while it did."""
        return tuple(sorted(self._running.pop(call_id, set())))

    async def changes(self, older: str, newer: str) -> tuple[ChangedFile, ...]:
        """What changed between two trees."""
        repo = await self.repo()
        return tuple(await repo.changes(older, newer)) if repo is not None else ()

    def needs_pruning(self) -> bool:
        """More checkpoints than are kept, and no run in flight on this workspace."""
        return not self.in_flight and self._repo is not None and self.kept > KEEP

    async def prune(self) -> None:
        """Drop old checkpoints (when `needs_pruning`; the state may change before this runs)."""
        if not self.needs_pruning() or self._repo is None:
            return
        try:
            dropped = await self._repo.prune(KEEP)
            self.kept -= dropped
        except GitError as exc:
            _log.warning("pruning checkpoints of %s failed: %s", self.root, exc)
            return
        if dropped:
            _log.info("pruned %d old checkpoints of %s", dropped, self.root)


class _TreeReads:
    """Tree reads that callers share: a caller waits for a read that started after it asked
    (so it sees everything before its call), and every caller waiting meanwhile shares it."""

    def __init__(self, repo: ShadowRepo) -> None:
        self._repo = repo
        self._next: asyncio.Future[str] | None = None
        self._busy = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()  # kept referenced until done

    async def read(self) -> str:
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(self._start(self._next))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return await asyncio.shield(self._next)

    async def _start(self, future: asyncio.Future[str]) -> None:
        async with self._busy:
            # From here on, new callers ask for the read after this one.
            self._next = None
            try:
                future.set_result(await self._repo.current_tree())
            except Exception as exc:
                future.set_exception(exc)
