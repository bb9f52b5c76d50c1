"""`agent/tools` on the wire: the built-in tools and the MCP servers' tools, with their server;
a server that cannot be started is shown to the user with `window/showMessage`."""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from harness9.lsp.documents import EditorWorkspace
from harness9.lsp.editor_language import EditorLanguage, announced_features
from harness9.lsp.editor_problems import EditorProblems, announces_diagnostics
from harness9.schema import ToolDefinition
from harness9.service.agent_service import AgentService
from harness9.service.run_request import RunRequest, RunWiring
from harness9.service.settings import RunSettings
from harness9.tools import default_registry
from harness9.tools.language import language_tools
from harness9.tools.problems import DiagnosticsTool


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
    registry = default_registry(root, sandbox=settings.tool_sandbox())
    tools = [wire_tool(definition) for definition in registry.available_tools()]
    # Offered to this client's runs, as it announced them, else by the daemon's own servers.
    files = EditorWorkspace(root, ls, through_editor=False)
    features = announced_features(ls.client_capabilities)
    editor = RunWiring(
        problems=(EditorProblems(ls, root) if announces_diagnostics(ls.client_capabilities)
                  else None),
        language=EditorLanguage(ls, root, files, features) if features else None)
    wiring = service.own_servers.wire(RunRequest("", root, settings), editor, files).wiring
    if wiring.problems is not None:
        tools.append(wire_tool(DiagnosticsTool(wiring.problems, 0).definition()))
    if wiring.language is not None:
        tools += [wire_tool(t.definition()) for t in language_tools(files, wiring.language)]
    for tool in await service.mcp_tools(settings, warn):
        server = getattr(tool, "server", None)
        entry = wire_tool(tool.definition())
        tools.append({**entry, "server": server} if server else entry)
    return {"tools": tools}


def wire_tool(definition: ToolDefinition) -> dict[str, Any]:
    """A tool as `agent/tools` lists it: `name`, `description`, `inputSchema`, `kind`."""
    return {"name": definition.name, "description": definition.description,
            "inputSchema": definition.input_schema, "kind": definition.kind.value}
