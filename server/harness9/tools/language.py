"""The editor's language intelligence as tools: definition, references, workspace symbols,
hover and rename, answered by the language servers the editor runs.

The model speaks in paths, 1-based lines and symbol names; the tools find the symbol on the
line (or on a line close by) and hand the port a 0-based line and character. A front-end that
knows such an editor plugs in `LanguageQueries`, which knows which kinds the editor offers.
A rename arrives as new texts for the files it changes; they are written through the workspace
(the editor's buffers, then the disk) only when every file is inside the workspace, and a
failed write puts back the files already written. The rename is worked out before the call is
decided (`plan`), so that every file it writes is decided on and listed when the user is asked,
and the call then writes that change.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from harness9.schema import ChangedFile, FileChanges, ToolDefinition, ToolError, ToolKind
from harness9.tools.contract import (
    PATH_PROPERTY,
    PLANNED,
    BaseTool,
    ChangePlan,
    ToolOutput,
    parse_arguments,
    string_property,
    tool_definition,
)
from harness9.tools.edit.diff import unified_diff
from harness9.workspace.port import FileText, Workspace

MAX_PLACES = 50
NEARBY = 5  # lines either side searched when the symbol is not on the line given
_LINE = {"type": "integer", "minimum": 1, "description": "1-based line where the symbol is"}
_SYMBOL = string_property("The symbol's name as written on that line")


@dataclass(frozen=True, slots=True)
class Place:
    """A place the editor answered: workspace-relative path (absolute when outside), 1-based
    line and column, and that line's text when the file is in the workspace."""

    path: str
    line: int
    column: int
    text: str | None = None

    def shown(self) -> str:
        """`path:line:column: text`."""
        where = f"{self.path}:{self.line}:{self.column}"
        return f"{where}: {self.text.strip()}" if self.text else where


@dataclass(frozen=True, slots=True)
class SymbolFound:
    """A workspace symbol: its name, kind (`class`, `function`, …) and place."""

    name: str
    kind: str
    place: Place


@dataclass(frozen=True, slots=True)
class RenamedFile:
    """One file a rename changes: its path, its text as read, and its text after."""

    path: str
    base: FileText
    text: str


class LanguageQueries(Protocol):
    """The editor's language servers; `kinds` are those the editor offers."""

    kinds: frozenset[str]

    async def places(self, kind: str, path: str, line: int, character: int) -> list[Place]:
        """Definition or references of the symbol at 0-based `line`, `character`."""
        ...

    async def symbols(self, query: str) -> list[SymbolFound]:
        """Symbols of the workspace matching `query`."""
        ...

    async def hover(self, path: str, line: int, character: int) -> str | None:
        """What the language server says of the symbol (type, docs); None: nothing."""
        ...

    async def rename(
        self, path: str, line: int, character: int, new_name: str
    ) -> list[RenamedFile]:
        """The files renaming the symbol changes, with their new text; `ToolError` when the
        rename is refused or reaches outside the workspace."""
        ...


async def locate(workspace: Workspace, path: str, line: int, symbol: str) -> tuple[int, int]:
    """The 0-based line and character of `symbol` on (or near) 1-based `line` of `path`."""
    found = await workspace.read_text(path)
    if found is None:
        raise ToolError(f"Error: {path} does not exist")
    lines = found.text.splitlines()
    if not 1 <= line <= len(lines):
        raise ToolError(f"Error: {path} has {len(lines)} lines; line {line} is not one of them")
    pattern = re.compile(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])")
    for distance in range(NEARBY + 1):
        for index in sorted({line - 1 - distance, line - 1 + distance}):
            if 0 <= index < len(lines) and (match := pattern.search(lines[index])):
                return index, match.start()
    raise ToolError(f"Error: {symbol!r} is not on line {line} of {path} (nor within {NEARBY} "
                    f"lines); line {line} reads: {lines[line - 1].strip()!r}")


