"""LSP's records as harness9's: a `Diagnostic` as a `Problem`, a file URI as a
workspace-relative path, a `WorkspaceEdit`'s text edits per file, a `SymbolKind` as a name.
The editor's answers (`harness9/diagnostics`, `harness9/languageQuery`) and the language
servers the daemon runs itself give the same records.

What a server or an editor says is data, not the daemon's word, and may be large: a problem's
message is cut to `MAX_MESSAGE` characters and its source and code to `MAX_LABEL` (the cut
marked `…`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from harness9.schema import Problem, ToolError
from harness9.workspace.paths import relative_path
from harness9.workspace.positions import Replacement, apply_replacements, offset_at

if TYPE_CHECKING:
    from harness9.tools.language import RenamedFile
    from harness9.workspace.port import Workspace

SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
MAX_MESSAGE = 1000
MAX_LABEL = 100


def field_of(value: Any, name: str) -> Any:
    """A field of an answer as it was sent (None when the answer is no object)."""
    return value.get(name) if isinstance(value, dict) else None


def workspace_path(uri: str, root: str) -> str | None:
    """The workspace-relative path of a file URI (None: not a file of the workspace)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if not path:
        return None
    real, top = os.path.realpath(path), os.path.realpath(root)
    return relative_path(real, top) if os.path.commonpath([real, top]) == top else None


def problem_of(path: str, raw: Any) -> Problem | None:
    """An LSP Diagnostic of the file at `path` as a problem (None when it is not one)."""
    message = field_of(raw, "message")
    start = field_of(field_of(raw, "range"), "start")
    line, character = field_of(start, "line"), field_of(start, "character")
    if not isinstance(message, str) or not isinstance(line, int):
        return None
    severity = field_of(raw, "severity")
    source, code = field_of(raw, "source"), field_of(raw, "code")
    return Problem(
        path=path,
        line=line + 1,
        column=(character if isinstance(character, int) else 0) + 1,
        severity=SEVERITIES.get(severity, "error") if isinstance(severity, int) else "error",
        message=cut(message.strip(), MAX_MESSAGE),
        source=cut(source, MAX_LABEL) if isinstance(source, str) and source else None,
        code=(cut(str(code), MAX_LABEL)
              if isinstance(code, str | int) and not isinstance(code, bool) else None),
    )


def cut(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with the cut marked."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def kind_name(kind: Any) -> str:
    """A symbol's kind as a word (`class`, `function`, …): LSP's number, or a name as given."""
    if isinstance(kind, str):
        return kind
    try:
        return types.SymbolKind(kind).name.lower()
    except ValueError:
        return "symbol"


def edits_by_uri(edit: Any) -> dict[str, list[Any]]:
    """A WorkspaceEdit's text edits per document; `ToolError` for file operations."""
    if not isinstance(edit, dict):
        return {}
    found: dict[str, list[Any]] = {}
    for uri, edits in (field_of(edit, "changes") or {}).items():
        found.setdefault(uri, []).extend(edits or [])
    for change in field_of(edit, "documentChanges") or []:
        uri = field_of(field_of(change, "textDocument"), "uri")
        if not isinstance(uri, str):
            raise ToolError("Error: the rename would create, move or delete files; nothing was "
                            "renamed (do that with bash, then rename)")
        found.setdefault(uri, []).extend(field_of(change, "edits") or [])
    return found


def replacement_of(text: str, change: Any, encoding: str | None) -> Replacement | None:
    """An LSP TextEdit on `text` as a replacement (None: it is malformed)."""
    where = field_of(change, "range")
    start, end = field_of(where, "start"), field_of(where, "end")
    new = field_of(change, "newText")
    if not isinstance(new, str) or not _position(start) or not _position(end):
        return None
    return Replacement(offset_at(text, start["line"], start["character"], encoding),
                       offset_at(text, end["line"], end["character"], encoding), new)


def _position(value: Any) -> bool:
    return isinstance(field_of(value, "line"), int) and isinstance(
        field_of(value, "character"), int)


async def renamed_files(edit: Any, root: str, files: Workspace, encoding: str | None,
                        who: str) -> list[RenamedFile]:
    """The files a rename's `WorkspaceEdit` changes, with their new texts (read through
    `files`); `ToolError` when it reaches outside workspace `root`, names a missing file, or
    (malformed, `who` made it) cannot be applied."""
    from harness9.tools.language import RenamedFile

    renamed = []
    for uri, changes in edits_by_uri(edit).items():
        shown = workspace_path(uri, root)
        if shown is None:
            raise ToolError(f"Error: the rename would change {uri}, outside the workspace; "
                            "nothing was renamed")
        base = await files.read_text(shown)
        if base is None:
            raise ToolError(f"Error: the rename would change {shown}, which does not exist")
        spans = [replacement_of(base.text, change, encoding) for change in changes]
        if any(span is None for span in spans):
            raise ToolError(f"Error: {who} rename edit is malformed; nothing was renamed")
        ordered = sorted((s for s in spans if s is not None), key=lambda r: (r.start, r.end))
        renamed.append(RenamedFile(shown, base, apply_replacements(base.text, ordered)))
    return renamed
