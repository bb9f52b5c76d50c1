"""The MCP servers an ACP client gives with `session/new` / `session/load` → the session's
server configurations.

stdio servers (ACP's baseline) and http / sse servers (announced in `mcpCapabilities`) become
the same `McpServerConfig` the settings' `mcpServers` give, started or reached by the same
manager, their tools offered to that session alone. Other kinds are left out with a note for
the user saying why; so is a second server of the same name.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from harness9.mcp.server_config import McpServerConfig

_log = logging.getLogger("harness9.acp")


@dataclass(frozen=True, slots=True)
class SessionServers:
    """The servers to start for a session, and notes on those left out."""

    configs: tuple[McpServerConfig, ...] = ()
    notes: tuple[str, ...] = ()


def given_servers(given: Sequence[Any] | None) -> SessionServers:
    """The session's MCP servers; those left out are logged (and told at the first prompt)."""
    servers = session_servers(given)
    for note in servers.notes:
        _log.warning("%s", note)
    return servers


def session_servers(servers: Sequence[Any] | None) -> SessionServers:
    """The servers of `mcpServers` as configurations, in the client's order."""
    configs: dict[str, McpServerConfig] = {}
    notes: list[str] = []
    for server in servers or ():
        name = str(getattr(server, "name", "") or "")
        config = _config(name, server)
        if config is None:
            kind = getattr(server, "type", None) or type(server).__name__
            notes.append(f"MCP server {name!r} is not started: harness9 does not speak to "
                         f"{kind} MCP servers")
        elif not name:
            notes.append("an MCP server without a name is not started")
        elif name in configs:
            notes.append(f"MCP server {name!r} is given twice; the second one is not started")
        else:
            configs[name] = config
    return SessionServers(tuple(configs.values()), tuple(notes))


def _config(name: str, server: Any) -> McpServerConfig | None:
    """The configuration of a server of a kind harness9 speaks to, else None."""
    if isinstance(server, McpServerStdio):
        env = tuple(sorted((variable.name, variable.value) for variable in server.env))
        return McpServerConfig(name, server.command, tuple(server.args), env)
    if isinstance(server, HttpMcpServer | SseMcpServer) and server.url.startswith(
            ("http://", "https://")):
        headers = tuple(sorted((header.name, header.value) for header in server.headers))
        transport = "http" if isinstance(server, HttpMcpServer) else "sse"
        return McpServerConfig(name, "", transport=transport, url=server.url, headers=headers)
    return None
