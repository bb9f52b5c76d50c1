"""The language tools' `LanguageQueries`, answered by the language servers the daemon runs:
definition, references, hover and rename by the first server of the file that offers them,
workspace symbols by every configured server that does.

Each query first syncs the file's text as the run's workspace reads it; positions go to the
server in the encoding it chose, and the places it answers come back as the model's paths,
lines and columns, with the text of each line as the workspace reads it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pygls.uris import to_fs_path

from harness9.langservers.lsp_records import (
    field_of,
    kind_name,
    renamed_files,
    workspace_path,
)
from harness9.langservers.served_problems import catch_up, file_uri, sync_file
from harness9.langservers.server_connection import ServerConnection, ServerError
from harness9.langservers.server_pool import WorkspaceServers
from harness9.schema import ToolError
from harness9.tools.language import Place, RenamedFile, SymbolFound
from harness9.workspace.port import FileText, Workspace
from harness9.workspace.positions import column_of, units

TIMEOUT = 10.0  # a server indexing a large workspace answers slowly
PROVIDERS = {"definition": "definitionProvider", "references": "referencesProvider",
             "hover": "hoverProvider", "rename": "renameProvider",
             "symbols": "workspaceSymbolProvider"}
_METHODS = {"definition": "textDocument/definition", "references": "textDocument/references",
            "hover": "textDocument/hover", "rename": "textDocument/rename"}


class ServedLanguage:
    """`LanguageQueries` answered by the daemon's own language servers."""

    kinds = frozenset(PROVIDERS)

    def __init__(self, servers: WorkspaceServers, workspace: Workspace) -> None:
        self._servers = servers
        self._workspace = workspace

    async def places(self, kind: str, path: str, line: int, character: int) -> list[Place]:
        """Definition or references, as the file's server answers them."""
        extra = {"context": {"includeDeclaration": True}} if kind == "references" else {}
        server, answer = await self._ask(kind, path, line, character, **extra)
        found = [answer] if isinstance(answer, dict) else answer
        texts: dict[str, FileText | None] = {}
        places = [await self._place(server, location, texts) for location in found or []]
        return [p for p in places if p is not None]

    async def symbols(self, query: str) -> list[SymbolFound]:
        """Workspace symbols matching `query`, of every server that finds them."""
        await catch_up(self._servers, self._workspace)
        servers = [s for s in await self._servers.every() if s.offers(PROVIDERS["symbols"])]
        if not servers:
            raise ToolError(self._none_offers("workspace symbols"))
        answers = await asyncio.gather(*(_request(s, "workspace/symbol", {"query": query})
                                         for s in servers))
        texts: dict[str, FileText | None] = {}
        found = []
        for server, answer in zip(servers, answers, strict=True):
            for item in answer or []:
                name = field_of(item, "name")
                place = await self._place(server, field_of(item, "location"), texts)
                if isinstance(name, str) and place is not None:
                    found.append(SymbolFound(name, kind_name(field_of(item, "kind")), place))
        return found

    async def hover(self, path: str, line: int, character: int) -> str | None:
        """The hover text, as plain text or Markdown."""
        _, answer = await self._ask("hover", path, line, character)
        return hover_text(field_of(answer, "contents")) or None

    async def rename(
        self, path: str, line: int, character: int, new_name: str
    ) -> list[RenamedFile]:
        """The renamed files' texts; `ToolError` when the server refuses or the edit reaches
        outside the workspace or creates, moves or deletes files."""
        server, answer = await self._ask("rename", path, line, character, newName=new_name)
        return await renamed_files(answer, self._servers.root, self._workspace, server.encoding,
                                   "the language server's")

    async def _ask(self, kind: str, path: str, line: int, character: int,
                   **extra: Any) -> tuple[ServerConnection, Any]:
        await catch_up(self._servers, self._workspace)
        servers = [s for s in await self._servers.for_file(path) if s.offers(PROVIDERS[kind])]
        if not servers:
            raise ToolError(self._none_offers(f"{kind} for {path}"))
        server = servers[0]
        text = await sync_file(self._workspace, [server], path) or ""
        lines = text.splitlines()
        column = units(lines[line][:character] if line < len(lines) else "", server.encoding)
        params = {"textDocument": {"uri": file_uri(self._servers.root, path)},
                  "position": {"line": line, "character": column}, **extra}
        return server, await _request(server, _METHODS[kind], params)

    def _none_offers(self, what: str) -> str:
        names = ", ".join(c.name for c in self._servers.configs) or "none"
        return (f"Error: no language server harness9 runs here answers {what} (configured: "
                f"{names}; see the languageServers setting)")

    async def _place(self, server: ServerConnection, location: Any,
                     texts: dict[str, FileText | None]) -> Place | None:
        uri = field_of(location, "uri") or field_of(location, "targetUri")
        where = (field_of(location, "range") or field_of(location, "targetSelectionRange")
                 or field_of(location, "targetRange"))
        start = field_of(where, "start") or {"line": 0, "character": 0}
        line, count = field_of(start, "line"), field_of(start, "character")
        if not isinstance(uri, str) or not isinstance(line, int) or not isinstance(count, int):
            return None
        shown = workspace_path(uri, self._servers.root)
        if shown is None:  # outside the workspace: the place only, never its text
            return Place(to_fs_path(uri) or uri, line + 1, count + 1)
        if shown not in texts:
            texts[shown] = await self._workspace.read_text(shown)
        found = texts[shown]
        lines = found.text.splitlines() if found is not None else []
        text = lines[line] if line < len(lines) else None
        column = column_of(text, count, server.encoding) if text is not None else count
        return Place(shown, line + 1, column + 1, text)


async def _request(server: ServerConnection, method: str, params: Any) -> Any:
    try:
        return await server.request(method, params, TIMEOUT)
    except ServerError as exc:
        raise ToolError(f"Error: {exc}") from None


def hover_text(contents: Any) -> str:
    """A hover's contents as text: MarkupContent, a MarkedString, or a list of them."""
    if isinstance(contents, str):
        return contents
    if isinstance(contents, list):
        return "\n\n".join(text for item in contents if (text := hover_text(item)))
    value = field_of(contents, "value")
    if not isinstance(value, str):
        return ""
    language = field_of(contents, "language")
    return f"```{language}\n{value}\n```" if isinstance(language, str) else value
