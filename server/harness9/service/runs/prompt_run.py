"""`PromptRuns`: the run core. A prompt becomes an engine run on a session: the run takes its
turn on the session, gets its ids, its front-end's wiring, its recorder, its checkpoints and
its engine (the tools of `run_tools` behind the approval step), and always ends with one
`RunFinished` event, also when it failed before the engine started.

Slash commands never reach here: `commands/` turns them into prompts, or runs of their own.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from harness9.engine import EventBus
from harness9.engine.events import Event, Subscriber, ToolsWarning
from harness9.provider.model_catalog import family_of
from harness9.service.attachments import prompt_with_context
from harness9.service.checkpoints.keeper import CheckpointKeeper
from harness9.service.checkpoints.run_checkpoints import FileChangesStep, RunCheckpoints
from harness9.service.checkpoints.workspace_checkpoints import WorkspaceCheckpoints
from harness9.service.run_request import RunContext, RunIds, RunOutcome, RunRequest, RunWiring, Wire
from harness9.service.runs.agents import available_agents, delegation_note
from harness9.service.runs.assembly import CallTurns, build_engine
from harness9.service.runs.child_worktrees import ChildWorktrees
from harness9.service.runs.mcp_servers import McpServers
from harness9.service.runs.own_servers import OwnServers
from harness9.service.runs.planning import PLAN_MODE, prompt_for, run_settings
from harness9.service.runs.run_end import Finish, ended
from harness9.service.runs.run_tools import run_tools, setup_shell
from harness9.service.runs.session_desk import SessionDesk
from harness9.service.runs.session_turns import SessionTurns
from harness9.service.runs.subagents import ChildRuns, ParentRun
from harness9.service.service_errors import RunError, busy
from harness9.service.sessions.session import Session, new_id
from harness9.service.sessions.session_recorder import SessionRecorder
from harness9.service.sessions.session_store import SessionLocked, SessionStore
from harness9.service.worktrees.task_desk import TaskDesk
from harness9.tools.problems import ProblemsStep
from harness9.tools.registry import Middleware
from harness9.workspace.port import DiskWorkspace

if TYPE_CHECKING:
    from harness9.engine.agent_loop import AgentEngine


@dataclass(frozen=True, slots=True)
class RunParts:
    """What the run core works with: the sessions (their store and desk), the turns runs
    take on them, the checkpoint keeper, the MCP servers, the daemon's own language
    servers and the background tasks."""

    store: SessionStore
    sessions: SessionDesk
    turns: SessionTurns
    checkpoints: CheckpointKeeper
    mcp: McpServers
    own_servers: OwnServers
    tasks: TaskDesk


class PromptRuns:
    """Runs prompts on sessions."""

    def __init__(self, parts: RunParts) -> None:
        self._parts = parts
        self._store = parts.store
        self._turns = parts.turns

    async def run(self, request: RunRequest, wire: Wire) -> RunOutcome:
        """Run `request`'s prompt in the current task (which cancelling the run cancels). On a
        session that is running (or has runs queued) the run waits its turn, unless
        `request.queue` is false (a `busy` `RunError`); a `busy` `RunError` while a restore or
        compaction is under way on the session. A run with isolation (or on a task's session)
        runs in its task's worktree (`TaskDesk`)."""
        if self._parts.tasks.has_task(request):
            return await self._parts.tasks.run(request, wire, self._run, setup_shell)
        return await self._run(request, wire)

    async def _run(self, request: RunRequest, wire: Wire) -> RunOutcome:
        """The run, in `request.root`."""
        session = self._session_to_run(request)
        ids = RunIds(request.claim or new_id("r"), session.id)
        entry = self._turns.enter(ids, request.prompt, request.root, request.claim is not None)
        if entry is not None and entry.mode is not None:  # a left-over steer: its run's mode
            request = replace(request, mode=entry.mode)
        holding = entry is None
        finish, turns, recorder = Finish(), CallTurns(), _Later()
        bus = EventBus(finish, turns, recorder)
        try:
            wiring = await wire(RunContext(ids, turns.turn_of, request.root))
            for subscriber in wiring.subscribers:
                bus.subscribe(subscriber)
            if entry is not None:
                await self._turns.wait(ids, entry, bus)
                holding = True
            recorder.target = SessionRecorder(self._store, session, ids.run_id, request.prompt,
                                              request.root)
            return await self._held_run(request, session, ids, bus, wiring, turns)
        except BaseException as exc:
            raise ended(exc, ids, bus, finish, request.root) from None
        finally:
            self._turns.leave(ids, entry, holding)
            self._store.let_go_soon(session.id)

    def _session_to_run(self, request: RunRequest) -> Session:
        """The session a run goes to; `busy` while it is rewritten, or (`queue` off) runs."""
        if request.session_id is None:
            return self._store.create(request.root)
        session = self._parts.sessions.known(request.session_id)
        if session.rewriting is not None or not request.queue:
            return self._parts.sessions.idle(request.session_id)
        return session

    async def _held_run(
        self,
        request: RunRequest,
        session: Session,
        ids: RunIds,
        bus: EventBus,
        wiring: RunWiring,
        turns: CallTurns,
    ) -> RunOutcome:
        """The run, once it holds its session."""
        request = self._settled(request, session)
        task: asyncio.Task[Any] = asyncio.current_task()  # type: ignore[assignment]
        # Noted with checkpoints on or off: no restore may change the files under any run.
        workspace = self._parts.checkpoints.run_started(request.root, ids.run_id, session.id)
        active = self._store.start(session, ids.run_id, task)
        checkpoints = workspace if request.settings.checkpoints else None
        observer = None
        try:
            _require_folder(request.root)
            if checkpoints is not None:
                observer = RunCheckpoints(checkpoints, session, ids.run_id, bus,
                                          len(session.history))
                observer.start()
            engine = await self._engine(request, session, bus, wiring, turns, checkpoints,
                                        observer)
            prompt = await prompt_with_context(
                request.prompt, request.root, request.context, wiring.workspace)
            prompt = prompt_for(prompt, request, session, request.settings)
            self._turns.started(ids.run_id, wiring.workspace,
                                request.settings.approval_policy().mode)
            _check_images(request, engine.provider.model)
            result = await engine.run(prompt, session.history, self._turns.steering(ids.run_id),
                                      request.images)
            return RunOutcome(ids, result)
        finally:
            try:
                if observer is not None:
                    await observer.close()
            finally:
                self._store.finish(session, active)
                self._parts.checkpoints.run_ended(workspace, ids.run_id)

    def _settled(self, request: RunRequest, session: Session) -> RunRequest:
        """The request with the settings of its run on `session` (its mode and model), once
        the session is held by this daemon; `busy` when another daemon holds it."""
        try:  # a run that waited in the queue: another daemon may have continued the session
            self._store.take(session, run=True)
        except SessionLocked as exc:
            raise busy(str(exc), sessionId=session.id) from None
        if request.execute_plan and session.approval_mode == PLAN_MODE:
            session.approval_mode = None  # the plan is approved: back to the normal mode
            self._store.save(session)
        settings = run_settings(request, session)
        if session.model is not None and not request.own_model:
            settings = session.model.applied(settings)
        return replace(request, settings=settings)

    async def _engine(
        self,
        request: RunRequest,
        session: Session,
        bus: EventBus,
        wiring: RunWiring,
        turns: CallTurns,
        checkpoints: WorkspaceCheckpoints | None,
        observer: RunCheckpoints | None,
    ) -> AgentEngine:
        """The run's engine: checkpoints around each batch (`observer`, when on), the tools
        of the run (`run_tools`) behind the approval step."""
        steps: list[Middleware] = []
        if checkpoints is not None:
            steps = [FileChangesStep(checkpoints)]
        own = self._parts.own_servers.wire(request, wiring, wiring.workspace or DiskWorkspace(
            request.root))
        wiring = own.wiring
        if wiring.problems is not None and request.settings.diagnostics_after_edit:
            wait = request.settings.diagnostics_wait_ms / 1000
            steps.append(ProblemsStep(wiring.problems, wait))
        # Inside the problems step: the own servers hear of a call's writes before the
        # problems after it are asked.
        steps += own.steps
        mcp_tools = await self._parts.mcp.tools(
            request.settings, lambda message: bus.emit(ToolsWarning(message)),
            (session.id, request.mcp_servers),
        )
        agents = available_agents(request.root)
        worktrees = ChildWorktrees(self._parts.tasks, self._parts.own_servers, request.root,
                                   wiring.approver)
        children = ChildRuns(ParentRun(request.root, request.settings, session, bus, wiring,
                                       steps, mcp_tools, worktrees), agents)
        tools = run_tools(request.root, request.settings, wiring, seen=session.seen_files,
                          mcp_tools=mcp_tools, subagents=children)
        engine = build_engine(
            request.root, request.settings, session, bus, wiring.approver, turns, tools,
            batch_observer=observer, middleware=steps,
        )
        if engine.system_prompt is not None:
            engine.system_prompt += "\n\n" + delegation_note(agents)
        return engine


@dataclass(slots=True)
class _Later:
    """A subscriber that passes events on once it has a target (the session recorder, from
    the moment a queued run starts: a run that never started is not recorded)."""

    target: Subscriber | None = None

    def __call__(self, event: Event) -> None:
        if self.target is not None:
            self.target(event)


def _check_images(request: RunRequest, model: str) -> None:
    """A `config` RunError when the prompt has images and the model is known not to see them
    (an unknown model is left to its service to refuse)."""
    family = family_of(model)
    if request.images and family is not None and not family.images:
        raise RunError(f"the model {model} does not take images: choose one that does "
                       "(`/model`, the `model` setting) or send the prompt without them",
                       "config")


def _require_folder(root: str) -> None:
    """A `config` RunError when the workspace folder is gone (deleted, or its drive removed):
    nothing could run there, and the session must stay usable for when it comes back."""
    if not os.path.isdir(root):
        raise RunError(f"the workspace folder no longer exists: {root}", "config")
