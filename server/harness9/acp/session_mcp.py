"""The MCP servers an ACP client gives with `session/new` / `session/load` → the session's
server configurations.

stdio servers (ACP's baseline, the only kind our `mcpCapabilities` announce) become the same
`McpServerConfig` the settings' `mcpServers` give, started by the same manager, their tools
offered to that session alone. Other kinds (http, sse, acp) are left out with a note for the
user saying why; so is a second server of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import McpServerStdio

from harness9.mcp.server_config import McpServerConfig


@dataclass(frozen=True, slots=True)
class SessionServers:
    """The servers to start for a session, and notes on those left out."""

    configs: tuple[McpServerConfig, ...] = ()
    notes: tuple[str, ...] = ()


def session_servers(servers: Sequence[Any] | None) -> SessionServers:
    """The stdio servers of `mcpServers` as configurations, in the client's order."""
    configs: dict[str, McpServerConfig] = {}
    notes: list[str] = []
    for server in servers or ():
        name = str(getattr(server, "name", "") or "")
        if not isinstance(server, McpServerStdio):
            kind = getattr(server, "type", None) or type(server).__name__
            notes.append(
                f"MCP server {name!r} is not started: it is an {kind} server, and harness9 "
                "starts stdio MCP servers only"
            )
        elif not name:
            notes.append(f"an MCP server without a name is not started ({server.command})")
        elif name in configs:
            notes.append(f"MCP server {name!r} is given twice; the second one is not started")
        else:
            env = tuple(sorted((variable.name, variable.value) for variable in server.env))
            configs[name] = McpServerConfig(name, server.command, tuple(server.args), env)
    return SessionServers(tuple(configs.values()), tuple(notes))
