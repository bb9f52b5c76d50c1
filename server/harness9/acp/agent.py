"""The ACP agent: `initialize`, `session/new`, `session/load`, `session/resume`,
`session/close`, `session/list`, `session/set_mode`, `session/set_config_option`,
`session/prompt` and `session/cancel` on the front-end-neutral service (see docs/acp.md)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Sequence
from typing import Any

from acp import Client, RequestError
from acp.schema import (
    CloseSessionResponse,
    ConfigOptionUpdate,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionInfo,
    SessionInfoUpdate,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    StopReason,
    Usage,
)

from harness9.acp.acp_errors import invalid_params, wire_errors
from harness9.acp.config_options import NOT_OFFERED, chosen, commands_update, options
from harness9.acp.early_session import EarlySession
from harness9.acp.files import ClientWorkspace, FsOffer
from harness9.acp.hello import AUTH_VARIABLES, INITIALIZE_RESULT
from harness9.acp.history import replay_session
from harness9.acp.listing import page_of
from harness9.acp.modes import is_mode, mode_state
from harness9.acp.permissions import ClientApprover
from harness9.acp.prompt_blocks import prompt_images, prompt_text
from harness9.acp.quiet import Prompts
from harness9.acp.session_mcp import SessionServers, session_servers
from harness9.acp.session_wire import default_mode
from harness9.acp.update_stream import UpdateStream
from harness9.acp.updates import RunUpdates, plan_update, warning_text
from harness9.engine.events import Subscriber
from harness9.engine.log import BlockLogger
from harness9.mcp.server_config import McpServerConfig
from harness9.service.agent_service import AgentService
from harness9.service.commands import available, invocation
from harness9.service.credentials import provider_environment
from harness9.service.models import current_model
from harness9.service.run_request import RunContext, RunRequest, RunWiring
from harness9.service.service_errors import RunCancelled
from harness9.service.sessions.session import Session, iso_time
from harness9.service.sessions.session_log import title_of
from harness9.service.settings import RunSettings, from_environment, resolve
from harness9.tools import default_registry

_log = logging.getLogger("harness9.acp")
_block_log = logging.getLogger("harness9.engine")

_STOP_REASONS: dict[str, StopReason] = {"completed": "end_turn", "max_turns": "max_turn_requests"}


class Harness9Agent:
    """One client connection: its sessions' workspace roots, on one `AgentService`, with the
    settings of `--settings` over the environment's."""

    def __init__(
        self,
        service: AgentService | None = None,
        settings: dict[str, Any] | None = None,
        client_capabilities: Any = None,
    ) -> None:
        self.service = service if service is not None else AgentService()
        self.settings = settings or {}  # `--settings`, over the environment
        # What the client offered in `initialize` (answered early, or by `initialize` below).
        self.fs = FsOffer.of(client_capabilities)
        self._client: Client | None = None
        self._roots: dict[str, str] = {}
        self._servers: dict[str, SessionServers] = {}  # the MCP servers each session was given
        self._announcing: set[asyncio.Task[None]] = set()
        self._prompts = Prompts()
        self._adopted: list[str] = []  # sessions answered before the SDK loaded

    def adopt(self, early: EarlySession) -> None:
        """Take on a session whose `session/new` was answered before the SDK loaded (on this
        agent's service); what follows a new session's answer is sent once connected."""
        self._roots[early.session_id] = early.root
        self._servers[early.session_id] = SessionServers()
        self._adopted.append(early.session_id)

    def on_connect(self, conn: Client) -> None:
        """Keep the connection: updates and permission requests go through it."""
        self._client = conn
        for session_id in self._adopted:
            self._announce(self._known_session(session_id))
        self._adopted.clear()

    @property
    def client(self) -> Client:
        """The client connection (set before the first message is read)."""
        assert self._client is not None, "on_connect runs before any request"
        return self._client

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        """Protocol version 1; sessions load; prompts take text and embedded context (the
        answer `hello` gives when it answers before the SDK has loaded)."""
        self.fs = FsOffer.of(client_capabilities)
        return InitializeResponse.model_validate(INITIALIZE_RESULT)

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """The environment-variable methods: the key must be in the agent's environment (the
        client sets it when it starts the agent) or stored by `harness9 login` (the terminal
        method); -32602 naming `methodId` for another method, `auth_required` naming what is
        missing."""
        env = provider_environment()
        if method_id == "login":  # `harness9 login` ran in the client's terminal
            if not any(env.get(v, "").strip() for v in AUTH_VARIABLES.values()):
                raise RequestError.auth_required({"message": "no API key is stored: run "
                                                  "`harness9 login`"})
            return
        variable = AUTH_VARIABLES.get(method_id)
        if variable is None:
            raise invalid_params("methodId", f"unknown method {method_id!r}: expected one of "
                                 f"{', '.join([*AUTH_VARIABLES, 'login'])}")
        if not env.get(variable, "").strip():
            raise RequestError.auth_required({"message": f"{variable} is not set: start the "
                                              "agent with it in its environment, or run "
                                              "`harness9 login`"})

    async def new_session(
        self, cwd: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        """A new session whose tools act on `cwd`."""
        root = _workspace_root(cwd)
        servers = _servers(mcp_servers)
        session = self.service.session(None, root)
        self._roots[session.id] = root
        self._servers[session.id] = servers
        self._announce(session)
        return NewSessionResponse(session_id=session.id, modes=self._mode_state(session.id),
                                  config_options=self._config_options(session))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Show a session again (`session/update`s of its history), then answer."""
        root = _workspace_root(cwd)
        servers = _servers(mcp_servers)
        session = self._known_session(session_id)
        self._roots[session_id] = root
        self._servers[session_id] = servers
        stream = UpdateStream(self.client, session_id)
        # The built-in tools' kinds; an MCP tool's call is shown as `other`, as it ran.
        replay_session(session, stream, root, default_registry(root).kind_of)
        if session.plan is not None:
            stream.push(plan_update(session.plan))
        await stream.drain()
        self._announce(session)
        return LoadSessionResponse(modes=self._mode_state(session_id),
                                   config_options=self._config_options(session))

    async def prompt(self, session_id: str, prompt: Sequence[Any], **kwargs: Any) -> PromptResponse:
        """One run on the session; answers when it ends, after its last update."""
        root = self._roots.get(session_id)
        if root is None:
            raise invalid_params("sessionId", f"unknown session {session_id!r}")
        text = prompt_text(prompt, root)
        images = prompt_images(prompt)
        settings = self._settings()
        stream = UpdateStream(self.client, session_id)
        called = invocation(text)
        if called is None:
            self._title(session_id, prompt, stream)
        if called is not None and called.name in NOT_OFFERED:
            stream.text("message", f"/{called.name} is not offered here: use the client's own "
                        "new-session and history views.")
            await stream.drain()
            return PromptResponse(stop_reason="end_turn")
        servers = self._mcp_servers(session_id, stream)
        files = ClientWorkspace(root, self.client, session_id, self.fs) if self.fs.any else None

        async def wire(context: RunContext) -> RunWiring:
            ran = self.service.sessions.get(context.ids.session_id)
            updates = RunUpdates(stream, root, files, ran.cost() if ran is not None else 0.0)
            subscribers: list[Subscriber] = [BlockLogger(_block_log), updates]
            approver = ClientApprover(self.client, session_id, root, stream)
            return RunWiring(subscribers, approver, files)

        # The run gets a task of its own: `session/cancel` cancels that one, while a cancel of
        # this handler's task means the connection is closing and must stay a cancellation.
        run = asyncio.ensure_future(
            self.service.run(
                RunRequest(text, root, settings, session_id, mcp_servers=servers,
                           images=images), wire
            )
        )
        try:
            with wire_errors(), self._prompts.running():
                outcome = await run
        except RunCancelled:
            if _closing():
                raise asyncio.CancelledError from None
            return PromptResponse(stop_reason="cancelled")
        finally:
            await stream.drain()
        if outcome.command == "model" and "model" in outcome.extra:
            stream.push(ConfigOptionUpdate(
                session_update="config_option_update",
                config_options=self._config_options(self._known_session(session_id))))
            await stream.drain()
        result = outcome.result
        usage = result.usage
        return PromptResponse(
            stop_reason=_STOP_REASONS.get(result.status, "end_turn"),
            usage=Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.input_tokens + usage.output_tokens,
                cached_read_tokens=usage.cached_input_tokens,
                cached_write_tokens=usage.cache_write_tokens,
            ),
        )

    def _settings(self) -> RunSettings:
        """The settings of a run: `--settings` over the environment (the service applies a
        mode the session was set to)."""
        return resolve(from_environment(os.environ), self.settings)

    def _known_session(self, session_id: str) -> Session:
        """The session with this id (also a stored one); -32602 naming `sessionId` when there is
        none, -32803 `busy` when another harness9 process holds it."""
        with wire_errors():
            return self.service.known_session(session_id)

    def _title(self, session_id: str, prompt: Sequence[Any], stream: UpdateStream) -> None:
        """A session's first prompt names it: `session_info_update` with its title (the first
        line the user typed, as `session/list` shows it)."""
        session = self._known_session(session_id)
        if session.history or session.runs:
            return
        typed = next((block.text for block in prompt
                      if getattr(block, "type", None) == "text" and block.text.strip()), "")
        if typed:
            stream.push(SessionInfoUpdate(session_update="session_info_update",
                                          title=title_of(typed), updated_at=iso_time(time.time())))

    def _config_options(self, session: Session) -> list[Any]:
        """The session's model and reasoning effort as config options, from the models known
        without asking a service (`_announce` sends the services' lists when they come)."""
        settings = self._settings()
        current = current_model(settings, session.model)
        return options(self.service.models.known(settings), current)

    def _announce(self, session: Session) -> None:
        """After the answer: the commands the session offers, then its config options again
        once the services have listed their models (when that changed them)."""
        task = asyncio.ensure_future(self._announcement(session))
        self._announcing.add(task)
        task.add_done_callback(self._announcing.discard)

    async def _announcement(self, session: Session) -> None:
        await asyncio.sleep(0.01)  # the session/new or session/load answer goes out first
        root = self._roots.get(session.id, session.root)
        stream = UpdateStream(self.client, session.id)
        stream.push(commands_update(await asyncio.to_thread(available, root)))
        await stream.drain()
        await self._prompts.quiet()  # the services' SDKs load after a prompt sent at once
        settings = self._settings()
        before = self.service.models.known(settings)
        listing = await self.service.models.listing(settings)
        if [m.as_wire() for m in listing.models] != [m.as_wire() for m in before]:
            current = current_model(settings, session.model)
            stream.push(ConfigOptionUpdate(session_update="config_option_update",
                                           config_options=options(listing.models, current)))
            await stream.drain()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """`session/set_config_option`: the session's model or reasoning effort, stored with
        it."""
        if session_id not in self._roots:
            raise invalid_params("sessionId", f"unknown session {session_id!r}")
        session = self._known_session(session_id)
        current = current_model(self._settings(), session.model)
        try:
            choice = chosen(config_id, str(value), current)
        except ValueError as exc:
            raise invalid_params("configId" if "unknown option" in str(exc) else "value",
                                 str(exc)) from None
        with wire_errors():
            self.service.set_model(session_id, choice)
        return SetSessionConfigOptionResponse(config_options=self._config_options(session))

    def _mode_state(self, session_id: str) -> SessionModeState:
        """The session's `modes`: the approval modes, the current one as the client set it,
        else as the settings give it."""
        chosen = self._known_session(session_id).approval_mode
        return mode_state(chosen or default_mode(self._settings()))

    def _mcp_servers(self, session_id: str, stream: UpdateStream) -> tuple[McpServerConfig, ...]:
        """The session's own MCP servers; the notes on those left out are told once, at the
        session's first prompt (the client knows the session by then)."""
        servers = self._servers.get(session_id, SessionServers())
        for note in servers.notes:
            stream.text("message", warning_text(note))
        self._servers[session_id] = SessionServers(servers.configs)
        return servers.configs

    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        """`session/resume`: go on with a session without replaying its history."""
        root = _workspace_root(cwd)
        servers = _servers(mcp_servers)
        session = self._known_session(session_id)
        self._roots[session_id] = root
        self._servers[session_id] = servers
        self._announce(session)
        return ResumeSessionResponse(modes=self._mode_state(session_id),
                                     config_options=self._config_options(session))

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """`session/close`: its run ends, its own MCP servers stop, its files are let go; it
        stays stored (`session/load` or `session/resume` opens it again)."""
        if session_id not in self._roots:
            raise invalid_params("sessionId", f"unknown session {session_id!r}")
        del self._roots[session_id]
        self._servers.pop(session_id, None)
        await self.service.close_session(session_id)
        return CloseSessionResponse()

    async def delete_session(self, params: Any) -> dict[str, Any]:
        """`session/delete` {sessionId} (raw: this SDK does not route it yet): the session is
        closed here and its stored copy removed, so `session/list` no longer shows it. -32602
        (`sessionId`) for an unknown one, -32803 `busy` while a prompt runs on it (here or in
        another harness9 process)."""
        session_id = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session_id, str) or not session_id:
            raise invalid_params("sessionId", "a session id (string) is required")
        with wire_errors():
            if not self.service.delete_session(session_id):
                raise invalid_params("sessionId", f"unknown session {session_id!r}")
        self._roots.pop(session_id, None)
        self._servers.pop(session_id, None)
        await self.service.close_session(session_id)  # its own MCP servers, if it had some
        return {}

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The stored sessions of `cwd` (else of every workspace this client opened), newest
        first, a page at a time."""
        roots = [_workspace_root(cwd)] if cwd is not None else sorted(set(self._roots.values()))
        metas = [meta for root in roots for meta in self.service.stored_sessions(root)]
        page, next_cursor = page_of(metas, cursor)
        sessions = [
            SessionInfo(
                session_id=meta.session_id,
                cwd=meta.workspace_root,
                title=meta.title or None,
                updated_at=iso_time(meta.updated_at),
            )
            for meta in page
        ]
        return ListSessionsResponse(sessions=sessions, next_cursor=next_cursor)

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """`session/set_mode`: the approval mode of the session's next prompts."""
        if session_id not in self._roots:
            raise invalid_params("sessionId", f"unknown session {session_id!r}")
        if not is_mode(mode_id):
            raise invalid_params("modeId", f"unknown mode {mode_id!r}")
        with wire_errors():
            self.service.set_approval_mode(session_id, mode_id)
        return SetSessionModeResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """`session/cancel`: the run ends (its tools killed); its prompt answers `cancelled`."""
        await self.service.cancel(None, session_id)


def _closing() -> bool:
    """Whether the current task is being cancelled (the SDK closing the connection)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _workspace_root(cwd: str) -> str:
    """`cwd` as the workspace root: an absolute path to an existing folder."""
    if not os.path.isabs(cwd):
        raise invalid_params("cwd", f"must be an absolute path, got {cwd!r}")
    if not os.path.isdir(cwd):
        raise invalid_params("cwd", f"{cwd} is not a folder")
    return cwd


def _servers(given: Sequence[Any] | None) -> SessionServers:
    """The session's MCP servers; those left out are logged (and told at the first prompt)."""
    servers = session_servers(given)
    for note in servers.notes:
        _log.warning("%s", note)
    return servers
