"""Run orchestration every front-end shares: a prompt becomes an engine run on a session.

`AgentService.run` opens (or continues) the session, registers the run so it can be cancelled,
lets the front-end wire its observers and its approver for the run's ids, builds the engine
(provider, tools, approval step), runs it, and always ends with one `RunFinished` event, also
when the run failed before the engine started. Failures come out classified (`RunError.kind`),
a cancellation as `RunCancelled`. Nothing here knows a wire protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from harness9.engine import EventBus, RunResult
from harness9.engine.compaction import Compaction
from harness9.engine.compaction import compact as compact_history
from harness9.engine.context import messages_tokens
from harness9.engine.events import Event, RunFinished, Subscriber, ToolsWarning
from harness9.provider.errors import ProviderError
from harness9.provider.factory import create_provider
from harness9.schema import ChangedFile, Usage
from harness9.service.assembly import CallTurns, build_engine, context_policy, provider_settings
from harness9.service.attachments import (
    ContextItem,
    read_document,
    render_attachments,
    with_attachments,
)
from harness9.service.checkpoints import Restored
from harness9.service.recorder import SessionRecorder
from harness9.service.run_checkpoints import FileChangesStep, RunCheckpoints
from harness9.service.session_log import SessionMeta
from harness9.service.session_store import SessionLocked, SessionStore
from harness9.service.sessions import Session, SessionCheckpoint, new_id
from harness9.service.settings import RunSettings
from harness9.service.shadow_git import GitError
from harness9.service.state import state_dir
from harness9.service.workspace_checkpoints import WorkspaceCheckpoints
from harness9.tools.approval import Approver
from harness9.tools.base import BaseTool, ToolError
from harness9.tools.workspace import Workspace

if TYPE_CHECKING:
    from harness9.mcp.config import McpServerConfig
    from harness9.mcp.manager import McpManager

_log = logging.getLogger("harness9.engine")

SESSION_SERVERS_KEPT = 8  # sessions whose own MCP servers keep running between their runs


class RunError(Exception):
    """The run could not go on. `kind` classifies it (`auth`, `rate_limit`, `network`, `http`,
    `config`, `busy`, `internal`); `data` carries the rest (`status`, ids)."""

    def __init__(self, message: str, kind: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.data = data


class UnknownSession(LookupError):
    """No session of this daemon has that id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session {session_id!r}")
        self.session_id = session_id


class UnknownCheckpoint(LookupError):
    """The session has no checkpoint with that id (or it was pruned)."""

    def __init__(self, checkpoint_id: str, why: str = "the session has no such checkpoint") -> None:
        super().__init__(f"unknown checkpoint {checkpoint_id!r}: {why}")
        self.checkpoint_id = checkpoint_id


class RunCancelled(Exception):
    """The run was cancelled (by the user, or its front-end's request was)."""

    def __init__(self, run_id: str, session_id: str) -> None:
        super().__init__("the run was cancelled")
        self.run_id = run_id
        self.session_id = session_id


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What to run: the prompt, the session to continue (None: a new one), the workspace root
    the tools act on, the settings after precedence, and the editor context attached to the
    prompt."""

    prompt: str
    root: str
    settings: RunSettings
    session_id: str | None = None
    context: tuple[ContextItem, ...] = ()
    # MCP servers of this session alone (an ACP client gives them with the session), on top
    # of the settings' servers every session shares.
    mcp_servers: tuple[McpServerConfig, ...] = ()


@dataclass(frozen=True, slots=True)
class RunIds:
    """The ids a front-end needs before the run starts (to label its notifications)."""

    run_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a front-end learns before the run starts: its ids, and the turn of each call."""

    ids: RunIds
    turn_of: Callable[[str], int]


@dataclass(slots=True)
class RunWiring:
    """What a front-end plugs into one run: event subscribers, the approver (None: nobody
    can be asked, so a call that needs asking is rejected) and the workspace the file tools
    read and write through (None: the disk)."""

    subscribers: Sequence[Subscriber] = ()
    approver: Approver | None = None
    workspace: Workspace | None = None


Wire = Callable[[RunContext], Awaitable[RunWiring]]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """A finished run: its ids and the engine's result."""

    ids: RunIds
    result: RunResult


