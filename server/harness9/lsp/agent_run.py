"""`agent/run` on the wire: the service's run, with LSP notifications, `$/progress`, the
editor's approval questions, and the service's errors as JSON-RPC errors."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from harness9.engine.events import (
    CheckpointsUnavailable,
    Event,
    RunFinished,
    Subscriber,
    ToolsWarning,
)
from harness9.engine.log import BlockLogger
from harness9.lsp.approval_requests import EditorApprover, announces_approval_requests
from harness9.lsp.documents import EditorWorkspace, applies_edits
from harness9.lsp.editor_language import EditorLanguage, announced_features
from harness9.lsp.editor_problems import EditorProblems, announces_diagnostics
from harness9.lsp.lsp_errors import wire_errors
from harness9.lsp.params import RunParams
from harness9.lsp.plain_runs import PlainRun
from harness9.lsp.progress import ProgressPublisher, wire_usage
from harness9.lsp.transport import send_notification
from harness9.lsp.workdone import WorkDoneProgress
from harness9.service.agent_service import AgentService
from harness9.service.attachments import ContextItem
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunContext, RunOutcome, RunRequest, RunWiring
from harness9.tools.approvals.step import Approver

block_log = logging.getLogger("harness9.engine")
# The run settings that choose the model: given with a run, they win over the session's model.
OWN_MODEL = frozenset({"provider", "model", "reasoning_effort"})


class _Observers:
    """The run's event subscribers: notifications, `$/progress`, the block log (stderr, and
    the editor's log view: `editor_log`)."""

    def __init__(self, ls: LanguageServer, ids: dict[str, str]) -> None:
        self.ls = ls
        self.progress = ProgressPublisher(
            lambda params: send_notification(ls.protocol, "agent/progress", params),
            ids["runId"],
            ids["sessionId"],
        )
        self.work: WorkDoneProgress | None = None
        self.status = "error"

    def subscribers(self) -> list[Subscriber]:
        """In the order they hear each event."""
        return [
            BlockLogger(block_log), self.progress, self._warn, self._track
        ]

    def _warn(self, event: Event) -> None:
        if isinstance(event, CheckpointsUnavailable | ToolsWarning):
            params = types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"harness9: {event.message}"
            )
            self.ls.window_show_message(params)

    def _track(self, event: Event) -> None:
        if self.work is not None:
            self.work(event)
        if isinstance(event, RunFinished):
            self.status = event.status

    def close(self) -> None:
        """Send buffered text and end the work-done progress (after `run_finished`)."""
        self.progress.flush()
        if self.work is not None:
            self.work.end(self.status)
            self.work = None


async def execute_run(
    ls: LanguageServer,
    service: AgentService,
    params: RunParams,
    settings: RunSettings,
    root: str,
    context: tuple[ContextItem, ...] = (),
    claim: str | None = None,
    plain: PlainRun | None = None,
) -> dict[str, Any]:
    """Run the agent for `params` (with its `context` items placed in `root`; `claim`: as the
    run reserved for a left-over steer; `plain`: what a run a plain LSP client started adds)
    and return the `agent/run` result, or raise its error."""
    request = RunRequest(
        params.prompt, root, settings, params.session_id, context, queue=params.queue,
        plan=params.plan, execute_plan=params.execute_plan, claim=claim,
        own_model=bool(OWN_MODEL & params.overrides.keys()), images=params.images,
        isolation=params.isolation,
    )
    task: asyncio.Task[Any] = asyncio.current_task()  # type: ignore[assignment]
    observers: list[_Observers] = []

    async def wire(context: RunContext) -> RunWiring:
        ids = {"runId": context.ids.run_id, "sessionId": context.ids.session_id}
        run_observers = _Observers(ls, ids)
        if context.worktree is not None:
            path, branch = context.worktree
            run_observers.progress.worktree = {"path": path, "branch": branch}
        observers.append(run_observers)
        run_observers.work = await WorkDoneProgress.open(
            ls, params.work_done_token, task, params.prompt
        )
        rich = announces_approval_requests(ls.client_capabilities)
        asking = EditorApprover(ls.protocol, ids, context.turn_of, rich)
        approver: Approver = asking
        subscribers = run_observers.subscribers()
        if plain is not None:
            subscribers += plain.wired(ids)
            approver = plain.approver(asking)
        return editor_wiring(ls, context.root or root, settings, subscribers, approver)

    try:
        with wire_errors():
            return _result(await service.turns.run(request, wire))
    finally:
        for run_observers in observers:
            run_observers.close()


def editor_wiring(
    ls: LanguageServer,
    root: str,
    settings: RunSettings,
    subscribers: Sequence[Subscriber] = (),
    approver: Approver | None = None,
) -> RunWiring:
    """What this client plugs into a run on `root`: its documents as the workspace, and its
    problems and language servers as it announced them."""
    through_editor = settings.edits_through_editor and applies_edits(ls.client_capabilities)
    workspace = EditorWorkspace(root, ls, through_editor=through_editor)
    problems = (EditorProblems(ls, root, workspace)
                if announces_diagnostics(ls.client_capabilities) else None)
    features = announced_features(ls.client_capabilities)
    language = EditorLanguage(ls, root, workspace, features) if features else None
    return RunWiring(subscribers, approver, workspace, problems, language)


def _result(outcome: RunOutcome) -> dict[str, Any]:
    result = outcome.result
    command = {"command": outcome.command, **outcome.extra} if outcome.command else {}
    return {
        **command,
        "runId": outcome.ids.run_id,
        "sessionId": outcome.ids.session_id,
        "status": result.status,
        "text": result.text,
        "turns": result.turns,
        "toolCalls": result.tool_calls,
        "usage": wire_usage(result.usage),
    }
