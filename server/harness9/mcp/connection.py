"""One MCP server process and the SDK session over its stdio.

The SDK's `stdio_client` and `ClientSession` are context managers that must be entered and left
in one task, so each connection has a task of its own that holds them open until `stop()` or
until the server goes away; tool calls are made from the run's tasks through the session.
The server starts in a process group of its own (the SDK's), with the SDK's short list of
inherited variables (no credentials) plus its configured `env`, and is marked for the process
reaper, so it dies with the daemon however the daemon ends. Its stderr is kept (the last few
KiB) for the warning when it fails, and logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import AsyncIterator
from typing import Any, TextIO

import anyio
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from harness9.mcp.server_config import McpServerConfig
from harness9.process.reaper import REAPER, TOOL_SESSION_ENV
from harness9.process.sandbox import Mechanism, SandboxPolicy, availability, confine

_log = logging.getLogger("harness9.mcp")

START_TIMEOUT_SECONDS = 20.0  # spawn, initialize and list the tools
_STDERR_KEEP = 4096
_STDERR_WAIT_SECONDS = 0.5  # for the stderr of a server that just died to be read


class StartFailed(Exception):
    """The server could not be started; the message says why, with its stderr's tail."""


class ServerGone(Exception):
    """The server is not running (it exited, or its connection closed)."""


class StderrTail:
    """A pipe for a server's stderr; a thread keeps its last bytes and logs each line."""

    def __init__(self, name: str) -> None:
        read_end, write_end = os.pipe()
        self.writer: TextIO = os.fdopen(write_end, "w")
        self._name = name
        self._data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(read_end,), daemon=True)
        self._thread.start()

    def close_writer(self) -> None:
        """Close our copy of the write end (the server holds its own)."""
        with contextlib.suppress(OSError):
            self.writer.close()

    def tail(self, lines: int = 12) -> str:
        """The last lines the server wrote (after waiting briefly for a dying one's last words)."""
        self._thread.join(_STDERR_WAIT_SECONDS)
        with self._lock:
            text = self._data.decode("utf-8", "replace")
        return "\n".join(text.strip().splitlines()[-lines:])

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(4096):
                with self._lock:
                    self._data += chunk
                    del self._data[:-_STDERR_KEEP]
                for line in chunk.decode("utf-8", "replace").splitlines():
                    _log.debug("mcp server %s: %s", self._name, line)


