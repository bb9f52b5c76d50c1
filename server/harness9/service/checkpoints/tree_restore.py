"""Putting a workspace back to a checkpoint: plan, verify, then apply, undone on any failure.

The plan comes from git alone: the entries that differ between the workspace as the restore's
undo checkpoint has just recorded it (`now`) and the checkpoint to restore (`then`), with their
modes (a link is mode 120000, its blob the link's text), and the folders `then` has. Verifying
looks at the disk before anything is written: each entry the plan removes or replaces must
still be what `now` recorded, nothing that no checkpoint holds (an ignored file, a folder with
one) may stand where the plan writes, and every blob the restore or its undoing reads must be
stored. Applying goes step by step through `TreeWriter`, never through a link, and notes how to
undo each step; when a step fails, the steps done are undone newest first (from the blobs of
`now`), so the workspace is left as it was found.
"""

from __future__ import annotations

import asyncio
import errno
import os
import posixpath
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from harness9.schema import ToolError
from harness9.service.checkpoints.shadow_git import BlobReader, GitError, ShadowGit
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


@dataclass(frozen=True, slots=True)
class Change:
    """A path that differs: what it is now (None: nothing) and what it was then."""

    path: str
    now: Blob | None
    then: Blob | None


async def restore_tree(
    git: ShadowGit, now: str, then: str, only: Collection[str] | None = None
) -> list[str]:
    """Put the work tree, recorded as the tree `now`, back to the tree (or commit) `then` (of
    the paths, only those in `only` when given); the paths that changed. `RestoreFailed` when
    it cannot, with the workspace as it was."""
    plan = await planned(git, now, then, only)
    problems = await asyncio.to_thread(verify, TreeWriter(git.work_tree), plan)
    missing = await git.missing(sorted(plan.blobs()))
    if missing:
        problems.append(f"{len(missing)} stored file(s) are missing from the checkpoints")
    if problems:
        raise RestoreFailed(_listed(problems), conflict=True)
    reader = BlobReader(git)
    try:
        await _Apply(TreeWriter(git.work_tree), reader).run(plan.steps())
    finally:
        await reader.close()
    return plan.paths()


async def planned(
    git: ShadowGit, now: str, then: str, only: Collection[str] | None = None
) -> Plan:
    """What `restore_tree` would do (nothing is written or checked on disk)."""
    changes = await _changes(git, now, then)
    if only is not None:
        changes = [change for change in changes if change.path in only]
    return Plan.of(changes, await _folders(git, then))


async def _changes(git: ShadowGit, now: str, then: str) -> list[Change]:
    """The entries that differ between two trees, with modes and blobs (no rename pairing)."""
    out = await git.run("diff-tree", "-r", "-z", "--no-renames", "--raw", now, then)
    fields = out.split(b"\0")
    changes = []
    for header, path in zip(fields[0::2], fields[1::2], strict=False):
        if not header.startswith(b":"):
            continue
        old_mode, new_mode, old_oid, new_oid, _ = header[1:].decode().split()
        changes.append(Change(
            path.decode("utf-8", "surrogateescape"),
            _blob(old_mode, old_oid),
            _blob(new_mode, new_oid),
        ))
    return changes


def _blob(mode: str, oid: str) -> Blob | None:
    return None if mode == "000000" else Blob(mode, oid)


async def _folders(git: ShadowGit, tree: str) -> set[str]:
    """Every folder of a tree."""
    out = await git.run("ls-tree", "-r", "-d", "--name-only", "-z", tree)
    return {path.decode("utf-8", "surrogateescape") for path in out.split(b"\0") if path}


