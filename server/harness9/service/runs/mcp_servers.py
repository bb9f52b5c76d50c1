"""The MCP servers of one daemon's runs: those of the settings, which every session shares, and
those an ACP client gives a session, kept running for the sessions that used theirs last."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from harness9.service.background import Background
from harness9.service.config.settings import RunSettings
from harness9.tools.contract import BaseTool

if TYPE_CHECKING:
    from harness9.mcp.manager import McpManager
    from harness9.mcp.server_config import McpServerConfig

SESSION_SERVERS_KEPT = 8  # sessions whose own MCP servers keep running between their runs


class McpServers:
    """Starts MCP servers when a run first needs their tools, and stops them. `running(id)`
    tells whether a session has a run in flight (its servers are never stopped then)."""

    def __init__(self, running: Callable[[str], bool], background: Background) -> None:
        self._running = running
        self._background = background
        self._shared: McpManager | None = None
        self._sessions: dict[str, McpManager] = {}

    async def tools(
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
        if settings.mcp_servers or self._shared is not None:
            if self._shared is None:
                self._shared = _mcp_manager()
            tools.extend(await self._shared.tools(settings.mcp_servers, warn))
        if session is not None:
            tools.extend(await self._session_tools(*session, {t.name for t in tools}, warn))
        return tools

    async def _session_tools(
        self,
        session_id: str,
        servers: Sequence[McpServerConfig],
        taken: set[str],
        warn: Callable[[str], None],
    ) -> list[BaseTool]:
        """The tools of a session's own servers, less those named like a shared one."""
        manager = self._sessions.pop(session_id, None)  # back in last: the latest used
        if manager is None and servers:
            manager = _mcp_manager()
        if manager is None:
            return []
        self._sessions[session_id] = manager
        self._retire()
        tools: list[BaseTool] = []
        for tool in await manager.tools(servers, warn):
            if tool.name in taken:
                warn(f"MCP tool {tool.name} of the session's server {tool.server!r} is left "
                     "out: a server of the settings has a tool of that name")
                continue
            tools.append(tool)
        return tools

    def _retire(self) -> None:
        """Stop the own MCP servers of the sessions that used theirs least recently, beyond
        `SESSION_SERVERS_KEPT` sessions (not those of a session that is running): a client may
        open many sessions and leave them. A retired session's next run starts them again."""
        excess = len(self._sessions) - SESSION_SERVERS_KEPT
        for session_id in list(self._sessions)[: max(excess, 0)]:
            if not self._running(session_id):
                self._background.start(self._sessions.pop(session_id).shutdown())

    async def close_session(self, session_id: str) -> None:
        """Stop a session's own servers (the shared ones keep running)."""
        manager = self._sessions.pop(session_id, None)
        if manager is not None:
            await manager.shutdown()

    async def shutdown(self) -> None:
        """Stop every server, shared and sessions'."""
        managers = [*self._sessions.values(), *([self._shared] if self._shared else [])]
        self._sessions.clear()
        await asyncio.gather(*(manager.shutdown() for manager in managers))


def _mcp_manager() -> McpManager:
    """A new MCP manager (its import loads the MCP SDK)."""
    from harness9.mcp.manager import McpManager

    return McpManager()
