"""One running language server and the LSP client that speaks to it (pygls' JSON-RPC client,
messages kept as plain dicts: a server's capabilities need not fit lsprotocol's types).

The client keeps the server in step with the files: `sync` opens a file with its text, or
sends the whole new text when it changed since, each change a new version. The problems the
server publishes are kept per file with the version they are for; `problems` waits for those
of the version synced last (for a server that publishes no versions: the first publication
after the change).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cattrs import Converter
from pygls.client import JsonRPCClient
from pygls.exceptions import JsonRpcException
from pygls.io_ import run_async
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)

from harness9.langservers.language_config import LanguageServerConfig
from harness9.langservers.server_process import ServerProcess

_log = logging.getLogger("harness9.langservers")
MAX_OPEN = 200  # documents kept open in one server; the least recently synced is closed
SHUTDOWN_SECONDS = 2.0
_IGNORED = ("window/logMessage", "window/showMessage", "$/progress", "telemetry/event",
            "$/logTrace", "window/workDoneProgress/create", "client/registerCapability",
            "client/unregisterCapability", "window/showMessageRequest",
            "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
            "workspace/inlayHint/refresh", "workspace/codeLens/refresh")


class ServerError(Exception):
    """The server could not answer: it is gone, did not answer in time, or answered an
    error; the message says which."""


def _plain_converter() -> Converter:
    """pygls' converter, but messages stay plain dicts."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(cls, lambda obj, t: t(**obj))
    return converter


@dataclass(slots=True)
class _Document:
    version: int
    text: str
    changed_at: int  # the publication count when this version was sent


@dataclass(frozen=True, slots=True)
class Published:
    """Problems a server published for a file: for `version` (None: not said), the
    `count`-th publication of the server."""

    version: int | None
    diagnostics: list[Any]
    count: int


def _capabilities() -> dict[str, Any]:
    """What this client offers a server."""
    return {
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"dynamicRegistration": False},
            "publishDiagnostics": {"versionSupport": True},
            "definition": {"linkSupport": True},
            "references": {},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "rename": {"prepareSupport": False},
        },
        "workspace": {"configuration": True, "workspaceFolders": True, "symbol": {},
                      "workspaceEdit": {"documentChanges": True},
                      "didChangeWatchedFiles": {"dynamicRegistration": True}},
        "window": {"workDoneProgress": False},
    }


