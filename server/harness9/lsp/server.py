"""The harness9 daemon: a pygls server speaking the protocol of docs/PROTOCOL.md over stdio.

This module holds the server's state and the standard LSP handlers (lifecycle, settings,
document sync); the `agent/*` methods are `agent_methods`'s, registered here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
    JsonRpcServerNotInitialized,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, default_converter
from pygls.uris import to_fs_path

from harness9 import __version__
from harness9.lsp import path_map
from harness9.lsp.agent_methods import AGENT_METHODS
from harness9.lsp.agent_tasks import TASK_METHODS
from harness9.lsp.code_actions import code_actions
from harness9.lsp.framing import BodyError
from harness9.lsp.lifecycle import LifecycleProtocol
from harness9.lsp.lsp_errors import request_failed
from harness9.lsp.plain_commands import COMMANDS
from harness9.lsp.transport import end_with_process
from harness9.process.sandbox import SandboxMode, availability
from harness9.service.config.settings import client_section, from_environment, merge_client, resolve
from harness9.service.warm_up import start_warm_up

if TYPE_CHECKING:
    from harness9.service.agent_service import AgentService

_log = logging.getLogger("harness9.lsp")


def _plain_dict_converter() -> Any:
    """pygls' converter, but params of methods lsprotocol does not know stay plain dicts."""
    converter = default_converter()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
    for cls in (JsonRPCRequestMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, lambda obj, t: t(**obj))
    return converter


class Harness9Server(LanguageServer):
    """The daemon's state: client settings, sessions and the workspace folders."""

    def __init__(self) -> None:
        super().__init__(
            "harness9",
            __version__,
            protocol_cls=LifecycleProtocol,
            converter_factory=_plain_dict_converter,
        )
        self.initialized_ = False
        self.client_settings: dict[str, Any] = {}
        self._service: AgentService | None = None

    @property
    def service(self) -> AgentService:
        """The sessions and runs; loaded with the engine on first use, not at start-up, so the
        editor's `initialize` is answered sooner."""
        if self._service is None:
            from harness9.service.agent_service import AgentService

            self._service = AgentService()
        return self._service

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Unreadable input gets a JSON-RPC error with id null; nothing pops up in the editor."""
        if isinstance(error, BodyError):
            self._send_error_null_id(-32700, f"Parse error: {error}")
        elif isinstance(error, JsonRpcException) and source is JsonRpcException:
            self._send_error_null_id(-32600, f"Invalid request: {error}")
        elif isinstance(error, JsonRpcRequestCancelled):
            _log.info("request cancelled: %s", error)  # the user's choice, not a fault
        else:
            _log.error("server error (%s): %s", getattr(source, "__name__", source), error)

    def _send_error_null_id(self, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error})

    def require_initialized(self) -> None:
        """Requests before `initialize` get -32002."""
        if not self.initialized_:
            raise JsonRpcServerNotInitialized(message="the server has not been initialized")

    def apply_client_settings(self, raw: Any) -> None:
        """Merge valid settings into the client settings; warn the user about the rest."""
        self.client_settings, problems = merge_client(self.client_settings, raw)
        problems += path_map.apply_setting(raw)  # the transport's, not a run's
        if problems:
            message = "harness9: ignoring invalid settings: " + "; ".join(problems)
            _log.warning(message)
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=message)
            )

    def folders(self) -> list[str]:
        """The workspace folders as file-system paths, the first being the default root."""
        paths = [to_fs_path(uri) for uri in self.workspace.folders]
        if not paths and self.workspace.root_path:
            paths = [self.workspace.root_path]
        return [p for p in paths if p]

    def resolve_root(self, folder_uri: str | None) -> str:
        """The root a run acts on: the requested workspace folder, or the first one."""
        folders = self.folders()
        if folder_uri is not None:
            path = to_fs_path(folder_uri) if "://" in folder_uri else folder_uri
            wanted = os.path.realpath(path or "")
            for folder in folders:
                if os.path.realpath(folder) == wanted:
                    return folder
            known = ", ".join(folders) or "(none)"
            raise JsonRpcInvalidParams(
                message=f"workspaceFolder: {folder_uri} is not a workspace folder (known: {known})"
            )
        if not folders:
            raise request_failed(
                "no workspace root: open a folder (rootUri or workspaceFolders in initialize)",
                {"kind": "config"},
            )
        return folders[0]


    def check_session(self, session_id: str) -> None:
        """-32602 naming `sessionId` when the session has worked on a root outside this
        client's workspace folders: a session is reachable only from a client of its
        workspaces (an unknown session is the handler's to answer)."""
        folders = [os.path.realpath(folder) for folder in self.folders()]
        for root in sorted(self.service.session_roots(session_id)):
            if not any(_inside(os.path.realpath(root), folder) for folder in folders):
                raise JsonRpcInvalidParams(
                    message=f"sessionId: session {session_id} belongs to the workspace {root}, "
                    "which is not a workspace folder of this client"
                )


def _inside(path: str, folder: str) -> bool:
    """`path` is `folder` or lies beneath it (both real paths)."""
    return os.path.commonpath([path, folder]) == folder


def _as_command(run: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """A command handler whose annotations pygls can read here (it reads them to decide what
    to pass: the server, then the command's arguments as they came)."""

    async def command(ls: Harness9Server, *arguments: Any) -> Any:
        return await run(ls, *arguments)

    return command


server = Harness9Server()
for _method, _handler in {**AGENT_METHODS, **TASK_METHODS}.items():
    server.feature(_method)(_handler)
for _command, _run in COMMANDS.items():
    server.command(_command)(_as_command(_run))
server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix,
                                               types.CodeActionKind.RefactorRewrite]),
)(code_actions)