@dataclass(slots=True)
class _Finish:
    """Notes whether `RunFinished` went out, so the service can send it when the engine did not."""

    sent: bool = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.sent = True


class AgentService:
    """The sessions of one daemon and the runs on them. Sessions are stored under `state`
    (default: the state directory; None keeps them in memory only). The settings' MCP servers
    are the daemon's; a session's own MCP servers are that session's."""

    def __init__(self, state: Path | Literal["default"] | None = "default") -> None:
        self.sessions = SessionStore(state_dir() if state == "default" else state)
        self._workspaces: dict[str, WorkspaceCheckpoints] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._mcp: McpManager | None = None
        self._session_mcp: dict[str, McpManager] = {}

    def session(self, session_id: str | None, root: str = "") -> Session:
        """The session to continue (also a stored one), or a new one on `root`;
        `UnknownSession`, or a `busy` `RunError`."""
        if session_id is None:
            return self.sessions.create(root)
        session = self.known_session(session_id)
        if session.active is not None:
            raise RunError(
                f"session {session_id} is still running {session.active.run_id}; "
                "wait for it to finish or cancel it",
                "busy",
                sessionId=session_id,
                runId=session.active.run_id,
            )
        if session.rewriting is not None:
            raise RunError(
                f"session {session_id} is being {session.rewriting}; try again in a moment",
                "busy",
                sessionId=session_id,
            )
        return session

    def known_session(self, session_id: str) -> Session:
        """The session with this id, from memory or the store (then held by this daemon);
        `UnknownSession`, or a `busy` `RunError` when another daemon holds it."""
        try:
            session = self.sessions.open(session_id)
        except SessionLocked as exc:
            raise RunError(str(exc), "busy", sessionId=session_id) from None
        if session is None:
            raise UnknownSession(session_id)
        return session

    def workspace(self, root: str) -> WorkspaceCheckpoints:
        """The checkpoint state of a workspace root (one per real path, for every session)."""
        key = os.path.realpath(root)
        if key not in self._workspaces:
            self._workspaces[key] = WorkspaceCheckpoints(root)
        return self._workspaces[key]

    def checkpoints(self, session_id: str) -> list[SessionCheckpoint]:
        """The session's checkpoints, oldest first; `UnknownSession`."""
        return list(self.known_session(session_id).checkpoints)

    async def restore(self, session_id: str, checkpoint_id: str) -> Restored:
        """Put the workspace back as it was at a checkpoint of the session, and cut the
        session's history back to what it was then; the session's later checkpoints are
        dropped with the history they belonged to.

        `UnknownSession`, `UnknownCheckpoint`, or a `RunError` (`busy` while the session runs).
        """
        session = self.session(session_id)
        entry = session.checkpoint(checkpoint_id)
        if entry is None:
            raise UnknownCheckpoint(checkpoint_id)
        repo = await self.workspace(entry.root).repo()
        if repo is None:
            raise RunError(self.workspace(entry.root).off or "checkpoints are off", "config")
        session.rewriting = "restored to a checkpoint"
        try:
            restored = await repo.restore(entry.checkpoint_id)
            self.workspace(entry.root).kept += 1  # the restore's own undo checkpoint
        except KeyError:
            raise UnknownCheckpoint(checkpoint_id, "it is no longer kept") from None
        except GitError as exc:
            raise RunError(f"restore failed: {exc}", "internal", sessionId=session_id) from None
        finally:
            session.rewriting = None
        del session.history[entry.history_len :]
        session.history_rewritten()
        del session.checkpoints[session.checkpoints.index(entry) + 1 :]
        # The checkpoint the restore took first is offered too: restoring to it undoes the
        # restore's changes to the files (the conversation stays where the restore cut it).
        changed = tuple(ChangedFile(path, "modified") for path in restored.paths)
        session.checkpoints.append(SessionCheckpoint(
            restored.undo, entry.run_id, entry.turn, time.time(), changed,
            len(session.history), entry.root, undoes=entry.checkpoint_id,
        ))
        self.sessions.save(session)
        return restored

    def stored_sessions(self, root: str) -> list[SessionMeta]:
        """The stored sessions of workspace `root`, newest first."""
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
        if session is not None and (session.active is not None or session.rewriting is not None):
            raise RunError(f"session {session_id} is running; cancel it first", "busy",
                           sessionId=session_id)
        try:
            return self.sessions.delete(session_id)
        except SessionLocked as exc:
            raise RunError(str(exc), "busy", sessionId=session_id) from None

    async def compact(self, session_id: str, settings: RunSettings) -> Compaction:
        """Compact a session now (prune, then a summary by the session's model).
        `UnknownSession`, a `busy` `RunError`, or a classified `RunError` from the provider."""
        session = self.session(session_id)
        session.rewriting = "compacted"
        try:
            estimate = messages_tokens(session.history)
            provider = create_provider(provider_settings(settings))
            policy = context_policy(settings, provider.model)
            done = await compact_history(session.history, provider, policy, estimate, force=True)
        except ProviderError as exc:
            raise RunError(exc.message, exc.kind, sessionId=session_id, **_status(exc)) from None
        finally:
            session.rewriting = None
        if done.method != "none":
            self.sessions.note_compaction(session, {
                "turn": 0, "method": done.method,
                "beforeTokens": done.before, "afterTokens": done.after,
            })
        return done

    def set_approval_mode(self, session_id: str, mode: str) -> None:
        """The approval mode of the session's next runs, stored with it (a session with no
        turn yet keeps it in memory until its first). `UnknownSession`, or a `busy`
        `RunError` when another daemon holds it."""
        session = self.known_session(session_id)
        session.approval_mode = mode
        self.sessions.save(session)

    def close(self) -> None:
        """Release the stored sessions this daemon holds (at shutdown)."""
        self.sessions.close()

    async def run(self, request: RunRequest, wire: Wire) -> RunOutcome:
        """Run `request` in the current task (which cancelling the run cancels)."""
        session = self.session(request.session_id, request.root)
        if session.approval_mode is not None:  # chosen for this session alone
            request = replace(request, settings=request.settings.with_approval_mode(
                session.approval_mode))
        ids = RunIds(new_id("r"), session.id)
        task: asyncio.Task[Any] = asyncio.current_task()  # type: ignore[assignment]
        active = self.sessions.start(session, ids.run_id, task)
        finish, turns = _Finish(), CallTurns()
        recorder = SessionRecorder(self.sessions, session, ids.run_id, request.prompt)
        bus = EventBus(finish, turns, recorder)
        workspace = self.workspace(request.root) if request.settings.checkpoints else None
        if workspace is not None:
            workspace.runs += 1
        try:
            wiring = await wire(RunContext(ids, turns.turn_of))
            for subscriber in wiring.subscribers:
                bus.subscribe(subscriber)
            observer, steps = None, []
            if workspace is not None:
                observer = RunCheckpoints(workspace, session, ids.run_id, bus, len(session.history))
                steps = [FileChangesStep(workspace)]
            mcp_tools = await self.mcp_tools(
                request.settings, lambda message: bus.emit(ToolsWarning(message)),
                (session.id, request.mcp_servers),
            )
            engine = build_engine(
                request.root, request.settings, session, bus, wiring.approver, turns,
                batch_observer=observer, middleware=steps, workspace=wiring.workspace,
                extra_tools=mcp_tools,
            )
            result = await engine.run(
                await _user_message(request, wiring.workspace), session.history
            )
            _close(bus, finish, result.status)
            return RunOutcome(ids, result)
        except asyncio.CancelledError:
            _close(bus, finish, "cancelled")
            raise RunCancelled(ids.run_id, ids.session_id) from None
        except ProviderError as exc:
            error = _provider_error(exc)
            _close(bus, finish, "error", error)
            raise RunError(exc.message, exc.kind, **_ids(ids), **_status(exc)) from None
        except Exception as exc:
            _log.exception("run %s failed", ids.run_id)
            message = f"internal error: {type(exc).__name__}: {exc}"
            _close(bus, finish, "error", {"kind": "internal", "message": message})
            raise RunError(message, "internal", **_ids(ids)) from None
        finally:
            self.sessions.finish(session, active)
            if workspace is not None:
                workspace.runs -= 1
                if workspace.needs_pruning():
                    self._in_background(workspace.prune())

    async def mcp_tools(
        self,
        settings: RunSettings,
        warn: Callable[[str], None],
        session: tuple[str, Sequence[McpServerConfig]] | None = None,
    ) -> Sequence[BaseTool]:
        """The tools of the configured MCP servers, starting those not running yet (the SDK
        loads only once a server is configured), then those of `session`'s own servers (its
        id and servers; a server it no longer lists is stopped); a session tool whose name a
        shared one has is left out. `warn` hears about servers and tools left out."""
        tools: list[BaseTool] = []
        if settings.mcp_servers or self._mcp is not None:
            if self._mcp is None:
                self._mcp = _mcp_manager()
            tools.extend(await self._mcp.tools(settings.mcp_servers, warn))
        if session is None:
            return tools
        session_id, servers = session
        manager = self._session_mcp.pop(session_id, None)  # back in last: the latest used
        if manager is None and servers:
            manager = _mcp_manager()
        if manager is not None:
            self._session_mcp[session_id] = manager
            self._retire_session_servers()
            taken = {tool.name for tool in tools}
            for tool in await manager.tools(servers, warn):
                if tool.name in taken:
                    warn(f"MCP tool {tool.name} of the session's server {tool.server!r} is left "
                         "out: a server of the settings has a tool of that name")
                    continue
                tools.append(tool)
        return tools

    def _retire_session_servers(self) -> None:
        """Stop the own MCP servers of the sessions that used theirs least recently, beyond
        `SESSION_SERVERS_KEPT` sessions (not those of a session that is running): a client may
        open many sessions and leave them. A retired session's next run starts them again."""
        excess = len(self._session_mcp) - SESSION_SERVERS_KEPT
        for session_id in list(self._session_mcp)[: max(excess, 0)]:
            session = self.sessions.get(session_id)
            if session is None or session.active is None:
                self._in_background(self._session_mcp.pop(session_id).shutdown())

    async def shutdown(self) -> None:
        """Stop what the daemon started for its runs (the MCP servers, shared and sessions')."""
        managers = [*self._session_mcp.values(), *([self._mcp] if self._mcp else [])]
        self._session_mcp.clear()
        await asyncio.gather(*(manager.shutdown() for manager in managers))

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Start `work` without waiting for it (kept referenced until it ends)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def cancel(self, run_id: str | None, session_id: str | None) -> bool:
        """Cancel a run by its id or its session's; returns once it has ended (False: none)."""
        run = self.sessions.find_run(run_id, session_id)
        if run is None:
            return False
        run.task.cancel()
        # The run task's done-callbacks (a front-end writes its answer there) run before this
        # waiter wakes.
        await asyncio.wait({run.task})
        return True


