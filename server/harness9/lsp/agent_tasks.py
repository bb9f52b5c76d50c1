"""`agent/tasks`, `agent/applyTask` and `agent/discardTask`: the background tasks in
worktrees, listed, applied to the workspace (open buffers through the editor), discarded."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from harness9.lsp.agent_methods import parsed_params
from harness9.lsp.lsp_errors import wire_errors
from harness9.lsp.param_fields import params_object
from harness9.lsp.params import parse_session_id
from harness9.service.config.settings import from_environment, resolve

if TYPE_CHECKING:
    from harness9.lsp.server import Harness9Server


async def agent_tasks(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Every task with its status and changes."""
    ls.require_initialized()
    if raw is not None:
        parsed_params(lambda r: params_object(r, "agent/tasks"), raw)
    with wire_errors():
        tasks = await ls.service.tasks.listed()
    return {"tasks": _of_folders(tasks, ls.folders())}


def _of_folders(tasks: list[dict[str, Any]], folders: list[str]) -> list[dict[str, Any]]:
    """The tasks of workspaces in `folders`: a client sees their tasks as it sees their
    sessions."""
    real = [os.path.realpath(folder) for folder in folders]
    return [task for task in tasks
            if any(os.path.commonpath([os.path.realpath(task["workspace"]), folder]) == folder
                   for folder in real)]


async def agent_apply_task(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Apply a task's changes to its workspace, all of them or (on a conflict) none."""
    ls.require_initialized()
    session_id = parsed_params(lambda r: parse_session_id(r, "agent/applyTask"), raw)
    ls.check_session(session_id)
    from harness9.lsp.documents import EditorWorkspace, applies_edits

    settings = resolve(from_environment(os.environ), ls.client_settings)
    through_editor = settings.edits_through_editor and applies_edits(ls.client_capabilities)
    with wire_errors():
        outcome = await ls.service.tasks.apply(
            session_id, lambda root: EditorWorkspace(root, ls, through_editor=through_editor))
    result: dict[str, Any] = {
        "applied": outcome.applied,
        "conflicts": [merge.path for merge in outcome.conflicts],
        "files": outcome.written,
    }
    if outcome.conflicts:
        result["hunks"] = [{"path": merge.path, "text": merge.hunks}
                           for merge in outcome.conflicts]
    return result


async def agent_discard_task(ls: Harness9Server, raw: Any) -> dict[str, Any]:
    """Remove a task's worktree and its branch."""
    ls.require_initialized()
    session_id = parsed_params(lambda r: parse_session_id(r, "agent/discardTask"), raw)
    ls.check_session(session_id)
    with wire_errors():
        await ls.service.tasks.discard(session_id)
    return {"discarded": True}


# Registered by `server` with the other `agent/*` methods.
TASK_METHODS: dict[str, Callable[..., Any]] = {
    "agent/tasks": agent_tasks,
    "agent/applyTask": agent_apply_task,
    "agent/discardTask": agent_discard_task,
}
