"""The workspace port through an ACP client's file system (`fs/read_text_file`,
`fs/write_text_file`).

When the client's `initialize` offers `fs.readTextFile`, read_file reads the client's text of a
file: in Zed the buffer, unsaved changes included (the page says so when that text is not what
the disk holds). When it also offers `fs.writeTextFile`, write_file and edit_file write through
the client (edit_file matching with our own levels against the client's text), and the client
owns the write: harness9 does not write the disk behind it. Zed edits the buffer and saves it
before answering, so bash sees the change; a client that keeps the change in an unsaved buffer
gets a note in the tool's output saying commands still see the old file.

The disk stays the judge of what exists and where: paths are resolved inside the workspace
(`safe_path`) before the client is asked, folders, devices and missing files are refused as on
disk, and files the client cannot hold as text (not UTF-8, or larger than `CLIENT_READ_LIMIT`)
are read from the disk. A client error, or no answer within `CLIENT_TIMEOUT`, fails the tool
call with a message the model can act on.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from harness9.schema import ToolError
from harness9.tools.contract import seconds_left
from harness9.workspace.decided import beneath_as_decided, settled
from harness9.workspace.paths import relative_path
from harness9.workspace.port import (
    DiskWorkspace,
    FileText,
    Moved,
    Page,
    Written,
    encode_text,
    fingerprint_of,
    holds_text,
    page_of,
    regular_file,
    unsaved_note,
)
from harness9.workspace.safe_path import open_beneath, safe_path

CLIENT_READ_LIMIT = 8 << 20  # bytes on disk above which a file is read from the disk
CLIENT_TIMEOUT = 60.0  # seconds the client may take to answer, within the tool's timeout

_Large = Literal["large"]


class FileClient(Protocol):
    """The part of the SDK's client connection the workspace uses."""

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
        **kwargs: Any,
    ) -> Any:
        """Send `fs/read_text_file`; the answer has `content`."""
        ...

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> Any:
        """Send `fs/write_text_file`."""
        ...


@dataclass(frozen=True, slots=True)
class FsOffer:
    """What the client's `initialize` offered of `clientCapabilities.fs`."""

    read: bool = False
    write: bool = False

    @classmethod
    def of(cls, capabilities: Any) -> FsOffer:
        """From the capabilities as wire JSON (a dict) or as the SDK's model."""
        fs = _field(capabilities, "fs")
        return cls(
            _field(fs, "readTextFile", "read_text_file") is True,
            _field(fs, "writeTextFile", "write_text_file") is True,
        )

    @property
    def any(self) -> bool:
        """Whether the client offered anything."""
        return self.read or self.write


@dataclass(frozen=True, slots=True)
class Change:
    """A write through the client: the text before (None: a new file) and after."""

    before: str | None
    after: str