def _mcp_manager() -> McpManager:
    """A new MCP manager (its import loads the MCP SDK)."""
    from harness9.mcp.manager import McpManager

    return McpManager()


async def _user_message(request: RunRequest, workspace: Workspace | None) -> str:
    """The prompt with its attachments (reading files off the event loop). An item without
    text is read from the editor's document when the file is open there (unsaved changes
    included), else from the disk."""
    if not request.context:
        return request.prompt
    open_texts: dict[str, str] = {}
    for item in request.context:
        if workspace is None or item.text is not None or item.path in open_texts:
            continue
        with contextlib.suppress(ToolError):
            found = await workspace.read_text(item.path)
            if found is not None and found.via == "editor":
                open_texts[item.path] = found.text

    def read(root: str, path: str) -> str:
        return open_texts[path] if path in open_texts else read_document(root, path)

    rendered = await asyncio.to_thread(render_attachments, request.root, request.context, read)
    return with_attachments(request.prompt, rendered)


def _close(
    bus: EventBus, finish: _Finish, status: str, error: dict[str, Any] | None = None
) -> None:
    """Make sure `run_finished` went out (also for runs that failed before the engine ran)."""
    if not finish.sent:
        bus.emit(RunFinished(status, 0, 0, Usage(), 0, error=error))


def _provider_error(exc: ProviderError) -> dict[str, Any]:
    return {"kind": exc.kind, "message": exc.message, **_status(exc)}


def _status(exc: ProviderError) -> dict[str, Any]:
    return {"status": exc.status} if exc.status is not None else {}


def _ids(ids: RunIds) -> dict[str, str]:
    return {"runId": ids.run_id, "sessionId": ids.session_id}
