"""The workspace port: where the file tools read and write text.

The tools never open files themselves: they ask a `Workspace` for a page of a file, for its
whole text with a fingerprint of that content, and to write new text. `DiskWorkspace`, the
default, is the disk (sandboxed by `safe_path`, written by atomic replace). A front-end that
knows an editor plugs in its own implementation, which answers for the files the editor holds
open (their unsaved text, edits that land in the editor's undo) and leaves the rest to the disk.
The port knows no editor and no protocol.

Writes to one file are serialized by the tools (`file_lock`), not here.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
from dataclasses import dataclass
from typing import Literal, Protocol

from harness9.schema import ToolError
from harness9.workspace.atomic_write import Owner, replace_in_folder
from harness9.workspace.decided import beneath_as_decided, open_as_decided, settled
from harness9.workspace.safe_path import open_beneath

Via = Literal["editor", "disk"]
BOM = "\ufeff"  # editors keep it out of a buffer's text; the disk may hold it
LATIN_1 = "latin-1"  # how bytes that are not UTF-8 are read: one character a byte
NEW_FILE_MODE = 0o644
# A file larger than this is fingerprinted by its size and time, not by reading all of it.
_HASHED_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class Page:
    """Up to `limit` bytes of a file's content at an offset: the bytes, the content's size,
    whether more follows, the content's fingerprint, and a note on where the text came from
    (set when it is not simply the file on disk)."""

    data: bytes
    size: int
    more: bool
    fingerprint: str
    note: str | None = None


@dataclass(frozen=True, slots=True)
class FileText:
    """A file's whole content as text, and the fingerprint of that content. When the bytes
    are not UTF-8, `bad_byte` is the first invalid byte and its offset, and `text` is the bytes
    read as Latin-1 (`encoding`): one character a byte, so written back the same way every byte
    the edit leaves alone stays as it was."""

    text: str
    fingerprint: str
    via: Via = "disk"
    bad_byte: tuple[int, int] | None = None
    encoding: str = "utf-8"

    @property
    def utf8(self) -> bool:
        """Whether the content is UTF-8 text."""
        return self.bad_byte is None


@dataclass(frozen=True, slots=True)
class Written:
    """Where a write landed, the fingerprint of the content written, and a note for the model
    on where the change is when that is not simply the file on disk."""

    via: Via
    fingerprint: str
    note: str | None = None


class Moved(ToolError):
    """The file changed since the text a write was based on was read."""


class Workspace(Protocol):
    """Where the file tools read and write. Paths are as the model gave them (relative to the
    workspace root); every implementation keeps them inside it."""

    async def read_page(self, path: str, offset: int, limit: int) -> Page:
        """Read `limit + 1` bytes at `offset` (the extra byte says whether more follows)."""
        ...

    async def read_text(self, path: str) -> FileText | None:
        """The file's whole text now (None: there is no such file)."""
        ...

    async def write_text(
        self, path: str, text: str, *, tool: str, base: FileText | None, encoding: str = "utf-8"
    ) -> Written:
        """Replace the file's content with `text` (creating it and its folders when missing);
        `Moved` when `base` is given and the content is no longer `base`'s. `tool` names the
        caller, for an editor's undo label; `encoding` is the file's on disk (a file read as
        Latin-1 is written as Latin-1)."""
        ...

    async def exists(self, path: str) -> bool:
        """Whether the file exists."""
        ...


def fingerprint_of(data: bytes) -> str:
    """The fingerprint of a content: changes whenever the bytes do."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def holds_text(on_disk: FileText | None, text: str) -> bool:
    """Whether the file on disk (`on_disk`; None: there is none) holds `text`. A UTF-8 BOM that
    `text` leaves out is the file's encoding, not a difference: editors keep it out of their
    buffers."""
    if on_disk is None or not on_disk.utf8:
        return False
    return on_disk.text == text or on_disk.text == BOM + text


def unsaved_note(on_disk: FileText | None, text: str, shown: str) -> str | None:
    """The note on a page read from an editor's `text` of the file `shown` when the disk does
    not hold that text (None when it does)."""
    if holds_text(on_disk, text):
        return None
    return (
        f"this is the text of {shown} open in the editor; it has changes not saved to the file "
        "on disk"
    )


def encode_text(text: str, shown: str, encoding: str = "utf-8") -> bytes:
    """`text` as UTF-8 (or `encoding`); a `ToolError` for text that cannot be encoded (an
    unpaired surrogate, a character Latin-1 lacks)."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        if encoding == LATIN_1:
            raise ToolError(
                f"Error: {shown} is Latin-1 text (not UTF-8), which cannot hold the character "
                f"{exc.object[exc.start]!r} of the new content; nothing was written. Use only "
                "Latin-1 characters (or escapes the language allows)"
            ) from None
        raise ToolError(
            f"Error: the new content of {shown} is not valid Unicode text (an unpaired surrogate "
            f"at character {exc.start}); nothing was written"
        ) from None