class ServerConnection:
    """A started, initialized server of workspace `root`."""

    def __init__(self, config: LanguageServerConfig, root: str, process: ServerProcess) -> None:
        self.config = config
        self.root = root
        self.process = process
        self.capabilities: dict[str, Any] = {}
        self.closed = asyncio.Event()
        self._client = JsonRPCClient(converter_factory=_plain_converter)
        self._documents: OrderedDict[str, _Document] = OrderedDict()
        self._published: dict[str, Published] = {}
        self._count = 0
        self._news = asyncio.Event()  # set (and replaced) at each publication and at the end
        self._tasks: list[asyncio.Task[Any]] = []
        self._handlers()

    @property
    def encoding(self) -> str:
        """The position encoding the server chose (UTF-16 unless it said otherwise)."""
        chosen = self.capabilities.get("positionEncoding")
        return chosen if isinstance(chosen, str) else "utf-16"

    def offers(self, provider: str) -> bool:
        """Whether the server's capabilities offer `provider` (e.g. `hoverProvider`)."""
        return bool(self.capabilities.get(provider))

    def _handlers(self) -> None:
        feature = self._client.feature
        # pygls tags each handler with attributes, so each gets a function of its own.
        feature("textDocument/publishDiagnostics")(lambda params: self._publish(params))
        feature("workspace/configuration")(
            lambda params: [None for _ in (params or {}).get("items", [])])
        feature("workspace/workspaceFolders")(lambda params: self._folders())
        feature("workspace/applyEdit")(lambda params: {"applied": False,
                                                       "failureReason": "read-only"})
        for method in _IGNORED:
            feature(method)(lambda params: None)

    def _folders(self) -> list[dict[str, str]]:
        return [{"uri": Path(self.root).as_uri(), "name": Path(self.root).name or self.root}]

    async def initialize(self, timeout: float) -> None:
        """Start reading, and make the LSP handshake; `ServerError` when it fails."""
        pygls_log = logging.getLogger("pygls")
        if pygls_log.level == logging.NOTSET:  # at INFO it logs every message body
            pygls_log.setLevel(logging.WARNING)
        protocol = self._client.protocol
        protocol.set_writer(self.process.writer)
        self._tasks.append(asyncio.create_task(self._read(), name=f"lsp {self.config.name}"))
        result = await self.request("initialize", {
            # No process id: a server watching it (pyright does, every 3 s) ends when it cannot
            # see the daemon, as in the sandbox's process namespace. The reaper and a closed
            # stdin end it with the daemon instead.
            "processId": None,
            "clientInfo": {"name": "harness9"},
            "rootUri": Path(self.root).as_uri(),
            "rootPath": self.root,
            "workspaceFolders": self._folders(),
            "capabilities": _capabilities(),
            "initializationOptions": self.config.initialization_options,
        }, timeout)
        capabilities = result.get("capabilities") if isinstance(result, dict) else None
        self.capabilities = capabilities if isinstance(capabilities, dict) else {}
        protocol.notify("initialized", {})

    async def _read(self) -> None:
        try:
            await run_async(stop_event=self._client._stop_event, reader=self.process.reader,
                            protocol=self._client.protocol, logger=_log)
        except (asyncio.IncompleteReadError, ValueError, OSError) as exc:
            _log.info("language server %s: the connection ended: %s", self.config.name, exc)
        finally:
            self._ended()

    def _ended(self) -> None:
        """The server's output ended: fail what waits on it."""
        self.closed.set()
        for msg_id, future in list(self._client.protocol._request_futures.items()):
            if not future.done():
                future.set_exception(ServerError(self._gone()))
            self._client.protocol._request_futures.pop(msg_id, None)
        self._wake()

    def _gone(self) -> str:
        tail = self.process.stderr_tail()
        told = f"; its stderr ends with:\n{tail}" if tail else ""
        return f"the language server {self.config.name} stopped{told}"

    def _wake(self) -> None:
        self._news.set()
        self._news = asyncio.Event()

    def _publish(self, params: Any) -> None:
        uri, diagnostics = params.get("uri"), params.get("diagnostics")
        if not isinstance(uri, str) or not isinstance(diagnostics, list):
            return
        version = params.get("version")
        self._count += 1
        self._published[uri] = Published(version if isinstance(version, int) else None,
                                         diagnostics, self._count)
        self._wake()

    async def request(self, method: str, params: Any, timeout: float) -> Any:
        """Ask the server; `ServerError` when it is gone, errs or takes over `timeout` s."""
        if self.closed.is_set():
            raise ServerError(self._gone())
        asked = self._client.protocol.send_request_async(method, params)
        try:
            async with asyncio.timeout(timeout):
                return await asked
        except TimeoutError:
            raise ServerError(f"the language server {self.config.name} did not answer "
                              f"{method} within {timeout:g} s") from None
        except JsonRpcException as exc:
            raise ServerError(f"the language server {self.config.name} could not answer "
                              f"{method}: {exc}") from None

    def sync(self, uri: str, text: str, language_id: str) -> int:
        """Open the file, or send its text when it changed; its version now."""
        document = self._documents.get(uri)
        notify = self._client.protocol.notify
        if document is None:
            self._documents[uri] = _Document(1, text, self._count)
            notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": language_id, "version": 1, "text": text}})
            self._close_beyond(MAX_OPEN)
            return 1
        self._documents.move_to_end(uri)
        if document.text != text:
            document.version += 1
            document.text, document.changed_at = text, self._count
            notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": document.version},
                "contentChanges": [{"text": text}]})
        return document.version

    def is_open(self, uri: str) -> bool:
        """Whether the file is open in the server (it has the text sent last)."""
        return uri in self._documents

    def _close_beyond(self, limit: int) -> None:
        while len(self._documents) > limit:
            uri, _ = self._documents.popitem(last=False)
            self._client.protocol.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def files_changed(self, uris: list[str]) -> None:
        """Tell the server files changed on disk (a command wrote them)."""
        changes = [{"uri": uri, "type": 2} for uri in uris]
        if changes and not self.closed.is_set():
            self._client.protocol.notify("workspace/didChangeWatchedFiles", {"changes": changes})

    def published(self) -> dict[str, Published]:
        """The problems published so far, by file URI."""
        return dict(self._published)

    async def problems(self, uri: str, timeout: float) -> list[Any] | None:
        """The problems of the open file's synced version, once published (None: not within
        `timeout` s, or the server is gone)."""
        document = self._documents.get(uri)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.closed.is_set():
            found = self._published.get(uri)
            if found is not None and _current(found, document):
                return found.diagnostics
            news, left = self._news, deadline - loop.time()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await news.wait()
        return None

    async def stop(self) -> None:
        """Ask the server to shut down and exit, then end its process."""
        if not self.closed.is_set():
            with contextlib.suppress(ServerError):
                await self.request("shutdown", None, SHUTDOWN_SECONDS)
                self._client.protocol.notify("exit", None)
        self._client._stop_event.set()
        await self.process.stop(SHUTDOWN_SECONDS)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _current(found: Published, document: _Document | None) -> bool:
    """Whether a publication is for the document's synced text."""
    if document is None:
        return True
    if found.version is not None:
        return found.version >= document.version
    return found.count > document.changed_at