class ClientWorkspace(DiskWorkspace):
    """The files under `root` as the ACP client of one session holds them."""

    def __init__(self, root: str, client: FileClient, session_id: str, offer: FsOffer) -> None:
        super().__init__(root)
        self._client = client
        self._session_id = session_id
        self._offer = offer
        self._changes: dict[str, Change] = {}
        # The client's text of each file as last read for an edit, by real path: the write
        # that follows on that very text is not preceded by a second read of it.
        self._fresh: dict[str, FileText] = {}

    async def read_page(self, path: str, offset: int, limit: int) -> Page:
        """A page of the client's text of the file (else of the file on disk)."""
        if not self._offer.read:
            return await super().read_page(path, offset, limit)
        on_disk = await self._on_disk(path, reading=True)
        if on_disk is None:
            raise ToolError(f"Error: file not found: {path}")
        if on_disk == "large" or not on_disk.utf8:
            return await super().read_page(path, offset, limit)
        text = await self._read(path)
        data = text.encode("utf-8", "surrogatepass")
        fingerprint = fingerprint_of(data)
        note = unsaved_note(on_disk, text, self._shown(path))
        return page_of(data, offset, limit, fingerprint, note)

    async def read_text(self, path: str) -> FileText | None:
        """The client's text of the file when writes go through the client too (edits are
        matched against what they will replace), else the file on disk."""
        if not (self._offer.read and self._offer.write):
            return await super().read_text(path)
        on_disk = await self._on_disk(path, reading=False)
        if on_disk == "large":
            return await super().read_text(path)
        if on_disk is None or not on_disk.utf8:
            return on_disk
        text = await self._read(path)
        found = FileText(text, fingerprint_of(text.encode("utf-8", "surrogatepass")), "editor")
        self._fresh[str(safe_path(self.root, path))] = found
        return found

    async def write_text(
        self, path: str, text: str, *, tool: str, base: FileText | None, encoding: str = "utf-8"
    ) -> Written:
        """Through the client (which owns the write) when it offered writes, else (and for a
        file that is not UTF-8, which the client's text would not keep) the disk."""
        if not self._offer.write or encoding != "utf-8":
            return await super().write_text(path, text, tool=tool, base=base, encoding=encoding)
        data = encode_text(text, path)
        target = await asyncio.to_thread(self._prepare, path)
        key = str(safe_path(self.root, path))
        # A base read just now by the caller (under the file's lock) is the client's text: the
        # client is asked for the file once per edit. An older base is checked against it.
        if base is not None and base is not self._fresh.pop(key, None):
            now = await self.read_text(path)
            self._fresh.pop(key, None)
            if now is None or now.fingerprint != base.fingerprint:
                raise Moved(f"Error: {path} changed in the editor while it was being written")
        await self._ask("write", path, self._client.write_text_file(
            session_id=self._session_id, path=target, content=text
        ))
        self._changes[target] = Change(None if base is None else base.text, text)
        on_disk = await asyncio.to_thread(self.read_disk, path)
        note = None
        if not holds_text(on_disk, text):
            note = (
                f"the change is in the editor's buffer of {self._shown(path)}, not yet saved to "
                "disk: commands (bash) see the old file until it is saved"
            )
        return Written("editor", fingerprint_of(data), note)

    def change(self, path: str) -> Change | None:
        """The last write through the client to the absolute `path` (taken: asked once)."""
        return self._changes.pop(path, None)

    async def _read(self, path: str) -> str:
        """The client's text of the file."""
        target = self._as_client_knows(str(safe_path(self.root, path)))
        answer = await self._ask("read", path, self._client.read_text_file(
            session_id=self._session_id, path=target
        ))
        content = getattr(answer, "content", None)
        if not isinstance(content, str):
            raise ToolError(f"Error: the editor gave no text for {self._shown(path)}")
        return content

    async def _ask(self, verb: str, path: str, request: Awaitable[Any]) -> Any:
        """Await the client's answer; its error (or silence) becomes a `ToolError` naming the
        file."""
        wait = seconds_left(CLIENT_TIMEOUT)
        shown = self._shown(path)
        try:
            async with asyncio.timeout(wait):
                return await request
        except TimeoutError:
            raise ToolError(
                f"Error: the editor did not answer within {wait:g} s when asked to {verb} "
                f"{shown}; nothing was changed. Try again, or ask the user to check the editor"
            ) from None
        except Exception as exc:  # the client's error answer
            raise ToolError(
                f"Error: the editor could not {verb} {shown}: {_reason(exc)}"
                + ("; nothing was changed" if verb == "write" else "")
            ) from None

    async def _on_disk(self, path: str, *, reading: bool) -> FileText | _Large | None:
        """The file on disk (None: missing; "large": too large to ask the client for)."""
        try:
            return await asyncio.to_thread(self._disk_state, path, reading)
        except OSError as exc:
            raise ToolError(f"Error: cannot read {path}: {exc.strerror or exc}") from None

    def _disk_state(self, path: str, reading: bool) -> FileText | _Large | None:
        try:
            with open_beneath(self.root, path, os.O_RDONLY | os.O_NONBLOCK) as (fd, _):
                if regular_file(fd, path, reading=reading).st_size > CLIENT_READ_LIMIT:
                    return "large"
        except FileNotFoundError:
            return None
        return self.read_disk(path)

    def _prepare(self, path: str) -> str:
        """The absolute path to write, its missing folders created inside the workspace (a
        client may not create them): the file the call was decided on, checked right before
        the client is asked to write it (a link or another folder in its place fails)."""
        with beneath_as_decided(self.root, settled(self.root, path), path) as where:
            return self._as_client_knows(where.path)

    def _as_client_knows(self, real: str) -> str:
        """A real path inside the workspace, spelled from the root the client gave (which may
        be a link to the real folder)."""
        relative = os.path.relpath(real, os.path.realpath(self.root))
        return os.path.normpath(os.path.join(os.fspath(self.root), relative))

    def _shown(self, path: str) -> str:
        return relative_path(path, os.fspath(self.root))


def _reason(exc: Exception) -> str:
    data = getattr(exc, "data", None)
    details = data.get("details") if isinstance(data, dict) else None
    message = str(exc) or type(exc).__name__
    return f"{message} ({details})" if isinstance(details, str) and details else message


def _field(value: Any, *names: str) -> Any:
    """A field of a wire dict or of an SDK model, by its wire or its Python name."""
    for name in names:
        found = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
        if found is not None:
            return found
    return None
