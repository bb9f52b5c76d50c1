"""A small editor on the client side of a daemon: it opens documents (syncing them as an editor
does), and applies or refuses `workspace/applyEdit`, recording every request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.workspace import TextDocument

from tests.e2e.daemon import Daemon


class Editor:
    """Buffers synced to `daemon`; answers applyEdit with `applied` (a refusal when False), or
    with `answer` as it is, without applying anything (a client that answers malformed)."""

    def __init__(
        self, daemon: Daemon, *, applied: bool = True, answer: Any = None
    ) -> None:
        self.daemon = daemon
        self.applied = applied
        self.answer = answer
        self.buffers: dict[str, TextDocument] = {}
        self.edits: list[dict[str, Any]] = []

        @daemon.client.feature(types.WORKSPACE_APPLY_EDIT)
        def _apply(ls: Any, structured: Any) -> Any:
            params = get_converter().unstructure(structured)
            self.edits.append(params)
            if self.answer is not None:
                return self.answer
            if not self.applied:
                return {"applied": False, "failureReason": "the user is typing"}
            for change in params["edit"]["documentChanges"]:
                self._apply(change)
            return {"applied": True}

    def open(self, path: Path, text: str, language: str = "text") -> None:
        """Open `path` with `text` in its buffer (saved or not)."""
        uri = path.as_uri()
        self.buffers[uri] = TextDocument(uri, text, version=1)
        item = types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        self.daemon.client.text_document_did_open(types.DidOpenTextDocumentParams(item))

    def type(self, path: Path, line: int, text: str) -> None:
        """Insert `text` at the start of `line`, as the user typing."""
        start = types.Position(line, 0)
        self._change(path.as_uri(), types.Range(start, start), text)

    def close(self, path: Path) -> None:
        """Close the buffer of `path`."""
        uri = path.as_uri()
        del self.buffers[uri]
        identifier = types.TextDocumentIdentifier(uri)
        self.daemon.client.text_document_did_close(types.DidCloseTextDocumentParams(identifier))

    def text(self, path: Path) -> str:
        """What the buffer of `path` shows."""
        return self.buffers[path.as_uri()].source

    def _apply(self, change: dict[str, Any]) -> None:
        uri = change["textDocument"]["uri"]
        assert change["textDocument"]["version"] == self.buffers[uri].version
        # Each edit's range refers to the text before any of them: apply the last first.
        edits = sorted(change["edits"], key=lambda e: _position(e["range"]["start"]), reverse=True)
        for edit in edits:
            start, end = (types.Position(**edit["range"][k]) for k in ("start", "end"))
            self._change(uri, types.Range(start, end), edit["newText"])

    def _change(self, uri: str, where: types.Range, text: str) -> None:
        buffer = self.buffers[uri]
        event = types.TextDocumentContentChangePartial(range=where, text=text)
        buffer.apply_change(event)
        buffer.version = (buffer.version or 0) + 1
        identifier = types.VersionedTextDocumentIdentifier(uri=uri, version=buffer.version)
        params = types.DidChangeTextDocumentParams(identifier, [event])
        self.daemon.client.text_document_did_change(params)


def _position(position: dict[str, int]) -> tuple[int, int]:
    return position["line"], position["character"]
