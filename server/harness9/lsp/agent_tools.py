"""`agent/tools` on the wire: the tools a run of this client is offered, in the model's order
(the MCP servers' tools with their server); a server that cannot be started is shown to the
user with `window/showMessage`."""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from harness9.lsp.agent_run import editor_wiring
from harness9.schema import ToolDefinition
from harness9.service.agent_service import AgentService
from harness9.service.config.settings import RunSettings
from harness9.tools.contract import BaseTool


async def list_tools(
    ls: LanguageServer, service: AgentService, settings: RunSettings, folders: list[str]
) -> dict[str, Any]:
    """The `agent/tools` result."""

    def warn(message: str) -> None:
        params = types.ShowMessageParams(
            type=types.MessageType.Warning, message=f"harness9: {message}"
        )
        ls.window_show_message(params)

    root = folders[0] if folders else os.getcwd()
    tools = await service.tools(root, settings, editor_wiring(ls, root, settings), warn)
    return {"tools": [listed(tool) for tool in tools]}


def listed(tool: BaseTool) -> dict[str, Any]:
    """A tool as `agent/tools` lists it: its definition, and its `server` (an MCP tool's)."""
    entry = wire_tool(tool.definition())
    server = getattr(tool, "server", None)
    return {**entry, "server": server} if server else entry


def wire_tool(definition: ToolDefinition) -> dict[str, Any]:
    """A tool as `agent/tools` lists it: `name`, `description`, `inputSchema`, `kind`."""
    return {"name": definition.name, "description": definition.description,
            "inputSchema": definition.input_schema, "kind": definition.kind.value}