@server.feature(types.INITIALIZE)
def on_initialize(ls: Harness9Server, params: types.InitializeParams) -> None:
    """Take the client's settings, and end with the client's process (the protocol asks a
    server to exit when it ends); pygls has already set up the workspace folders.

    A remote daemon (`pathMap` set, or started by sshd) ignores `processId`: it names a process
    of the editor's machine, or of another container. The connection's end stops it there."""
    ls.initialized_ = True
    ls.apply_client_settings(params.initialization_options)
    remote = path_map.active() or "SSH_CONNECTION" in os.environ
    if params.process_id is not None and params.process_id not in (os.getpid(), 0) \
            and not remote:
        end_with_process(params.process_id, "the editor")


@server.feature(types.INITIALIZED)
async def on_initialized(ls: Harness9Server, params: types.InitializedParams) -> None:
    """Clean up after a daemon that was killed mid-write, off the event loop; load what the
    first prompt needs meanwhile; say once when bash cannot be sandboxed on this machine."""
    threading.Thread(target=_sweep_temp_files, args=(ls.folders(),), daemon=True).start()
    settings = resolve(from_environment(os.environ), ls.client_settings)
    start_warm_up(settings.provider)
    if settings.sandbox.mode is SandboxMode.OFF:
        return
    found = await asyncio.to_thread(availability)  # probing bwrap runs it once
    if not found.works:
        message = (f"harness9: bash runs without an OS sandbox here: {found.reason}. Commands "
                   "are asked about (README, \"Sandbox\"; `harness9 doctor`).")
        _log.warning(message)
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )


def _sweep_temp_files(folders: list[str]) -> None:
    from harness9.workspace.atomic_write import sweep_tree  # loaded here, not at start-up

    sweep_tree(folders)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def on_configuration(ls: Harness9Server, params: types.DidChangeConfigurationParams) -> None:
    """Changed client settings (section `harness9`, or the settings object itself)."""
    ls.apply_client_settings(client_section(params.settings))


# Registered so the server announces text document sync (incremental: open, change, close,
# save); pygls itself keeps the documents, which the file tools read and edit through.
@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def on_did_open(ls: Harness9Server, params: types.DidOpenTextDocumentParams) -> None:
    """pygls has put the document in its workspace."""


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def on_did_change(ls: Harness9Server, params: types.DidChangeTextDocumentParams) -> None:
    """pygls has applied the change to its copy of the document."""


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def on_did_close(ls: Harness9Server, params: types.DidCloseTextDocumentParams) -> None:
    """pygls has dropped the document: the disk is the truth for it again."""


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def on_did_save(ls: Harness9Server, params: types.DidSaveTextDocumentParams) -> None:
    """The buffer was written to disk (by the editor, which wrote it)."""


@server.feature(types.SHUTDOWN)
async def on_shutdown(ls: Harness9Server, params: Any) -> None:
    """Stop the MCP servers (and their process groups) and the editor's log before answering."""
    from harness9.lsp.editor_log import stop_sending

    if ls._service is not None:
        await ls._service.shutdown()
    stop_sending()

