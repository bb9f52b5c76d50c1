"""The editor's language servers (`harness9/languageQuery`), for clients that announce
`experimental.harness9.languageFeatures: ["definition", "references", "symbols", "hover",
"rename"]` (any of them).

The daemon asks `harness9/languageQuery {kind, uri, position?, query?, newName?}`; the client
answers `{locations: [Location]}` (definition, references), `{symbols: [{name, kind,
location}]}` (symbols), `{hover: string}` or `{edit: WorkspaceEdit}` (rename). Positions are
in the position encoding the two sides agreed on; the conversion to and from the model's
lines and names is done here, with each file's text as the editor holds it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from harness9.langservers.lsp_records import (
    field_of,
    kind_name,
    renamed_files,
    workspace_path,
)
from harness9.lsp.client_requests import ask_client
from harness9.lsp.documents import EditorWorkspace
from harness9.schema import ToolError
from harness9.tools.language import Place, RenamedFile, SymbolFound
from harness9.workspace.positions import column_of, units
from harness9.workspace.safe_path import safe_path

METHOD = "harness9/languageQuery"
FEATURES = ("definition", "references", "symbols", "hover", "rename")
TIMEOUT = 10.0  # a language server indexing a large workspace answers slowly


def announced_features(capabilities: Any) -> frozenset[str]:
    """The kinds of `experimental.harness9.languageFeatures` this daemon knows."""
    experimental = getattr(capabilities, "experimental", None)
    ours = experimental.get("harness9") if isinstance(experimental, dict) else None
    listed = ours.get("languageFeatures") if isinstance(ours, dict) else None
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(kind for kind in listed if kind in FEATURES)


class EditorLanguage:
    """`LanguageQueries` answered by the editor."""

    def __init__(self, server: LanguageServer, root: str, workspace: EditorWorkspace,
                 kinds: frozenset[str]) -> None:
        self.kinds = kinds
        self._server = server
        self._root = root
        self._workspace = workspace

    @property
    def _encoding(self) -> str | None:
        encoding = self._server.workspace.position_encoding
        return str(encoding) if encoding is not None else None

    async def places(self, kind: str, path: str, line: int, character: int) -> list[Place]:
        """Definition or references, as the editor answers them."""
        answer = await self._ask(kind, path, line, character)
        found = field_of(answer, "locations")
        if isinstance(field_of(answer, "uri"), str):  # one Location instead of a list
            found = [answer]
        places = [await self._place(location) for location in found or []
                  if isinstance(location, dict)]
        return [p for p in places if p is not None]

    async def symbols(self, query: str) -> list[SymbolFound]:
        """Workspace symbols matching `query`."""
        answer = await self._query({"kind": "symbols", "uri": _uri(self._root), "query": query})
        found = []
        for item in field_of(answer, "symbols") or []:
            name, place = field_of(item, "name"), await self._place(field_of(item, "location"))
            if isinstance(name, str) and place is not None:
                found.append(SymbolFound(name, kind_name(field_of(item, "kind")), place))
        return found

    async def hover(self, path: str, line: int, character: int) -> str | None:
        """The hover text, as plain text or Markdown."""
        text = field_of(await self._ask("hover", path, line, character), "hover")
        return text if isinstance(text, str) else None

    async def rename(
        self, path: str, line: int, character: int, new_name: str
    ) -> list[RenamedFile]:
        """The renamed files' texts; `ToolError` when the editor refuses or the edit reaches
        outside the workspace or creates, moves or deletes files."""
        answer = await self._ask("rename", path, line, character, newName=new_name)
        return await renamed_files(field_of(answer, "edit"), self._root, self._workspace,
                                   self._encoding, "the editor's")

    async def _ask(self, kind: str, path: str, line: int, character: int,
                   **extra: Any) -> Any:
        found = await self._workspace.read_text(path)
        text = found.text.splitlines()[line] if found is not None else ""
        position = {"line": line, "character": units(text[:character], self._encoding)}
        params = {"kind": kind, "uri": _uri(str(safe_path(self._root, path))),
                  "position": position, **extra}
        return await self._query(params)

    async def _query(self, params: dict[str, Any]) -> Any:
        try:
            return await ask_client(self._server.protocol, METHOD, params, "harness9-language",
                                    TIMEOUT)
        except TimeoutError:
            raise ToolError(f"Error: the editor's language server did not answer within "
                            f"{TIMEOUT:g} s") from None
        except Exception as exc:  # the client's error answer
            raise ToolError(f"Error: the editor could not answer: {exc}") from None

    async def _place(self, location: Any) -> Place | None:
        uri = field_of(location, "uri") or field_of(location, "targetUri")
        start = field_of(field_of(location, "range") or field_of(location, "targetRange"),
                         "start")
        line, count = field_of(start, "line"), field_of(start, "character")
        if not isinstance(uri, str) or not isinstance(line, int) or not isinstance(count, int):
            return None
        shown = self._inside(uri)
        if shown is None:  # outside the workspace: the place only, never its text
            return Place(to_fs_path(uri) or uri, line + 1, count + 1)
        found = await self._workspace.read_text(shown)
        lines = found.text.splitlines() if found is not None else []
        text = lines[line] if line < len(lines) else None
        column = column_of(text, count, self._encoding) if text is not None else count
        return Place(shown, line + 1, column + 1, text)

    def _inside(self, uri: str) -> str | None:
        """The workspace-relative path of a file URI, or None outside the workspace."""
        return workspace_path(uri, self._root)


def _uri(path: str) -> str:
    return Path(path).as_uri()
