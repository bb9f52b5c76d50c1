"""Drive the real daemon as a subprocess through pytest-lsp's client, with plain-dict messages."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features

from tests.support import preloaded
from tests.support.wire_schema import WireChecker, watch_protocol


def _plain_converter() -> Any:
    converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(cls, lambda obj, t: t(**obj))
    return converter


def _make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=_plain_converter)
    register_lsp_features(client)
    return client


class Daemon:
    """A started daemon and what it sent: `agent/progress` params, by arrival."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.progress: list[dict[str, Any]] = []
        self.initialized: Any = None  # the answer to `initialize`
        self.wire = WireChecker()  # replaced by the factory's, which checks all its daemons
        # Called with each notification as it arrives (a test's editor reacting to the run).
        self.on_progress: Callable[[dict[str, Any]], None] | None = None

        @client.feature("agent/progress")
        def _on_progress(ls: Any, params: Any) -> None:  # pygls passes the client as `ls`
            self.progress.append(dict(params))
            if self.on_progress is not None:
                self.on_progress(dict(params))

    async def request(self, method: str, params: Any, msg_id: int | None = None) -> Any:
        """Send a request and await its result (raising the JSON-RPC error as an exception)."""
        return await self.client.protocol.send_request_async(method, params, msg_id=msg_id)

    def change_configuration(self, settings: Any) -> None:
        """Send `workspace/didChangeConfiguration` with these settings."""
        params = types.DidChangeConfigurationParams(settings=settings)
        self.client.workspace_did_change_configuration(params)

    async def run(self, **params: Any) -> dict[str, Any]:
        """`agent/run` with these params."""
        return dict(await self.request("agent/run", params))

    def of_run(self, run_id: str) -> list[dict[str, Any]]:
        """The notifications of one run, in arrival order."""
        return [p for p in self.progress if p["runId"] == run_id]

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20
    ) -> None:
        """Wait until some notification satisfies `predicate`."""
        async with asyncio.timeout(timeout):
            while not any(predicate(p) for p in self.progress):
                await asyncio.sleep(0.02)


StartDaemon = Callable[..., Awaitable[Daemon]]


@asynccontextmanager
async def daemon_factory() -> AsyncIterator[StartDaemon]:
    """Yields `start(root, env=…, init=…, work_done=…, initialize=…, approval_requests=…,
    apply_edit=…, diagnostics=…, language=…, command=…)`; stops them all. Daemons run with
    HARNESS9_APPROVALS=yolo unless `env` says otherwise; `command` starts the daemon another
    way (through ssh: its environment is then the command's to set)."""
    started: list[LanguageClient] = []
    checker = WireChecker()

    async def start(
        root: Path | None,
        *,
        env: dict[str, str] | None = None,
        init: dict[str, Any] | None = None,
        work_done: bool = False,
        folders: list[Path] | None = None,
        initialize: bool = True,
        approval_requests: bool = False,
        apply_edit: bool = True,
        diagnostics: bool = False,
        language: list[str] | None = None,
        command: list[str] | None = None,
    ) -> Daemon:
        config = ClientServerConfig(
            server_command=command or preloaded.command("serve"),
            client_factory=_make_client,
            # Tests of other features let every tool run; approval tests ask for "ask".
            server_env={**os.environ, "HARNESS9_APPROVALS": "yolo", **(env or {})},
        )
        client = await config.start()
        started.append(client)
        watch_protocol(client.protocol, checker)
        daemon = Daemon(client)
        daemon.wire = checker
        if initialize:
            params = _initialize_params(root, init, work_done, folders)
            ours = {"approvalRequests": True} if approval_requests else {}
            if diagnostics:
                ours["diagnostics"] = True
            if language is not None:
                ours["languageFeatures"] = language
            if ours:
                params.capabilities.experimental = {"harness9": ours}
            if params.capabilities.workspace is not None:
                params.capabilities.workspace.apply_edit = apply_edit
            daemon.initialized = await client.initialize_session(params)
        return daemon

    try:
        yield start
    finally:
        for client in started:
            try:
                async with asyncio.timeout(10):
                    await client.shutdown_session()
            except Exception:  # the test may have killed or broken the daemon on purpose
                pass
            async with asyncio.timeout(10):
                await client.stop()
    checker.assert_clean()


def _initialize_params(
    root: Path | None, init: dict[str, Any] | None, work_done: bool, folders: list[Path] | None
) -> types.InitializeParams:
    capabilities = pytest_lsp.client_capabilities("visual-studio-code")
    capabilities.window = types.WindowClientCapabilities(work_done_progress=work_done)
    workspace_folders = [
        types.WorkspaceFolder(uri=p.as_uri(), name=p.name) for p in (folders or [])
    ]
    return types.InitializeParams(
        capabilities=capabilities,
        root_uri=root.as_uri() if root else None,
        workspace_folders=workspace_folders or None,
        initialization_options=init,
    )
