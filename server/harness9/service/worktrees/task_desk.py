"""`TaskDesk`: the daemon's background tasks. A run with isolation `worktree` gets a worktree
of its own (made here, its setup script run in the sandbox), is recorded as its session's task,
and its changes are listed, applied to the workspace, or discarded with the worktree."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness9.schema import ToolError
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunContext, RunOutcome, RunRequest, RunWiring, Wire
from harness9.service.service_errors import (
    NotARepository,
    RunCancelled,
    RunError,
    UnknownSession,
)
from harness9.service.sessions.session import new_id
from harness9.service.sessions.session_log import title_of
from harness9.service.worktrees.git_calls import GitFailed
from harness9.service.worktrees.task_apply import ApplyOutcome, apply_task
from harness9.service.worktrees.task_changes import changed_files
from harness9.service.worktrees.task_records import TaskRecord, TaskRecords
from harness9.service.worktrees.task_worktree import (
    SETUP_SCRIPT,
    TaskWorktree,
    make_worktree,
    remove_worktree,
)
from harness9.tools.contract import BaseTool
from harness9.workspace.port import Workspace

WORKTREE = "worktree"  # the one `isolation` there is
_NAMED = 20  # changed files a child's task names to its parent's model
RunCall = Callable[[RunRequest, Wire], Awaitable[RunOutcome]]
# The bash a setup script runs with: in a root, with the run's settings (its sandbox).
SetupShell = Callable[[str, RunSettings], BaseTool]


class TaskDesk:
    """The tasks of the state folder `state`."""

    def __init__(self, state: Path) -> None:
        self._state = state
        self._records = TaskRecords(state)
        self._running: set[str] = set()

    def has_task(self, request: RunRequest) -> bool:
        """Whether `request` runs as a task: asked to, or it continues a task's session."""
        return request.isolation is not None or (
            request.session_id is not None and self._records.load(request.session_id) is not None)

    async def run(
        self, request: RunRequest, wire: Wire, run: RunCall, shell: SetupShell
    ) -> RunOutcome:
        """`run` the request in a new worktree of its workspace (or its session's task's),
        recorded as its session's task once the session is known; its status kept when it
        ends."""
        found = None if request.session_id is None else self._records.load(request.session_id)
        worktree = (found.worktree if found else
                    await self.start(request.root, request.settings, shell))
        request = replace(request, root=worktree.root)
        known: list[str] = []

        async def wired(context: RunContext) -> RunWiring:
            known.append(context.ids.session_id)
            self._running.add(context.ids.session_id)
            await asyncio.to_thread(self._records.save, context.ids.session_id, worktree,
                                    "running", None if found else title_of(request.prompt))
            return await wire(replace(context, worktree=(worktree.root, worktree.branch)))

        status = "error"
        try:
            outcome = await run(request, wired)
            status = outcome.result.status
            return outcome
        except (asyncio.CancelledError, RunCancelled):
            status = "cancelled"
            raise
        finally:
            if known:
                self._running.discard(known[0])
                self._records.save(known[0], worktree, status)
            elif found is None:
                await asyncio.to_thread(remove_worktree, worktree.repo, worktree.path,
                                        worktree.branch)

    async def start(
        self, workspace: str, settings: RunSettings, shell: SetupShell
    ) -> TaskWorktree:
        """A new worktree of `workspace`, its setup script run; `NotARepository` when the
        workspace is in no git repository, a `config` RunError when the setup fails."""
        worktree = await asyncio.to_thread(make_worktree, workspace, self._state, new_id("t"))
        try:
            await _setup(worktree, shell(worktree.path, settings))
        except BaseException:
            await asyncio.to_thread(remove_worktree, worktree.repo, worktree.path,
                                    worktree.branch)
            raise
        return worktree

    async def begin_child(
        self, session_id: str, title: str, workspace: str, settings: RunSettings,
        shell: SetupShell
    ) -> TaskWorktree:
        """A new worktree of `workspace` for a child agent's session `session_id` (a `task`
        call's, titled `title`), recorded as its running task; `NotARepository` when there can
        be none, or `workspace` is a task's worktree already."""
        if await asyncio.to_thread(self._in_a_worktree, workspace):
            raise NotARepository(
                "isolation \"worktree\": this run works in a task's worktree already, apart "
                "from the workspace: run the task without isolation (it then works there too)")
        worktree = await self.start(workspace, settings, shell)
        self._running.add(session_id)
        await asyncio.to_thread(self._records.save, session_id, worktree, "running",
                                title_of(title))
        return worktree

    async def end_child(self, session_id: str, worktree: TaskWorktree, status: str) -> str:
        """A child's run in `worktree` ended with `status`: its task is kept when it changed
        files (else removed); what its parent's model is told of it."""
        self._running.discard(session_id)
        try:
            changes = await asyncio.to_thread(changed_files, worktree)
        except GitFailed as exc:
            await asyncio.to_thread(self._records.save, session_id, worktree, status)
            return f"Its changes are in the task {session_id}; they could not be listed: {exc}"
        if not changes:
            await self.discard(session_id)
            return "It changed no files: its worktree was removed."
        await asyncio.to_thread(self._records.save, session_id, worktree, status)
        names = [change.path for change in changes]
        listed = ", ".join(names[:_NAMED]) + (f" and {len(names) - _NAMED} more"
                                               if len(names) > _NAMED else "")
        return (f"Its changes are not in the workspace: they are the background task "
                f"{session_id} (worktree {worktree.root}, branch {worktree.branch}; changed: "
                f"{listed}), for the user to review, then apply or discard.")

    def as_workspaces(self, session_id: str, roots: set[str]) -> set[str]:
        """`roots` (where a session worked) with its task's worktree named by its workspace
        (a child agent's task, whose session is not stored, is its workspace's)."""
        found = self._records.load(session_id)
        if found is None:
            return roots
        worktree = found.worktree
        mapped = {worktree.workspace if root == worktree.root else root for root in roots}
        return mapped | {worktree.workspace}

    async def listed(self) -> list[dict[str, Any]]:
        """Every task: its session, status, worktree and changes (`agent/tasks`)."""
        return [await asyncio.to_thread(self._listing, session_id)
                for session_id in self._records.session_ids()]

    async def apply(self, session_id: str, workspace: Callable[[str], Workspace]
                    ) -> ApplyOutcome:
        """Apply the task's changes to its workspace (`workspace` of that root: where files
        are written); the task is marked applied when they were."""
        worktree = self._task(session_id).worktree
        if session_id in self._running:
            raise RunError("the task is still running: apply it once it ended", "busy",
                           sessionId=session_id)
        try:
            outcome = await apply_task(worktree, workspace(worktree.workspace))
        except (ToolError, OSError) as exc:
            raise RunError(f"the task was not applied (nothing of it is kept): {exc}",
                           "conflict", sessionId=session_id) from None
        if outcome.applied:
            await asyncio.to_thread(self._records.save, session_id, worktree, "applied")
        return outcome

    async def discard(self, session_id: str) -> None:
        """Remove the task's worktree and branch, and its record."""
        worktree = self._task(session_id).worktree
        if session_id in self._running:
            raise RunError("the task is still running: cancel it first", "busy",
                           sessionId=session_id)
        await asyncio.to_thread(remove_worktree, worktree.repo, worktree.path, worktree.branch)
        self._records.drop(session_id)

    def _in_a_worktree(self, folder: str) -> bool:
        """Whether `folder` is in a task's worktree."""
        worktrees = os.path.realpath(self._state / "worktrees")
        return Path(os.path.realpath(folder)).is_relative_to(worktrees)

    def _task(self, session_id: str) -> TaskRecord:
        found = self._records.load(session_id)
        if found is None:
            raise UnknownSession(session_id)
        return found

    def _listing(self, session_id: str) -> dict[str, Any]:
        record = self._task(session_id)
        worktree, status = record.worktree, record.status
        if status == "running" and session_id not in self._running:
            status = "interrupted"  # its daemon ended while it ran
        changes = changed_files(worktree) if os.path.isdir(worktree.path) else []
        return {
            "sessionId": session_id, "status": status, "title": record.title,
            "worktree": {"path": worktree.root, "branch": worktree.branch},
            "workspace": worktree.workspace,
            "changedFiles": [change.path for change in changes],
            "insertions": sum(change.insertions or 0 for change in changes),
            "deletions": sum(change.deletions or 0 for change in changes),
        }


async def _setup(worktree: TaskWorktree, bash: BaseTool) -> None:
    """Run the worktree's `.harness9/setup` (when it has one) with `bash` (in the sandbox the
    run's commands get); a `config` RunError with its output when it fails."""
    script = os.path.join(worktree.path, SETUP_SCRIPT)
    if not await asyncio.to_thread(os.path.isfile, script):
        return
    output = await bash.execute(json.dumps({"command": f"bash {SETUP_SCRIPT}"}))
    if isinstance(output, str) or output.exit is None or not output.exit.failed:
        return
    raise RunError(f"{SETUP_SCRIPT} failed in the task's worktree:\n{output.text[-2000:]}",
                   "config")
