"""The workspace port in the daemon: files open in the editor are read from, and edited
through, the editor.

pygls keeps the documents the client syncs (`textDocument/didOpen`, incremental `didChange`,
`didClose`). For an open document, reads return the buffer's text (what the user sees, saved or
not), and writes go to the editor as one `workspace/applyEdit`: a versioned `TextDocumentEdit`
of the smallest edits, labelled `harness9: <tool> <path>`, so the change lands in the buffer
and in its undo; the same text then goes to the disk, so commands see what the editor shows.
The editor refusing the edit (or its version having moved) fails the write with nothing
changed. Files not open, or a client that cannot apply edits, or `editsThroughEditor` off: the
disk alone.

Editors keep a file's UTF-8 BOM out of the buffer text (Neovim's 'bomb', VS Code's "UTF-8 with
BOM"): a file with a BOM on disk keeps it when written through the editor, and a BOM in the new
text goes to the disk, never into a buffer that holds none.
"""

from __future__ import annotations

import asyncio
import codecs
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from harness9.lsp.client_requests import ask_client, field_of
from harness9.lsp.text_edits import minimal_edits, text_edits
from harness9.schema import ToolError
from harness9.tools.contract import seconds_left
from harness9.workspace.decided import beneath_as_decided, settled
from harness9.workspace.paths import relative_path
from harness9.workspace.port import (
    BOM,
    DiskWorkspace,
    FileText,
    Moved,
    Page,
    Written,
    encode_text,
    fingerprint_of,
    page_of,
    unsaved_note,
)
from harness9.workspace.safe_path import open_beneath, safe_path

APPLY_TIMEOUT = 60.0  # seconds an editor may take to apply an edit, within the tool's timeout
SYNC_WAIT = 1.0  # seconds to wait for the editor to report the applied edit back
_SYNC_POLL = 0.005


def applies_edits(capabilities: Any) -> bool:
    """Whether the client announced `workspace.applyEdit`."""
    workspace = getattr(capabilities, "workspace", None)
    return bool(getattr(workspace, "apply_edit", False))


def _versioned_edits(capabilities: Any) -> bool:
    workspace = getattr(capabilities, "workspace", None)
    workspace_edit = getattr(workspace, "workspace_edit", None)
    return bool(getattr(workspace_edit, "document_changes", False))


