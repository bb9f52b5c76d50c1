"""`ChildWorktrees`: where a run's `task` calls with isolation `worktree` run their children.
Each child gets a worktree task of its own (`TaskDesk`: made from the workspace's state, its
setup script run), its file tools and bash working there and the daemon's language servers on
it; when it ends the task is kept for the user (listed, applied, discarded) if it changed files,
and removed if it did not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from harness9.schema import ToolError
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunRequest, RunWiring
from harness9.service.runs.own_servers import OwnServers
from harness9.service.runs.run_tools import setup_shell
from harness9.service.runs.subagents import ChildPlace
from harness9.service.service_errors import NotARepository, RunError
from harness9.service.worktrees.task_desk import TaskDesk
from harness9.workspace.port import DiskWorkspace

if TYPE_CHECKING:
    from harness9.tools.approvals.step import Approver


class ChildWorktrees:
    """The worktrees of one run's isolated children, made from its workspace `root`."""

    def __init__(self, tasks: TaskDesk, own_servers: OwnServers, root: str,
                 approver: Approver | None) -> None:
        self._tasks = tasks
        self._own_servers = own_servers
        self._root = root
        self._approver = approver

    @asynccontextmanager
    async def isolated(self, session_id: str, title: str, settings: RunSettings
                       ) -> AsyncIterator[ChildPlace]:
        """The place the child of session `session_id` (its task titled `title`) works in, its
        task kept or removed when it is left; a `ToolError` saying why when no worktree can be
        made."""
        try:
            worktree = await self._tasks.begin_child(session_id, title, self._root, settings,
                                                     setup_shell)
        except NotARepository as exc:
            raise ToolError(f"Error: {exc}") from None
        except RunError as exc:
            raise ToolError(f"Error: isolation \"worktree\": {exc.message}") from None
        files = DiskWorkspace(worktree.root)
        own = self._own_servers.wire(RunRequest("", worktree.root, settings),
                                     RunWiring(approver=self._approver, workspace=files), files)
        place = ChildPlace(worktree.root, own.wiring, own.steps)
        try:
            yield place
        except asyncio.CancelledError:
            place.status = "cancelled"
            raise
        finally:
            place.note = await self._tasks.end_child(session_id, worktree, place.status)