class DiskWorkspace:
    """The workspace as the files on disk under `root`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = root

    async def read_page(self, path: str, offset: int, limit: int) -> Page:
        """A page of the file on disk (FIFOs and devices refused, never waited on)."""
        return await asyncio.to_thread(self._read_page, path, offset, limit)

    async def read_text(self, path: str) -> FileText | None:
        """The file on disk, decoded as UTF-8."""
        return await asyncio.to_thread(self.read_disk, path)

    async def write_text(
        self, path: str, text: str, *, tool: str, base: FileText | None, encoding: str = "utf-8"
    ) -> Written:
        """Atomically replace the file on disk (an existing file keeps its mode and owner)."""
        data = encode_text(text, path, encoding)
        return Written("disk", await asyncio.to_thread(self.write_disk, path, data, base))

    async def exists(self, path: str) -> bool:
        """Whether a file (of any kind) is at `path`."""
        return await asyncio.to_thread(self._exists, path)

    def read_disk(self, path: str) -> FileText | None:
        """The file on disk as text (blocking; run it in a thread); the file the call was
        decided on, when it was."""
        try:
            with open_as_decided(self.root, path, os.O_RDONLY | os.O_NONBLOCK) as fd:
                fingerprint = _fingerprint(fd, regular_file(fd, path))
                data = _read_all(fd)
        except FileNotFoundError:
            return None
        try:
            return FileText(data.decode("utf-8"), fingerprint)
        except UnicodeDecodeError as exc:
            bad = (data[exc.start], exc.start)
            return FileText(data.decode(LATIN_1), fingerprint, bad_byte=bad, encoding=LATIN_1)

    def write_disk(self, path: str, data: bytes, base: FileText | None) -> str:
        """Create the parent folders and replace the file atomically, relative to the
        descriptor of its folder held from the check to the rename (blocking); the fingerprint
        of what was written. The file is the one the call was decided on (`decided`), reached
        without following links: one swapped in since fails the write."""
        with beneath_as_decided(self.root, settled(self.root, path), path) as where:
            keep = _keep(where.dir_fd, where.name, path)
            if base is not None and _fingerprint_at(where.dir_fd, where.name) != base.fingerprint:
                raise Moved(f"Error: {path} changed while it was being written; read it again")
            try:
                replace_in_folder(where.dir_fd, where.name, data, keep)
            except OSError as exc:
                raise ToolError(
                    f"Error: cannot write {path}: {exc.strerror or exc}; the file was left "
                    "unchanged"
                ) from None
            return _fingerprint_at(where.dir_fd, where.name) or fingerprint_of(data)

    def _read_page(self, path: str, offset: int, limit: int) -> Page:
        try:
            with open_beneath(self.root, path, os.O_RDONLY | os.O_NONBLOCK) as (fd, _):
                info = regular_file(fd, path, reading=True)
                data = os.pread(fd, limit + 1, offset)
                fingerprint = _fingerprint(fd, info)
        except FileNotFoundError:
            raise ToolError(f"Error: file not found: {path}") from None
        except OSError as exc:
            raise ToolError(f"Error: cannot read {path}: {exc.strerror or exc}") from None
        size = max(info.st_size, offset + len(data))
        return Page(data[:limit], size, len(data) > limit, fingerprint)

    def _exists(self, path: str) -> bool:
        try:
            with open_beneath(self.root, path, os.O_RDONLY | os.O_NONBLOCK):
                return True
        except FileNotFoundError:
            return False


def page_of(data: bytes, offset: int, limit: int, fingerprint: str, note: str | None) -> Page:
    """A page of content held in memory (an editor's document)."""
    chunk = data[offset : offset + limit + 1]
    return Page(chunk[:limit], len(data), len(chunk) > limit, fingerprint, note)


def regular_file(fd: int, shown: str, *, reading: bool = False) -> os.stat_result:
    """The stat of an open regular file; a `ToolError` for folders, devices, sockets, pipes."""
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        if reading:
            raise ToolError(
                f"Error: {shown} is a folder, not a file; list it with the bash tool "
                f"(e.g. `ls {shown}`)"
            )
        raise ToolError(f"Error: {shown} is a folder; give the path of a file inside it")
    if not stat.S_ISREG(info.st_mode):
        raise ToolError(f"Error: {shown} is not a regular file (a device, socket or pipe)")
    return info


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _fingerprint(fd: int, info: os.stat_result) -> str:
    """The content's fingerprint (`fingerprint_of` its bytes, unless it is huge), read through
    `fd` without moving its offset."""
    if info.st_size > _HASHED_BYTES:
        return f"stat:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"
    digest = hashlib.blake2b(digest_size=16)
    at = 0
    while chunk := os.pread(fd, 1 << 20, at):
        digest.update(chunk)
        at += len(chunk)
    return digest.hexdigest()


def _fingerprint_at(dir_fd: int, name: str) -> str | None:
    """The fingerprint of the file `name` in the folder now (None: there is none)."""
    try:
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    try:
        return _fingerprint(fd, os.fstat(fd))
    finally:
        os.close(fd)


def _keep(dir_fd: int, name: str, shown: str) -> Owner | int:
    """The mode and owner an existing file keeps; a new file gets 0644."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return NEW_FILE_MODE
    if name == "." or stat.S_ISDIR(info.st_mode):
        raise ToolError(f"Error: {shown} is a folder; give the path of a file inside it")
    return Owner.of(info) if stat.S_ISREG(info.st_mode) else NEW_FILE_MODE