class EditorWorkspace(DiskWorkspace):
    """The files under `root` as the editor connected to `server` holds them."""

    def __init__(self, root: str, server: LanguageServer, *, through_editor: bool) -> None:
        super().__init__(root)
        self._server = server
        self._through_editor = through_editor
        self._encoded: dict[str, tuple[int | None, str, bytes, str]] = {}

    async def read_page(self, path: str, offset: int, limit: int) -> Page:
        """A page of the open document's text, else of the file on disk."""
        document = self.document(path)
        if document is None:
            return await super().read_page(path, offset, limit)
        data, fingerprint = self._encode(document)
        on_disk = await asyncio.to_thread(self.read_disk, path)
        note = unsaved_note(on_disk, document.source, self._shown(path))
        return page_of(data, offset, limit, fingerprint, note)

    async def read_text(self, path: str) -> FileText | None:
        """The open document's text, else the file on disk. (When edits go to the disk, they
        are matched against the disk too.)"""
        document = self.document(path) if self._through_editor else None
        if document is None:
            return await super().read_text(path)
        _, fingerprint = self._encode(document)
        return FileText(document.source, fingerprint, via="editor")

    async def write_text(
        self, path: str, text: str, *, tool: str, base: FileText | None, encoding: str = "utf-8"
    ) -> Written:
        """Through the editor when the file is open there (then to disk), else to disk. The
        file is the one the call was decided on: its buffer, and its path on disk reached
        without following links (checked before the editor is asked too)."""
        if not self._through_editor:
            return await super().write_text(path, text, tool=tool, base=base, encoding=encoding)
        real = await asyncio.to_thread(self._as_decided, path)
        document = self._document_at(real)
        if document is None:
            return await super().write_text(path, text, tool=tool, base=base, encoding=encoding)
        text, bom = await asyncio.to_thread(self._split_bom, path, document.source, text)
        data = encode_text(text, path)
        old, version = document.source, document.version
        if base is not None and base.fingerprint != self._encode(document)[1]:
            raise Moved(f"Error: {path} changed in the editor while it was being written")
        if old != text:
            await self._apply(document.uri, version, old, text, tool, self._shown(path))
            await self._synced(document.uri, version, text)
        await asyncio.to_thread(self.write_disk, path, bom + data, None)
        return Written("editor", fingerprint_of(data))  # what a read of the buffer will give

    def document(self, path: str) -> TextDocument | None:
        """The open document of the file at `path` (None: the editor does not hold it)."""
        return self._document_at(str(safe_path(self.root, path)))

    def _as_decided(self, path: str) -> str:
        """The real path of the file the call was decided on; a `ToolError` when a link or
        another folder has taken its place since (blocking)."""
        decided = settled(self.root, path)
        with beneath_as_decided(self.root, decided, path, make_folders=False):
            return decided.real

    def _document_at(self, real: str) -> TextDocument | None:
        documents: dict[str, TextDocument] = self._server.workspace.text_documents
        document = documents.get(unquote(Path(real).as_uri()))
        if document is not None:
            return document
        for candidate in documents.values():  # a client that spells the URI differently
            if candidate.path and os.path.realpath(candidate.path) == real:
                return candidate
        return None

    def _shown(self, path: str) -> str:
        return relative_path(path, os.fspath(self.root))

    def _encode(self, document: TextDocument) -> tuple[bytes, str]:
        """The document's text as UTF-8 and its fingerprint, kept per version."""
        cached = self._encoded.get(document.uri)
        source = document.source
        if cached is not None and cached[0] == document.version and cached[1] is source:
            return cached[2], cached[3]
        data = source.encode("utf-8", "surrogatepass")
        fingerprint = fingerprint_of(data)
        self._encoded[document.uri] = (document.version, source, data, fingerprint)
        return data, fingerprint

    def _split_bom(self, path: str, old: str, text: str) -> tuple[str, bytes]:
        """The new text for a buffer holding `old`, and the BOM to write before it on disk
        (blocking). A buffer that holds its BOM as text gets `text` as it is."""
        if old.startswith(BOM):
            return text, b""
        if text.startswith(BOM):
            return text[len(BOM) :], codecs.BOM_UTF8
        return text, codecs.BOM_UTF8 if self._disk_has_bom(path) else b""

    def _disk_has_bom(self, path: str) -> bool:
        try:
            with open_beneath(self.root, path, os.O_RDONLY | os.O_NONBLOCK) as (fd, _):
                return os.pread(fd, len(codecs.BOM_UTF8), 0) == codecs.BOM_UTF8
        except OSError:  # no such file, or none to read (the write then says why)
            return False

    async def _apply(
        self, uri: str, version: int | None, old: str, new: str, tool: str, shown: str
    ) -> None:
        """Send the edit as one `workspace/applyEdit`; a `ToolError` unless it was applied."""
        encoding = self._server.workspace.position_encoding
        replacements = await asyncio.to_thread(minimal_edits, old, new)  # a big buffer: seconds
        edits = text_edits(old, replacements, encoding)
        if _versioned_edits(self._server.client_capabilities):
            document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            change = types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(document, list(edits))]
            )
        else:
            change = types.WorkspaceEdit(changes={uri: edits})
        params = types.ApplyWorkspaceEditParams(change, label=f"harness9: {tool} {shown}")
        wait = seconds_left(APPLY_TIMEOUT)
        try:
            answer = await ask_client(
                self._server.protocol, types.WORKSPACE_APPLY_EDIT, params, "harness9-edit", wait
            )
        except TimeoutError:
            raise ToolError(
                f"Error: the editor did not apply the change to {shown} within "
                f"{wait:g} s, so it was not written; the file on disk is unchanged. Try again, "
                "or ask the user to check the editor"
            ) from None
        except Exception as exc:  # the client's error answer
            raise _refused(shown, str(exc)) from None
        if field_of(answer, "applied") is not True:
            reason = field_of(answer, "failureReason")
            reason = reason if isinstance(reason, str) else None
            raise _refused(shown, reason)

    async def _synced(self, uri: str, version: int | None, text: str) -> None:
        """Wait (briefly) until the editor's change notification for the edit has arrived, so
        the next read sees the edited buffer."""
        deadline = asyncio.get_running_loop().time() + min(SYNC_WAIT, seconds_left(SYNC_WAIT))
        while asyncio.get_running_loop().time() < deadline:
            document = self._server.workspace.text_documents.get(unquote(uri))
            if document is None or document.version != version or document.source == text:
                return
            await asyncio.sleep(_SYNC_POLL)


def _refused(shown: str, reason: str | None) -> ToolError:
    why = f" ({reason})" if reason else ""
    return ToolError(
        f"Error: the editor refused the change to {shown}{why}; nothing was changed, in the "
        f"editor or on disk. The user may be editing {shown}: read it again with read_file "
        "and retry"
    )
