"""The editor's problems (`harness9/diagnostics`), for clients that announce
`experimental.harness9.diagnostics: true`.

The daemon asks `harness9/diagnostics {uri, version?, timeoutMs}`; the client answers
`{diagnostics: [LSP Diagnostic], version?}` for a file, or, asked for the workspace folder's
URI, `{items: [{uri, diagnostics}]}` for every file it knows problems of. `version` (the open
document's version after an edit) asks for the problems of that version; `timeoutMs` bounds how
long the client waits for them (0: what it has now).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pygls.lsp.server import LanguageServer

from harness9.langservers.lsp_records import field_of, problem_of, workspace_path
from harness9.lsp.client_requests import ask_client
from harness9.lsp.documents import EditorWorkspace
from harness9.schema import Problem, ToolError
from harness9.workspace.safe_path import safe_path

METHOD = "harness9/diagnostics"
# Beyond the wait the client is given: the answer's own way back.
MARGIN = 0.5
# What is kept of one answer, which may be megabytes: at most this many problems, of files
# and problems the answer lists first, each cut as `problem_of` cuts it. (What the model reads
# is cut and escaped further.)
MAX_PROBLEMS = 500

_log = logging.getLogger("harness9.lsp")


def announces_diagnostics(capabilities: Any) -> bool:
    """Whether the client's `experimental.harness9.diagnostics` is true."""
    experimental = getattr(capabilities, "experimental", None)
    ours = experimental.get("harness9") if isinstance(experimental, dict) else None
    return isinstance(ours, dict) and ours.get("diagnostics") is True


class EditorProblems:
    """A `ProblemSource` answered by the editor."""

    origin = "editor"

    def __init__(
        self, server: LanguageServer, root: str, workspace: EditorWorkspace | None = None
    ) -> None:
        self._server = server
        self._root = root
        self._workspace = workspace  # where the open documents are found

    def covers(self, path: str) -> bool:
        """Every file: the editor says which it checks."""
        return True

    async def problems(
        self, path: str | None, *, settled: bool, timeout: float
    ) -> list[Problem] | None:
        """Ask the editor; None when it does not answer in time or answers nonsense."""
        try:
            uri = self._uri(path)
        except ToolError:
            return None
        params: dict[str, Any] = {"uri": uri, "timeoutMs": round(timeout * 1000)}
        version = self._version(path) if settled and path is not None else None
        if version is not None:
            params["version"] = version
        try:
            answer = await ask_client(self._server.protocol, METHOD, params, "harness9-problems",
                                      timeout + MARGIN)
        except TimeoutError:
            return None
        except Exception as exc:  # the client's error answer
            _log.info("%s for %s failed: %s", METHOD, uri, exc)
            return None
        return self._parsed(uri, answer)

    def _uri(self, path: str | None) -> str:
        if path is None:
            return Path(self._root).as_uri()
        return Path(safe_path(self._root, path)).as_uri()

    def _version(self, path: str) -> int | None:
        """The open document's version now (the edit has been synced back by then)."""
        if self._workspace is None:
            return None
        try:
            document = self._workspace.document(path)
        except ToolError:
            return None
        return document.version if document is not None else None

    def _parsed(self, uri: str, answer: Any) -> list[Problem] | None:
        items = field_of(answer, "items")
        if isinstance(items, list):
            found: list[Problem] = []
            for item in items[:MAX_PROBLEMS]:
                item_uri = field_of(item, "uri")
                if isinstance(item_uri, str):
                    room = MAX_PROBLEMS - len(found)
                    found += self._problems(item_uri, field_of(item, "diagnostics"), room)
            return found
        diagnostics = field_of(answer, "diagnostics")
        if not isinstance(diagnostics, list):
            return None
        return self._problems(uri, diagnostics, MAX_PROBLEMS)

    def _problems(self, uri: str, diagnostics: Any, room: int) -> list[Problem]:
        """At most `room` problems of the file at `uri`."""
        shown = workspace_path(uri, self._root)
        if shown is None or not isinstance(diagnostics, list) or room <= 0:
            return []
        found = [p for d in diagnostics[:room] if (p := problem_of(shown, d)) is not None]
        if len(diagnostics) > room:
            _log.info("%s: kept %d of the %d problems of %s", METHOD, room, len(diagnostics),
                      shown)
        return found
