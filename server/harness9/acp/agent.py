"""The ACP agent: `initialize`, `session/new`, `session/load`, `session/resume`,
`session/close`, `session/list`, `session/set_mode`, `session/set_config_option`,
`session/prompt` and `session/cancel` on the front-end-neutral service (see docs/acp.md)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from typing import Any

from acp import Client
from acp.schema import (
    CloseSessionResponse,
    ConfigOptionUpdate,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from harness9.acp.acp_errors import invalid_params, wire_errors, workspace_root
from harness9.acp.announce import Announcer
from harness9.acp.auth import check_method
from harness9.acp.config_options import NOT_OFFERED, chosen, options
from harness9.acp.early_session import EarlySession
from harness9.acp.files import ClientWorkspace, FsOffer
from harness9.acp.hello import INITIALIZE_RESULT
from harness9.acp.history import replay_session
from harness9.acp.listing import session_list
from harness9.acp.modes import ShownModes, is_mode, mode_state
from harness9.acp.permissions import ClientApprover
from harness9.acp.prompt_answer import connection_closing, prompt_answer, title_update
from harness9.acp.prompt_blocks import prompt_images, prompt_text
from harness9.acp.quiet import Prompts
from harness9.acp.session_mcp import SessionServers, given_servers
from harness9.acp.session_wire import default_mode
from harness9.acp.update_stream import UpdateStream
from harness9.acp.updates import RunUpdates, plan_update, warning_text
from harness9.engine.events import Subscriber
from harness9.engine.log import BlockLogger
from harness9.mcp.server_config import McpServerConfig
from harness9.service.agent_service import AgentService
from harness9.service.commands.catalog import Invocation, invocation
from harness9.service.config.credentials import provider_environment
from harness9.service.config.models import current_model
from harness9.service.config.settings import RunSettings, from_environment, resolve
from harness9.service.run_request import CommandView, RunContext, RunOutcome, RunRequest, RunWiring
from harness9.service.service_errors import RunCancelled
from harness9.service.sessions.session import Session

_log = logging.getLogger("harness9.acp")
_block_log = logging.getLogger("harness9.engine")

# Built-in commands answer in Markdown (ACP clients render it); /help leaves out those not
# offered here.
_COMMANDS = CommandView(markdown=True, hidden=NOT_OFFERED)


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
        self._prompts = Prompts()
        self.announcer = Announcer(lambda: self.client, self.service, self._prompts,
                                   self._settings)
        self._adopted: list[str] = []  # sessions answered before the SDK loaded
        self._modes = ShownModes()

    def adopt(self, early: EarlySession) -> None:
        """Take on a session whose `session/new` was answered before the SDK loaded (on this
        agent's service); what follows a new session's answer is sent once connected."""
        self._roots[early.session_id] = early.root
        self._servers[early.session_id] = SessionServers()
        self._modes.shown(early.session_id, early.mode)
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
        """The environment-variable methods and `login` (see `auth.check_method`)."""
        check_method(method_id)

    async def new_session(
        self, cwd: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        """A new session whose tools act on `cwd`, stored at once (listed, and resumed by
        another process, before its first prompt)."""
        root = workspace_root(cwd)
        servers = given_servers(mcp_servers)
        session = self._open(self.service.sessions.create(root, stored=True), root, servers)
        self._announce(session)
        return NewSessionResponse(session_id=session.id, modes=self._mode_state(session.id),
                                  config_options=self._config_options(session))

    def _open(self, session: Session, root: str, servers: SessionServers) -> Session:
        """Take `session` on, its tools acting on `root`, with the MCP servers the client gave
        it."""
        self._roots[session.id] = root
        self._servers[session.id] = servers
        return session

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Sequence[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        """Show a session again (`session/update`s of its history), then answer."""
        root, servers = workspace_root(cwd), given_servers(mcp_servers)
        session = self._open(self._known_session(session_id), root, servers)
        stream = UpdateStream(self.client, session_id)
        # The built-in tools' kinds; an MCP tool's call is shown as `other`, as it ran.
        replay_session(session, stream, root)
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
        stream = UpdateStream(self.client, session_id)
        called = invocation(text)
        if called is None:
            title = title_update(self._known_session(session_id), prompt)
            if title is not None:
                stream.push(title)
        elif called.name in NOT_OFFERED:
            stream.text("message", f"`/{called.name}` is not offered here: use the client's "
                        "own new-session and history views.")
            await stream.drain()
            return PromptResponse(stop_reason="end_turn")
        elif called.name == "plan" and called.arguments:
            self._modes.follow(session_id, "plan", stream)  # this prompt only plans
        request = RunRequest(text, root, self._settings(), session_id, images=images,
                             mcp_servers=self._mcp_servers(session_id, stream),
                             commands=_COMMANDS)
        try:
            outcome = await self._run(request, stream)
        except RunCancelled:
            if connection_closing():
                raise asyncio.CancelledError from None
            return PromptResponse(stop_reason="cancelled")
        finally:
            self._follow_mode(session_id, stream)
            await stream.drain()
        await self._after_command(called, outcome, stream)
        return prompt_answer(outcome)

    async def _run(self, request: RunRequest, stream: UpdateStream) -> RunOutcome:
        """The request's run, its events and questions going to the client."""
        root, session_id = request.root, request.session_id or ""
        files = ClientWorkspace(root, self.client, session_id, self.fs) if self.fs.any else None

        async def wire(context: RunContext) -> RunWiring:
            ran = self.service.sessions.get(context.ids.session_id)
            updates = RunUpdates(stream, root, files, ran.cost() if ran is not None else 0.0)
            subscribers: list[Subscriber] = [BlockLogger(_block_log), updates]
            approver = ClientApprover(self.client, session_id, root, stream)
            # A task's session runs in its worktree, whose files the client does not hold.
            elsewhere = context.root not in ("", root)
            return RunWiring(subscribers, approver, None if elsewhere else files)

        # The run gets a task of its own: `session/cancel` cancels that one, while a cancel of
        # this handler's task means the connection is closing and must stay a cancellation.
        run = asyncio.ensure_future(self.service.turns.run(request, wire))
        with wire_errors(), self._prompts.running():
            return await run

    async def _after_command(
        self, called: Invocation | None, outcome: RunOutcome, stream: UpdateStream
    ) -> None:
        """What a command changed that the client shows: `/model`'s choice in the picker."""
        if called is not None and outcome.command == "model" and "model" in outcome.extra:
            session = self._known_session(outcome.ids.session_id)
            stream.push(ConfigOptionUpdate(session_update="config_option_update",
                                           config_options=self._config_options(session)))
            await stream.drain()

    def _follow_mode(self, session_id: str, stream: UpdateStream) -> None:
        """Tell the client the session's mode when a prompt changed it (`/approvals`, `/plan`,
        a plan carried out) or a planning prompt ended."""
        session = self.service.sessions.get(session_id)
        if session is not None:
            mode = session.approval_mode or default_mode(self._settings())
            self._modes.follow(session_id, mode, stream)

    def _settings(self) -> RunSettings:
        """The settings of a run: `--settings` over the environment (the service applies a
        mode the session was set to)."""
        return resolve(from_environment(os.environ), self.settings)

    def _known_session(self, session_id: str) -> Session:
        """The session with this id (also a stored one); -32602 naming `sessionId` when there is
        none, -32803 `busy` when another harness9 process holds it."""
        with wire_errors():
            return self.service.sessions.known(session_id)

    def _config_options(self, session: Session) -> list[Any]:
        """The session's model and reasoning effort as config options, from the models known
        without asking a service (`_announce` sends the services' lists when they come)."""
        settings = self._settings()
        current = current_model(settings, session.model)
        return options(self.service.models.known(settings), current)

    def _announce(self, session: Session) -> None:
        """After the answer: the commands the session offers, then its config options again
        once the services have listed their models (when that changed them)."""
        self.announcer.announce(session, self._roots.get(session.id, session.root))

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """`session/set_config_option`: the session's model or reasoning effort, stored with
        it."""
        if session_id not in self._roots:
            raise invalid_params("sessionId", f"unknown session {session_id!r}")
        session = self._known_session(session_id)
        settings = self._settings()
        current = current_model(settings, session.model)
        services = self.service.models.providers(settings, provider_environment())
        try:
            choice = chosen(config_id, str(value), current, services)
        except ValueError as exc:
            raise invalid_params("configId" if "unknown option" in str(exc) else "value",
                                 str(exc)) from None
        with wire_errors():
            self.service.sessions.set_model(session_id, choice)
        return SetSessionConfigOptionResponse(config_options=self._config_options(session))

    def _mode_state(self, session_id: str) -> SessionModeState:
        """The session's `modes`: the approval modes, the current one as the client set it,
        else as the settings give it."""
        chosen = self._known_session(session_id).approval_mode or default_mode(self._settings())
        self._modes.shown(session_id, chosen)
        return mode_state(chosen)

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
        root, servers = workspace_root(cwd), given_servers(mcp_servers)
        session = self._open(self._known_session(session_id), root, servers)
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
        self._modes.forget(session_id)
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
            if not self.service.sessions.delete(session_id):
                raise invalid_params("sessionId", f"unknown session {session_id!r}")
        self._roots.pop(session_id, None)
        self._servers.pop(session_id, None)
        self._modes.forget(session_id)
        await self.service.close_session(session_id)  # its own MCP servers, if it had some
        return {}

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The stored sessions of `cwd` (else of every workspace), newest first, a page at a
        time."""
        root = workspace_root(cwd) if cwd is not None else None
        return session_list(self.service.sessions.stored(root), cursor)

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """`session/set_mode`: the approval mode of the session's next prompts."""
        if session_id not in self._roots:
            raise invalid_params("sessionId", f"unknown session {session_id!r}")
        if not is_mode(mode_id):
            raise invalid_params("modeId", f"unknown mode {mode_id!r}")
        with wire_errors():
            self.service.sessions.set_approval_mode(session_id, mode_id)
        self._modes.shown(session_id, mode_id)
        return SetSessionModeResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """`session/cancel`: the run ends (its tools killed); its prompt answers `cancelled`."""
        await self.service.cancel(None, session_id)
