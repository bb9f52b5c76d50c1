"""`AgentService`: the one facade every front-end calls. A prompt becomes an engine run on a
session; sessions are listed, shown, deleted, compacted and restored to checkpoints.

The work is done by collaborators: the session store (`sessions/`), the checkpoint keeper
(`checkpoints/`), the MCP servers (`mcp_servers`) and the engine's assembly (`assembly`). `run`
always ends with one `RunFinished` event, also when the run failed before the engine started.
Failures come out as the errors of `service_errors`. Nothing here knows a wire protocol.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harness9.engine import EventBus
from harness9.engine.compaction import Compaction
from harness9.engine.compaction import compact as compact_history
from harness9.engine.context import messages_tokens
from harness9.engine.events import Event, Subscriber, ToolsWarning
from harness9.provider.factory import create_provider
from harness9.provider.model_catalog import family_of
from harness9.provider.provider_errors import ProviderError
from harness9.service.assembly import CallTurns, build_engine, context_policy, provider_settings
from harness9.service.attachments import ContextItem, prompt_with_context
from harness9.service.background import Background
from harness9.service.checkpoints.files_then import FileThen
from harness9.service.checkpoints.keeper import CheckpointKeeper
from harness9.service.checkpoints.run_checkpoints import FileChangesStep, RunCheckpoints
from harness9.service.checkpoints.snapshots import Restored
from harness9.service.checkpoints.workspace_checkpoints import WorkspaceCheckpoints
from harness9.service.command_runs import model_request, run_command
from harness9.service.commands import invocation
from harness9.service.mcp_servers import McpServers
from harness9.service.model_choice import ModelChoice
from harness9.service.models import ModelDirectory
from harness9.service.own_servers import OwnServers
from harness9.service.planning import PLAN_MODE, prompt_for, run_settings
from harness9.service.run_end import Finish, ended
from harness9.service.run_request import (
    RunContext,
    RunIds,
    RunOutcome,
    RunRequest,
    RunWiring,
    SteerOutcome,
    Wire,
)
from harness9.service.service_errors import (
    RunError,
    UnknownSession,
    busy,
)
from harness9.service.session_queue import QueuedRun
from harness9.service.session_turns import SessionTurns
from harness9.service.sessions.session import Session, SessionCheckpoint, new_id
from harness9.service.sessions.session_log import SessionMeta
from harness9.service.sessions.session_recorder import SessionRecorder
from harness9.service.sessions.session_store import SessionLocked, SessionStore
from harness9.service.settings import RunSettings
from harness9.service.state import state_dir
from harness9.tools.contract import BaseTool
from harness9.tools.language import language_tools
from harness9.tools.problems import DiagnosticsTool, ProblemsStep
from harness9.tools.registry import Middleware
from harness9.workspace.port import DiskWorkspace

if TYPE_CHECKING:
    from harness9.engine.agent_loop import AgentEngine
    from harness9.mcp.server_config import McpServerConfig

_log = logging.getLogger("harness9.engine")


class AgentService:
    """The sessions of one daemon and the runs on them. Sessions are stored under `state`
    (default: the state directory; None keeps them in memory only). The settings' MCP servers
    are the daemon's; a session's own MCP servers are that session's."""

    def __init__(self, state: Path | Literal["default"] | None = "default") -> None:
        # A session is held (locked against other daemons) while runs hold or wait for it.
        self._turns = SessionTurns(on_idle=lambda session_id: self.sessions.let_go_soon(
            session_id))
        self.sessions = SessionStore(state_dir() if state == "default" else state,
                                     in_use=self._turns.busy)
        background = Background()
        self._checkpoints = CheckpointKeeper(background)
        self._mcp = McpServers(self._is_running, background)
        self.own_servers = OwnServers()
        self.models = ModelDirectory()

    # Sessions

    def session(self, session_id: str | None, root: str = "") -> Session:
        """The session to continue (also a stored one), or a new one on `root`;
        `UnknownSession`, or a `busy` `RunError`."""
        if session_id is None:
            return self.sessions.create(root)
        session = self.known_session(session_id)
        holder = self._turns.holder(session_id)
        if session.active is not None or self._turns.busy(session_id):
            running = session.active.run_id if session.active is not None else holder
            raise busy(f"session {session_id} is still running {running or 'queued prompts'}; "
                       "wait for it to finish or cancel it",
                       sessionId=session_id, runId=running or "")
        if session.rewriting is not None:
            raise busy(f"session {session_id} is being {session.rewriting}; try again in a "
                       "moment", sessionId=session_id)
        return session

    def known_session(self, session_id: str) -> Session:
        """The session with this id, from memory or the store (then held by this daemon);
        `UnknownSession`, or a `busy` `RunError` when another daemon holds it."""
        try:
            session = self.sessions.open(session_id)
        except SessionLocked as exc:
            raise busy(str(exc), sessionId=session_id) from None
        if session is None:
            raise UnknownSession(session_id)
        return session

    def session_roots(self, session_id: str) -> set[str]:
        """The workspace roots a session has worked on (empty for an unknown session), for a
        front-end to keep each session to the clients of its workspaces."""
        return self.sessions.roots_of(session_id)

    def stored_sessions(self, root: str | None) -> list[SessionMeta]:
        """The stored sessions of workspace `root` (None: of every workspace), newest first."""
        return self.sessions.listing(root)

    def session_view(self, session_id: str) -> tuple[Session, int]:
        """A session to show (without taking it from another daemon) and the number of damaged
        lines skipped reading it; `UnknownSession`."""
        found = self.sessions.read(session_id)
        if found is None:
            raise UnknownSession(session_id)
        return found

    def delete_session(self, session_id: str) -> bool:
        """Forget a session and remove its stored copy; False for an unknown id. A `busy`
        `RunError` while it runs here or another daemon holds it."""
        session = self.sessions.get(session_id)
        if self._turns.busy(session_id) or (session is not None and (
                session.active is not None or session.rewriting is not None)):
            raise busy(f"session {session_id} is running or has prompts queued; cancel and "
                       "unqueue them first", sessionId=session_id)
        try:
            return self.sessions.delete(session_id)
        except SessionLocked as exc:
            raise busy(str(exc), sessionId=session_id) from None

    def set_approval_mode(self, session_id: str, mode: str) -> None:
        """The approval mode of the session's next runs, stored with it (a session not stored
        yet keeps it in memory until its first turn). `UnknownSession`, or a `busy`
        `RunError` when another daemon holds it."""
        session = self.known_session(session_id)
        session.approval_mode = mode
        self.sessions.save(session)

    def set_model(self, session_id: str, choice: ModelChoice) -> None:
        """The model of the session's next runs, stored with it. `UnknownSession`, or a `busy`
        `RunError` when another daemon holds it."""
        session = self.known_session(session_id)
        session.model = choice
        self.sessions.save(session)

    async def compact(self, session_id: str, settings: RunSettings) -> Compaction:
        """Compact a session now (prune, then a summary by the session's model).
        `UnknownSession`, a `busy` `RunError`, or a classified `RunError` from the provider."""
        session = self.session(session_id)
        session.rewriting = "compacted"
        if session.model is not None:
            settings = session.model.applied(settings)
        try:
            estimate = messages_tokens(session.history)
            provider = create_provider(provider_settings(settings))
            policy = context_policy(settings, provider.model)
            done = await compact_history(session.history, provider, policy, estimate, force=True,
                                         plan=session.plan)
        except ProviderError as exc:
            raise RunError.of_provider(exc, sessionId=session_id) from None
        finally:
            session.rewriting = None
        if done.method != "none":
            self.sessions.note_compaction(session, {
                "turn": 0, "method": done.method,
                "beforeTokens": done.before, "afterTokens": done.after,
            })
        return done

    # Checkpoints

    def workspace(self, root: str) -> WorkspaceCheckpoints:
        """The checkpoint state of a workspace root (one per real path, for every session)."""
        return self._checkpoints.workspace(root)

    def checkpoints(self, session_id: str) -> list[SessionCheckpoint]:
        """The session's checkpoints, oldest first; `UnknownSession`."""
        return list(self.known_session(session_id).checkpoints)

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
        session = self.session(session_id)
        # A restore runs to its end even when its request is cancelled: stopped between two
        # writes, it would leave the workspace half restored (its own failures are undone).
        return await asyncio.shield(self._restore(session, checkpoint_id, only))

    async def would_restore(
        self, session_id: str, checkpoint_id: str, only: Sequence[str] | None = None
    ) -> tuple[str, ...]:
        """The files `restore` would put back now; nothing changes."""
        session = self.session(session_id)
        return await self._checkpoints.would_restore(session, checkpoint_id, only)

    async def changed_since(self, session_id: str, checkpoint_id: str) -> list[FileThen]:
        """The files `restore` would put back now, as they were at the checkpoint."""
        session = self.known_session(session_id)
        return await self._checkpoints.changed_since(session, checkpoint_id)

    async def _restore(
        self, session: Session, checkpoint_id: str, only: Sequence[str] | None
    ) -> Restored:
        restored = await self._checkpoints.restore(session, checkpoint_id, only)
        self.sessions.save(session)
        return restored

    # Runs

    async def run(self, request: RunRequest, wire: Wire) -> RunOutcome:
        """Run `request` in the current task (which cancelling the run cancels). On a session
        that is running (or has runs queued) the run waits its turn, unless `request.queue` is
        false (a `busy` `RunError`); a `busy` `RunError` while a restore or compaction is under
        way on the session. A prompt that invokes a slash command runs it: as the prompt it
        stands for, or (a built-in that needs no model) as a run of its own."""
        called = invocation(request.prompt)
        if called is not None:
            expanded = model_request(request, called)
            if expanded is None:
                return await run_command(self, request, called, wire)
            request = expanded
        session = self._session_to_run(request)
        ids = RunIds(request.claim or new_id("r"), session.id)
        entry = self._turns.enter(ids, request.prompt, request.root, request.claim is not None)
        if entry is not None and entry.mode is not None:  # a left-over steer: its run's mode
            request = replace(request, mode=entry.mode)
        holding = entry is None
        finish, turns, recorder = Finish(), CallTurns(), _Later()
        bus = EventBus(finish, turns, recorder)
        try:
            wiring = await wire(RunContext(ids, turns.turn_of))
            for subscriber in wiring.subscribers:
                bus.subscribe(subscriber)
            if entry is not None:
                await self._turns.wait(ids, entry, bus)
                holding = True
            recorder.target = SessionRecorder(self.sessions, session, ids.run_id, request.prompt,
                                              request.root)
            return await self._held_run(request, session, ids, bus, wiring, turns)
        except BaseException as exc:
            raise ended(exc, ids, bus, finish, request.root) from None
        finally:
            self._turns.leave(ids, entry, holding)
            self.sessions.let_go_soon(session.id)

    def _session_to_run(self, request: RunRequest) -> Session:
        """The session a run goes to; `busy` while it is rewritten, or (`queue` off) runs."""
        if request.session_id is None:
            return self.sessions.create(request.root)
        session = self.known_session(request.session_id)
        if session.rewriting is not None or not request.queue:
            return self.session(request.session_id, request.root)
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
        try:  # a run that waited in the queue: another daemon may have continued the session
            self.sessions.take(session, run=True)
        except SessionLocked as exc:
            raise busy(str(exc), sessionId=session.id) from None
        if request.execute_plan and session.approval_mode == PLAN_MODE:
            session.approval_mode = None  # the plan is approved: back to the normal mode
            self.sessions.save(session)
        settings = run_settings(request, session)
        if session.model is not None and not request.own_model:
            settings = session.model.applied(settings)
        request = replace(request, settings=settings)
        task: asyncio.Task[Any] = asyncio.current_task()  # type: ignore[assignment]
        # Noted with checkpoints on or off: no restore may change the files under any run.
        workspace = self._checkpoints.run_started(request.root, ids.run_id, session.id)
        active = self.sessions.start(session, ids.run_id, task)
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
                self.sessions.finish(session, active)
                self._checkpoints.run_ended(workspace, ids.run_id)

    async def steer(
        self, run_id: str, prompt: str, context: Sequence[ContextItem] = ()
    ) -> SteerOutcome:
        """Give a running run a message before its next model call (see `SessionTurns.steer`);
        `UnknownRun`."""
        return await self._turns.steer(run_id, prompt, context)

    def run_place(self, run_id: str) -> tuple[str, str]:
        """The session and workspace root of a run that runs, waits or just ended;
        `UnknownRun`."""
        return self._turns.place_of(run_id)

    def queued(self, session_id: str) -> list[tuple[int, QueuedRun]]:
        """The session's queued runs with their positions; `UnknownSession`."""
        self.known_session(session_id)
        return self._turns.queued(session_id)

    def unqueue(self, session_id: str, queue_id: str) -> bool:
        """Take a queued run out of its session's queue (its request ends cancelled);
        `UnknownSession`."""
        self.known_session(session_id)
        return self._turns.unqueue(session_id, queue_id)

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
        """The run's engine: checkpoints around each batch (`observer`, when on), the built-in
        and MCP tools behind the approval step."""
        steps: list[Middleware] = []
        if checkpoints is not None:
            steps = [FileChangesStep(checkpoints)]
        mcp_tools = await self.mcp_tools(
            request.settings, lambda message: bus.emit(ToolsWarning(message)),
            (session.id, request.mcp_servers),
        )
        own = self.own_servers.wire(request, wiring, wiring.workspace or DiskWorkspace(
            request.root))
        wiring, steps = own.wiring, [*own.steps, *steps]
        if wiring.problems is not None:
            wait = request.settings.diagnostics_wait_ms / 1000
            if request.settings.diagnostics_after_edit:
                steps.append(ProblemsStep(wiring.problems, wait))
            mcp_tools = [DiagnosticsTool(wiring.problems, wait), *mcp_tools]
        if wiring.language is not None:
            files = wiring.workspace or DiskWorkspace(request.root)
            mcp_tools = [*language_tools(files, wiring.language), *mcp_tools]
        return build_engine(
            request.root, request.settings, session, bus, wiring.approver, turns,
            batch_observer=observer, middleware=steps, workspace=wiring.workspace,
            extra_tools=mcp_tools,
        )

    async def cancel(self, run_id: str | None, session_id: str | None) -> bool:
        """Cancel a run by its id or its session's (the running one: the session's queue goes
        on), also a queued run by its id; returns once it has ended (False: none)."""
        run = self.sessions.find_run(run_id, session_id)
        task = run.task if run is not None else None
        if task is None and run_id is not None:
            task = self._turns.waiting_task(run_id)
        if task is None:
            return False
        task.cancel()
        # The run task's done-callbacks (a front-end writes its answer there) run before this
        # waiter wakes.
        await asyncio.wait({task})
        return True

    def _is_running(self, session_id: str) -> bool:
        session = self.sessions.get(session_id)
        return session is not None and session.active is not None

    # MCP servers and the daemon's end

    async def mcp_tools(
        self,
        settings: RunSettings,
        warn: Callable[[str], None],
        session: tuple[str, Sequence[McpServerConfig]] | None = None,
    ) -> Sequence[BaseTool]:
        """The MCP servers' tools (see `McpServers.tools`)."""
        return await self._mcp.tools(settings, warn, session)

    async def close_session(self, session_id: str) -> None:
        """A client is done with a session: its run is cancelled, its queued prompts removed,
        its own MCP servers stopped, and its stored copy let go (it stays stored)."""
        for _, queued in self._turns.queued(session_id):
            self._turns.unqueue(session_id, queued.queue_id)
        await self.cancel(None, session_id)
        await self._mcp.close_session(session_id)
        self.sessions.release(session_id)

    async def shutdown(self) -> None:
        """Stop what the daemon started for its runs (the MCP servers, shared and sessions',
        and its language servers)."""
        await asyncio.gather(self._mcp.shutdown(), self.own_servers.shutdown())

    def close(self) -> None:
        """Release the stored sessions this daemon holds (at shutdown)."""
        self.sessions.close()


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
