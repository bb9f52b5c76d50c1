"""The steps of a restore, and applying them: each step notes the step that undoes it, and
when one fails the steps done are undone newest first, so the workspace is left as it was found.
Every step goes through `TreeWriter`, never through a link."""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from harness9.schema import ToolError
from harness9.service.checkpoints.shadow_git import BlobReader, GitError
from harness9.service.checkpoints.tree_writer import Kind, TreeWriter, kind_of
from harness9.workspace.atomic_write import Owner

LINK_MODE = "120000"
EXECUTABLE_MODE = "100755"
_SHOWN = 5  # problems named in a refusal; the rest are counted
_T = TypeVar("_T")


class RestoreFailed(Exception):
    """A restore did not happen and the workspace is as it was. `conflict`: it was refused
    before anything was written (the message says what stands in the way); otherwise a step
    failed and the steps done were undone. `undo` is the checkpoint the restore took first."""

    def __init__(self, message: str, *, conflict: bool) -> None:
        super().__init__(message)
        self.conflict = conflict
        self.undo = ""


@dataclass(frozen=True, slots=True)
class Blob:
    """A file or link as git stores it: its mode and its blob."""

    mode: str
    oid: str

    @property
    def kind(self) -> Kind:
        """What it is on disk."""
        return "link" if self.mode == LINK_MODE else "file"


def listed(problems: list[str]) -> str:
    """The first problems, joined, and how many more there are."""
    more = len(problems) - _SHOWN
    return "; ".join(problems[:_SHOWN]) + (f"; and {more} more" if more > 0 else "")


class Apply:
    """Steps taken one by one; on a failure, the ones done are undone, newest first."""

    def __init__(self, writer: TreeWriter, blobs: BlobReader) -> None:
        self.writer = writer
        self.blobs = blobs

    async def disk(self, call: Callable[..., _T], *args: object) -> _T:
        """A blocking `TreeWriter` call, off the event loop."""
        return await asyncio.to_thread(call, *args)

    async def run(self, steps: list[Step]) -> None:
        done: list[Step] = []
        for step in steps:
            try:
                undo = await step.run(self)
            except (OSError, ToolError, GitError) as exc:
                left = await self._undo(done)
                raise RestoreFailed(_failure(step.path, exc, left), conflict=False) from None
            if undo is not None:
                done.append(undo)

    async def _undo(self, done: list[Step]) -> list[str]:
        """Undo the steps done; the paths that could not be put back."""
        left = []
        for step in reversed(done):
            try:
                await step.run(self)
            except (OSError, ToolError, GitError):
                left.append(step.path)
        return left


def _failure(path: str, exc: Exception, left: list[str]) -> str:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    message = f"restoring {path} failed ({reason})"
    if not left:
        return f"{message}; the files it had changed were put back"
    return (f"{message}; the files it had changed were put back but {listed(left)} "
            "(the restore's undo checkpoint holds them)")


class Step(Protocol):
    @property
    def path(self) -> str:
        """The path the step acts on."""

    async def run(self, apply: Apply) -> Step | None:
        """Take the step; the step that undoes it (None: nothing was done)."""


@dataclass(frozen=True, slots=True)
class Remove:
    path: str
    now: Blob

    async def run(self, apply: Apply) -> Step:
        info = await apply.disk(apply.writer.lstat, self.path)
        await apply.disk(apply.writer.remove, self.path)
        return Put(self.path, self.now, exact=_owner(info))


@dataclass(frozen=True, slots=True)
class Put:
    """Write a file or link, replacing what is there; `exact` is the mode and owner to give
    (undoing a step), else they are kept from the file replaced, with the exec bit of git's."""

    path: str
    blob: Blob
    now: Blob | None = None
    exact: Owner | None = None

    async def run(self, apply: Apply) -> Step:
        data = await apply.blobs.read(self.blob.oid)
        info = await apply.disk(apply.writer.lstat, self.path)
        if self.blob.kind == "link":
            target = os.fsdecode(data)
            await apply.disk(apply.writer.write_link, self.path, target)
        else:
            keep = self.exact or _keep(self.blob, info)
            await apply.disk(apply.writer.write_file, self.path, data, keep)
        if self.now is None or info is None:
            return Remove(self.path, self.blob)
        return Put(self.path, self.now, exact=_owner(info))


@dataclass(frozen=True, slots=True)
class RemoveFolder:
    """Remove a folder if it is there and empty; `required`: a file or link takes its place,
    so it must go (verified empty, but for what the steps before removed)."""

    path: str
    required: bool = False

    async def run(self, apply: Apply) -> Step | None:
        info = await apply.disk(apply.writer.lstat, self.path)
        if kind_of(info) == "missing":
            return None
        if kind_of(info) != "folder":
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", self.path)
        if await apply.disk(apply.writer.remove_folder, self.path):
            assert info is not None
            return MakeFolder(self.path, stat.S_IMODE(info.st_mode))
        if self.required:
            raise OSError(errno.ENOTEMPTY, "the folder is not empty", self.path)
        return None  # it holds files no checkpoint has: it stays


@dataclass(frozen=True, slots=True)
class MakeFolder:
    path: str
    mode: int = 0o755

    async def run(self, apply: Apply) -> Step | None:
        if kind_of(await apply.disk(apply.writer.lstat, self.path)) == "folder":
            return None
        await apply.disk(apply.writer.make_folder, self.path, self.mode)
        return RemoveFolder(self.path, required=True)


def _owner(info: os.stat_result | None) -> Owner | None:
    """The mode and owner of a file (None for a link or nothing)."""
    return Owner.of(info) if info is not None and kind_of(info) == "file" else None


def _keep(blob: Blob, info: os.stat_result | None) -> Owner | int:
    """The mode a written file gets: a new file 0644 or 0755; a replaced one keeps its mode and
    owner, with the exec bits set (where it is readable) or cleared as git's mode says."""
    executable = blob.mode == EXECUTABLE_MODE
    owner = _owner(info)
    if owner is None:
        return 0o755 if executable else 0o644
    mode = owner.mode & ~0o111
    if executable:
        mode |= (owner.mode & 0o444) >> 2
    return Owner(mode, owner.uid, owner.gid)