def _places(places: Sequence[Place], what: str) -> str:
    if not places:
        return f"No {what} found."
    lines = [p.shown() for p in places[:MAX_PLACES]]
    if len(places) > MAX_PLACES:
        lines.append(f"… and {len(places) - MAX_PLACES} more")
    return f"{len(places)} {what}:\n" + "\n".join(lines)


def _position(args: dict[str, Any]) -> tuple[str, int, str]:
    path, line, symbol = args.get("path"), args.get("line"), args.get("symbol")
    if not isinstance(path, str) or not path:
        raise ToolError("Error: path is required")
    if isinstance(line, bool) or not isinstance(line, int):
        raise ToolError("Error: line must be an integer (1-based)")
    if not isinstance(symbol, str) or not symbol.strip():
        raise ToolError("Error: symbol is required: the name as written on the line")
    return path, line, symbol.strip()


class _AtSymbol:
    """A tool asking about the symbol at a path, line and name."""

    name = ""
    kind = "definition"
    description = ""

    def __init__(self, workspace: Workspace, queries: LanguageQueries) -> None:
        self._workspace = workspace
        self._queries = queries

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        properties = {"path": PATH_PROPERTY, "line": _LINE, "symbol": _SYMBOL}
        return tool_definition(self.name, self.description, properties,
                               ["path", "line", "symbol"], kind=ToolKind.READ)

    async def execute(self, arguments: str) -> str | ToolOutput:
        """Answer the model (each tool its own)."""
        raise NotImplementedError

    async def _where(self, arguments: str | dict[str, Any]) -> tuple[str, int, int]:
        args = parse_arguments(arguments) if isinstance(arguments, str) else arguments
        path, line, symbol = _position(args)
        index, character = await locate(self._workspace, path, line, symbol)
        return path, index, character


class _PlacesTool(_AtSymbol):
    """A tool answering with the places of a symbol (`kind` of query, `what` they are)."""

    what = "places"

    async def execute(self, arguments: str) -> str:
        """The places, one a line."""
        path, line, character = await self._where(arguments)
        return _places(await self._queries.places(self.kind, path, line, character), self.what)


class FindDefinitionTool(_PlacesTool):
    """Where a symbol is defined."""

    name = "find_definition"
    kind = "definition"
    what = "definitions"
    description = ("Where a symbol is defined, as the editor's language server resolves it "
                   "(imports, overloads and all): give the file, the line where the symbol is "
                   "used and its name.")


class FindReferencesTool(_PlacesTool):
    """Where a symbol is used."""

    name = "find_references"
    kind = "references"
    what = "references"
    description = ("Every place a symbol is used in the workspace, as the editor's language "
                   "server finds them (not a text search): give the file, a line where the "
                   "symbol is and its name.")


class HoverTool(_AtSymbol):
    """What the language server says of a symbol."""

    name = "hover"
    kind = "hover"
    description = ("The type, signature and documentation of a symbol, as the editor shows "
                   "them on hover: give the file, the line and the symbol's name.")

    async def execute(self, arguments: str) -> str:
        """The hover text."""
        path, line, character = await self._where(arguments)
        text = await self._queries.hover(path, line, character)
        return text.strip() if text and text.strip() else "The language server says nothing."


class WorkspaceSymbolsTool:
    """Symbols of the workspace by name."""

    name = "workspace_symbols"
    kind = "symbols"

    def __init__(self, workspace: Workspace, queries: LanguageQueries) -> None:
        self._queries = queries

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        query = string_property("The name, or part of it")
        return tool_definition(
            self.name, "Find classes, functions and other symbols of the workspace by name, "
            "as the editor's language servers index them.", {"query": query}, ["query"],
            kind=ToolKind.READ)

    async def execute(self, arguments: str) -> str:
        """The symbols, one a line."""
        query = parse_arguments(arguments).get("query")
        if not isinstance(query, str) or not query.strip():
            raise ToolError("Error: query is required")
        found = await self._queries.symbols(query.strip())
        if not found:
            return f"No symbols match {query!r}."
        lines = [f"{s.name} ({s.kind}) {s.place.shown()}" for s in found[:MAX_PLACES]]
        more = [f"… and {len(found) - MAX_PLACES} more"] if len(found) > MAX_PLACES else []
        return f"{len(found)} symbols:\n" + "\n".join(lines + more)