def _folders_of(path: str) -> list[str]:
    """The folders `path` lies in, outermost first."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _listed(problems: list[str]) -> str:
    more = len(problems) - _SHOWN
    return "; ".join(problems[:_SHOWN]) + (f"; and {more} more" if more > 0 else "")


@dataclass(frozen=True, slots=True)
class Plan:
    """What a restore does, in order: remove the entries `then` lacks, then the folders that
    leaves empty and `then` lacks (deepest first), make the folders `then` has (outermost
    first), then write the entries that differ."""

    removals: list[Change]
    writes: list[Change]
    emptied: list[str]
    needed: list[str]
    removed: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def of(cls, changes: list[Change], folders_then: set[str]) -> Plan:
        """The plan of a restore that makes these changes."""
        removals = sorted((c for c in changes if c.then is None), key=lambda c: c.path)
        writes = sorted((c for c in changes if c.then is not None), key=lambda c: c.path)
        emptied = {f for c in removals for f in _folders_of(c.path)} - folders_then
        needed = {f for c in writes for f in _folders_of(c.path)}
        return cls(
            removals,
            writes,
            sorted(emptied, key=lambda f: (-f.count("/"), f)),
            sorted(needed, key=lambda f: (f.count("/"), f)),
            frozenset(c.path for c in removals),
        )

    def paths(self) -> list[str]:
        """The paths it changes, sorted."""
        return sorted(change.path for change in self.removals + self.writes)

    def blobs(self) -> set[str]:
        """Every blob the restore writes, or its undoing would."""
        return {b.oid for c in self.removals + self.writes for b in (c.now, c.then) if b}

    def steps(self) -> list[_Step]:
        """The steps, in the order they are taken."""
        written = {c.path for c in self.writes}
        # A folder where a file or link comes back must go, once emptied (verified before).
        cleared = sorted((c.path for c in self.writes if c.now is None),
                         key=lambda f: (-f.count("/"), f))
        steps: list[_Step] = [_Remove(c.path, c.now) for c in self.removals if c.now]
        steps += [_RemoveFolder(f) for f in self.emptied if f not in written]
        steps += [_RemoveFolder(f, required=True) for f in cleared]
        steps += [_MakeFolder(f) for f in self.needed]
        steps += [_Put(c.path, c.then, now=c.now) for c in self.writes if c.then]
        return steps


def verify(writer: TreeWriter, plan: Plan) -> list[str]:
    """Why the plan cannot be applied to the disk as it is (nothing: it can). Blocking."""
    disk = _Disk(writer)
    problems = [
        f"{c.path} changed as the restore began (try again)"
        for c in plan.removals + plan.writes
        if c.now is not None and disk.kind(c.path) != c.now.kind
    ]
    emptied = set(plan.emptied)
    for change in plan.writes:
        if change.now is None:
            problems += _in_the_way(disk, plan, emptied, change.path)
    for folder in plan.needed:
        kind = disk.kind(folder)
        if kind not in ("folder", "missing") and folder not in plan.removed:
            problems.append(f"{folder} must be a folder, but it is a {kind} no checkpoint has")
    return problems


def _in_the_way(disk: _Disk, plan: Plan, emptied: set[str], path: str) -> list[str]:
    """What stands where a restore writes `path`, which the workspace should not have now."""
    kind = disk.kind(path)
    if kind == "missing":
        return []
    if kind == "folder":
        left = [
            (what == "folder", below) for below, what in disk.writer.below(path)
            if below not in (emptied if what == "folder" else plan.removed)
        ]
        if not left:
            return []
        return [f"{path} must become a file, but the folder holds {min(left)[1]}, which no "
                "checkpoint has (an ignored file?); move it away and try again"]
    return [f"{path} is in the way: no checkpoint has this {kind} (an ignored one?) and the "
            "restore would replace it; move it away and try again"]


class _Disk:
    """What is on disk at each path, looked at once (beneath a link or file: `missing`, since
    nothing is reached through one without following it)."""

    def __init__(self, writer: TreeWriter) -> None:
        self.writer = writer
        self._kinds: dict[str, Kind] = {}

    def kind(self, path: str) -> Kind:
        if path not in self._kinds:
            parent = posixpath.dirname(path)
            if parent and self.kind(parent) != "folder":
                self._kinds[path] = "missing"
            else:
                self._kinds[path] = kind_of(self.writer.lstat(path))
        return self._kinds[path]


class _Apply:
    """Steps taken one by one; on a failure, the ones done are undone, newest first."""

    def __init__(self, writer: TreeWriter, blobs: BlobReader) -> None:
        self.writer = writer
        self.blobs = blobs

    async def disk(self, call: Callable[..., _T], *args: object) -> _T:
        """A blocking `TreeWriter` call, off the event loop."""
        return await asyncio.to_thread(call, *args)

    async def run(self, steps: list[_Step]) -> None:
        done: list[_Step] = []
        for step in steps:
            try:
                undo = await step.run(self)
            except (OSError, ToolError, GitError) as exc:
                left = await self._undo(done)
                raise RestoreFailed(_failure(step.path, exc, left), conflict=False) from None
            if undo is not None:
                done.append(undo)

    async def _undo(self, done: list[_Step]) -> list[str]:
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
    return (f"{message}; the files it had changed were put back but {_listed(left)} "
            "(the restore's undo checkpoint holds them)")


class _Step(Protocol):
    @property
    def path(self) -> str:
        """The path the step acts on."""

    async def run(self, apply: _Apply) -> _Step | None:
        """Take the step; the step that undoes it (None: nothing was done)."""


@dataclass(frozen=True, slots=True)
class _Remove:
    path: str
    now: Blob

    async def run(self, apply: _Apply) -> _Step:
        info = await apply.disk(apply.writer.lstat, self.path)
        await apply.disk(apply.writer.remove, self.path)
        return _Put(self.path, self.now, exact=_owner(info))


@dataclass(frozen=True, slots=True)
class _Put:
    """Write a file or link, replacing what is there; `exact` is the mode and owner to give
    (undoing a step), else they are kept from the file replaced, with the exec bit of git's."""

    path: str
    blob: Blob
    now: Blob | None = None
    exact: Owner | None = None

    async def run(self, apply: _Apply) -> _Step:
        data = await apply.blobs.read(self.blob.oid)
        info = await apply.disk(apply.writer.lstat, self.path)
        if self.blob.kind == "link":
            target = os.fsdecode(data)
            await apply.disk(apply.writer.write_link, self.path, target)
        else:
            keep = self.exact or _keep(self.blob, info)
            await apply.disk(apply.writer.write_file, self.path, data, keep)
        if self.now is None or info is None:
            return _Remove(self.path, self.blob)
        return _Put(self.path, self.now, exact=_owner(info))


@dataclass(frozen=True, slots=True)
class _RemoveFolder:
    """Remove a folder if it is there and empty; `required`: a file or link takes its place,
    so it must go (verified empty, but for what the steps before removed)."""

    path: str
    required: bool = False

    async def run(self, apply: _Apply) -> _Step | None:
        info = await apply.disk(apply.writer.lstat, self.path)
        if kind_of(info) == "missing":
            return None
        if kind_of(info) != "folder":
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", self.path)
        if await apply.disk(apply.writer.remove_folder, self.path):
            assert info is not None
            return _MakeFolder(self.path, stat.S_IMODE(info.st_mode))
        if self.required:
            raise OSError(errno.ENOTEMPTY, "the folder is not empty", self.path)
        return None  # it holds files no checkpoint has: it stays


@dataclass(frozen=True, slots=True)
class _MakeFolder:
    path: str
    mode: int = 0o755

    async def run(self, apply: _Apply) -> _Step | None:
        if kind_of(await apply.disk(apply.writer.lstat, self.path)) == "folder":
            return None
        await apply.disk(apply.writer.make_folder, self.path, self.mode)
        return _RemoveFolder(self.path, required=True)


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