class ServerConnection:
    """A running MCP server: its tools (as listed at start) and `call`."""

    def __init__(self, config: McpServerConfig) -> None:
        self.config = config
        self.tools: list[mcp_types.Tool] = []
        self.closed = asyncio.Event()  # the connection ended (stopped, or the server died)
        self._session: ClientSession | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stderr = StderrTail(config.name)

    @property
    def running(self) -> bool:
        """Whether calls can be made."""
        return self._session is not None and not self.closed.is_set()

    def stderr_tail(self) -> str:
        """The last lines of the server's stderr."""
        return self._stderr.tail()

    async def start(self) -> None:
        """Start the server and list its tools; `StartFailed` with the reason and stderr tail.
        Cancelling the caller does not cancel the start (the next run may use the server)."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._hold(ready), name=f"mcp {self.config.name}")
        try:
            async with asyncio.timeout(START_TIMEOUT_SECONDS):
                await asyncio.shield(ready)
        except asyncio.CancelledError:
            await self.stop()  # nobody will use it: the daemon is stopping it
            raise
        except TimeoutError:
            await self.stop()
            why = f"it did not start within {START_TIMEOUT_SECONDS:g} s"
            raise StartFailed(self._why(why)) from None
        except StartFailed:
            raise
        except Exception as exc:
            raise StartFailed(self._why(_describe(exc))) from None

    async def call(
        self, tool: str, arguments: dict[str, Any]
    ) -> mcp_types.CallToolResult:
        """Call `tool`; `ServerGone` when the server is not there (or dies during the call),
        `MCPError` when it answers with a protocol error."""
        session = self._session
        if session is None or self.closed.is_set():
            raise ServerGone(f"the MCP server {self.config.name!r} is not running")
        try:
            result = await session.call_tool(tool, arguments)
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED or self.closed.is_set():
                raise ServerGone(self._why("it stopped during the call")) from None
            raise
        if not isinstance(result, mcp_types.CallToolResult):
            raise MCPError(mcp_types.INTERNAL_ERROR, "the server answered an unexpected result")
        return result

    async def stop(self) -> None:
        """Stop the server (stdin closed, then its process group killed: the SDK's order)."""
        self._stop.set()
        if self._task is not None and self._session is None:
            self._task.cancel()  # still starting: nothing to wait for
        if self._task is not None and self._task is not asyncio.current_task():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(self._task)

    def _why(self, what: str) -> str:
        if self.config.remote:
            return f"MCP server {self.config.name!r} at {self.config.url}: {what}"
        tail = self._stderr.tail()
        told = f"; its stderr ends with:\n{tail}" if tail else " (it wrote nothing to stderr)"
        return f"MCP server {self.config.name!r}: {what}{told}"

    def _transport(self) -> Any:
        """The SDK's client context for the server's transport: a process the daemon starts
        (stdio), or a URL (streamable HTTP, or SSE) with the configured headers."""
        config = self.config
        if config.transport == "http":
            return _streamable(config.url, dict(config.headers))
        if config.transport == "sse":
            return sse_client(config.url, headers=dict(config.headers))
        return stdio_client(self._parameters(), errlog=self._stderr.writer)

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        """The connection's own task: open, serve until stopped or gone, close."""
        try:
            async with self._transport() as streams:
                self._stderr.close_writer()
                read, write = streams[0], streams[1]
                relay = _relay(read, self.closed)
                async with ClientSession(relay, write) as session:
                    await session.initialize()
                    self.tools = await _list_tools(session)
                    self._session = session
                    ready.set_result(None)
                    await _first(self._stop.wait(), self.closed.wait())
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else StartFailed("stopped"))
            elif not self._stop.is_set():
                _log.warning("MCP server %s: the connection ended: %s", self.config.name, exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._stderr.close_writer()
            self._session = None
            self.closed.set()

    def _parameters(self) -> StdioServerParameters:
        REAPER.ensure_watching()  # the mark below lets the reaper's watcher find the server
        env = {**dict(self.config.env), TOOL_SESSION_ENV: REAPER.token}
        command, args = self.config.command, list(self.config.args)
        if self.config.sandbox is not None:
            prefix, extra = _sandboxed(self.config.sandbox)
            command, args = prefix[0], [*prefix[1:], command, *args]
            env.update(extra)
        return StdioServerParameters(command=command, args=args, env=env)


@contextlib.asynccontextmanager
async def _streamable(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    """The streamable HTTP transport, on an HTTP client of its own (closed with it)."""
    async with create_mcp_http_client(headers=headers) as client, streamable_http_client(
        url, http_client=client
    ) as streams:
        yield streams


def _sandboxed(policy: SandboxPolicy) -> tuple[tuple[str, ...], dict[str, str]]:
    """The command-line prefix and environment of a server in the OS sandbox. Only bubblewrap
    can confine a process the SDK starts (Landlock needs a hook in the child): without it the
    server does not start, with the reason."""
    found = availability()
    if found.mechanism is not Mechanism.BWRAP:
        raise OSError(f"the server asks for the OS sandbox, which needs bubblewrap here "
                      f"({found.reason or 'not the mechanism in use'})")
    confinement = confine(policy, os.getcwd(), found, launched=False)
    return confinement.prefix, dict(confinement.env or {})


async def _list_tools(session: ClientSession) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server whose pages never end cannot hang the start
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _relay(
    source: Any, closed: asyncio.Event
) -> MemoryObjectReceiveStream[SessionMessage | Exception]:
    """A stream the session reads that passes on what the server sends, and sets `closed`
    once the server's output has ended (it exited or closed stdout)."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

    async def pump() -> None:
        try:
            async with send:
                async for item in source:
                    await send.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            closed.set()

    task = asyncio.get_running_loop().create_task(pump())
    _PUMPS.add(task)
    task.add_done_callback(_PUMPS.discard)
    return receive


_PUMPS: set[asyncio.Task[None]] = set()


async def _first(*waits: Any) -> None:
    """Wait until the first of `waits` is done; cancel the others."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found ({exc.filename or exc})"
    if isinstance(exc, OSError):
        return f"it could not be started: {exc.strerror or exc}"
    if isinstance(exc, MCPError) and exc.code == mcp_types.CONNECTION_CLOSED:
        return "it exited before completing the MCP handshake"
    if isinstance(exc, MCPError):
        return f"it refused the MCP handshake: {exc.message}"
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[0])
    return f"it failed to start: {type(exc).__name__}: {exc}"