class RenameSymbolTool(_AtSymbol):
    """Renames a symbol everywhere the language server knows it."""

    name = "rename_symbol"
    kind = "rename"
    description = ("Rename a symbol everywhere it is used, as the editor's language server "
                   "does it (safer than editing each place): give the file, a line where the "
                   "symbol is, its name and the new name. Every changed file goes through the "
                   "editor, each as one change the user can undo.")

    def definition(self) -> ToolDefinition:
        """The description and JSON Schema offered to the model."""
        properties = {"path": PATH_PROPERTY, "line": _LINE, "symbol": _SYMBOL,
                      "newName": string_property("The new name")}
        return tool_definition(self.name, self.description, properties,
                               ["path", "line", "symbol", "newName"], kind=ToolKind.EDIT)

    async def plan(self, arguments: dict[str, Any]) -> ChangePlan:
        """The rename's change, asked of the language server, without making it."""
        files = await self._renamed(arguments)
        diff = await asyncio.to_thread(
            lambda: "".join(unified_diff(f.path, f.base.text, f.text) for f in files))
        return ChangePlan(self.name, tuple(f.path for f in files), diff, tuple(files))

    async def execute(self, arguments: str) -> str | ToolOutput:
        """Write every renamed file, or none; the result names the files it changed. A rename
        worked out when the call was decided is the one written."""
        args = parse_arguments(arguments)
        planned = PLANNED.get()
        if planned is not None and planned.tool == self.name:
            files = [f for f in planned.change if isinstance(f, RenamedFile)]
        else:
            files = await self._renamed(args)
        if not files:
            return "The language server changed nothing: no rename was made."
        await self._write_all(files)
        names = ", ".join(f.path for f in files)
        text = f"Renamed to {_new_name(args)} in {len(files)} files: {names}"
        changed = tuple(ChangedFile(f.path, "modified") for f in files)
        return ToolOutput(text, len(text.encode()), changes=FileChanges(changed))

    async def _renamed(self, args: dict[str, Any]) -> list[RenamedFile]:
        new_name = _new_name(args)
        path, line, character = await self._where(args)
        return await self._queries.rename(path, line, character, new_name)

    async def _write_all(self, files: Sequence[RenamedFile]) -> None:
        written: list[RenamedFile] = []
        try:
            for file in files:
                await self._workspace.write_text(file.path, file.text, tool=self.name,
                                                 base=file.base, encoding=file.base.encoding)
                written.append(file)
        except ToolError as exc:
            for file in reversed(written):  # put back what was renamed already
                await self._workspace.write_text(file.path, file.base.text, tool=self.name,
                                                 base=None, encoding=file.base.encoding)
            raise ToolError(f"{exc}; the rename was undone in every file") from None


def _new_name(args: dict[str, Any]) -> str:
    new_name = args.get("newName")
    if not isinstance(new_name, str) or not new_name.strip():
        raise ToolError("Error: newName is required")
    return new_name.strip()


TOOLS: tuple[type[_AtSymbol] | type[WorkspaceSymbolsTool], ...] = (
    FindDefinitionTool, FindReferencesTool, WorkspaceSymbolsTool, HoverTool, RenameSymbolTool,
)


def language_tools(workspace: Workspace, queries: LanguageQueries) -> list[BaseTool]:
    """The tools of the kinds the editor offers."""
    return [tool(workspace, queries) for tool in TOOLS if tool.kind in queries.kinds]
