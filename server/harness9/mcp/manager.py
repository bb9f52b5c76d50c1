"""The daemon's MCP servers: started when a run (or `agent/tools`) first needs their tools,
kept for the daemon's life, restarted once if one dies, all stopped on shutdown.

Problems go to the `Warn` callback of whoever asked (a run turns them into an event, which the
LSP front-end shows with `window/showMessage`): a server that fails to start, one that died,
a tool name that clashes with another's. A server whose start failed is not tried again until
its configuration changes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from harness9.mcp.connection import ServerConnection, ServerGone, StartFailed
from harness9.mcp.server_config import McpServerConfig
from harness9.mcp.tool import Connect, McpTool

_log = logging.getLogger("harness9.mcp")

Warn = Callable[[str], None]
RESTARTS = 1


@dataclass(slots=True)
class _Server:
    """A configured server and what became of it."""

    config: McpServerConfig
    connection: ServerConnection | None = None
    starting: asyncio.Task[ServerConnection] | None = None
    failure: str | None = None  # why it is not running, once given up on
    restarts: int = 0
    warned: set[str] = field(default_factory=set)


class McpManager:
    """All MCP servers of one daemon."""

    def __init__(self) -> None:
        self._servers: dict[str, _Server] = {}
        self._closing = False

    async def tools(self, configs: Sequence[McpServerConfig], warn: Warn) -> list[McpTool]:
        """The tools of every enabled server in `configs`, starting those not running yet;
        servers no longer configured (or configured differently) are stopped first."""
        await self._reconcile(configs)
        servers = [self._servers[c.name] for c in configs if c.enabled]
        await asyncio.gather(*(self._ready(server, warn) for server in servers))
        return self._offer(servers, warn)

    async def shutdown(self) -> None:
        """Stop every server (their process groups included)."""
        self._closing = True
        servers, self._servers = list(self._servers.values()), {}
        await asyncio.gather(*(_stop(server) for server in servers))

    async def _reconcile(self, configs: Sequence[McpServerConfig]) -> None:
        wanted = {c.name: c for c in configs if c.enabled}
        stale = [s for name, s in self._servers.items() if wanted.get(name) != s.config]
        for server in stale:
            del self._servers[server.config.name]
        await asyncio.gather(*(_stop(server) for server in stale))
        for name, config in wanted.items():
            self._servers.setdefault(name, _Server(config))

    async def _ready(self, server: _Server, warn: Warn) -> ServerConnection | None:
        """The server's live connection, (re)starting it when allowed; None when given up."""
        try:
            return await self._connection(server, warn)
        except ServerGone:
            return None

    async def _connection(self, server: _Server, warn: Warn) -> ServerConnection:
        """The server's live connection; `ServerGone` when it cannot be had."""
        if server.connection is not None and server.connection.running:
            return server.connection
        if server.failure is not None or self._closing:
            raise ServerGone(server.failure or "the daemon is shutting down")
        if server.connection is not None:  # it was running and has died
            if server.restarts >= RESTARTS:
                self._give_up(server, warn, "it stopped again after a restart", True)
            server.restarts += 1
            _tell(server, warn, f"MCP server {server.config.name!r} stopped; restarting it once")
            server.connection = None
        if server.starting is None:
            server.starting = asyncio.create_task(_start(server.config))
        try:
            connection = await asyncio.shield(server.starting)
        except StartFailed as exc:
            self._give_up(server, warn, str(exc), False)
        finally:
            if server.starting is not None and server.starting.done():
                server.starting = None
        server.connection = connection
        return connection

    def _give_up(self, server: _Server, warn: Warn, why: str, died: bool) -> NoReturn:
        """Leave the server out from now on (until its entry changes), saying why."""
        server.failure = (
            f"MCP server {server.config.name!r}: {why}; its tools are left out"
            if died else f"{why}\n(its tools are left out)"
        )
        server.starting = None
        _tell(server, warn, server.failure)
        raise ServerGone(server.failure)

    def _offer(self, servers: Sequence[_Server], warn: Warn) -> list[McpTool]:
        """The tools of the running servers, each name once: a clash is reported, and the
        later tool left out."""
        offered: dict[str, McpTool] = {}
        for server in servers:
            connection = server.connection
            if connection is None or not connection.running:
                continue
            for remote in connection.tools:
                tool = McpTool(
                    server.config.name,
                    remote,
                    self._connector(server, warn),
                    server.config.tool_timeout_ms,
                )
                earlier = offered.get(tool.name)
                if earlier is not None:
                    _tell(server, warn, (
                        f"MCP tool {remote.name!r} of server {server.config.name!r} is left "
                        f"out: its name {tool.name} clashes with tool {earlier.remote_name!r} "
                        f"of server {earlier.server!r}"
                    ))
                    continue
                offered[tool.name] = tool
        return list(offered.values())

    def _connector(self, server: _Server, warn: Warn) -> Connect:
        async def connect() -> ServerConnection:
            return await self._connection(server, warn)

        return connect


async def _start(config: McpServerConfig) -> ServerConnection:
    connection = ServerConnection(config)
    await connection.start()
    _log.info("MCP server %s started with %d tools", config.name, len(connection.tools))
    return connection


async def _stop(server: _Server) -> None:
    if server.starting is not None:
        server.starting.cancel()
    if server.connection is not None:
        await server.connection.stop()


def _tell(server: _Server, warn: Warn, message: str) -> None:
    """Log a problem and pass it on, once per server and message."""
    if message in server.warned:
        return
    server.warned.add(message)
    _log.warning("%s", message)
    warn(message)
