"""Putting a workspace back to a checkpoint: plan, verify, then apply, undone on any failure.

The plan comes from git alone: the entries that differ between the workspace as the restore's
undo checkpoint has just recorded it (`now`) and the checkpoint to restore (`then`), with their
modes (a link is mode 120000, its blob the link's text), and the folders `then` has. Verifying
looks at the disk before anything is written: each entry the plan removes or replaces must
still be what `now` recorded, nothing that no checkpoint holds (an ignored file, a folder with
one) may stand where the plan writes, and every blob the restore or its undoing reads must be
stored. Applying goes step by step (`restore_steps`), through `TreeWriter`, never through a
link, and notes how to undo each step; when a step fails, the steps done are undone newest
first (from the blobs of `now`), so the workspace is left as it was found.
"""

from __future__ import annotations

import asyncio
import posixpath
from collections.abc import Collection
from dataclasses import dataclass, field

from harness9.service.checkpoints.restore_steps import (
    Apply,
    Blob,
    MakeFolder,
    Put,
    Remove,
    RemoveFolder,
    RestoreFailed,
    Step,
    listed,
)
from harness9.service.checkpoints.shadow_git import BlobReader, ShadowGit
from harness9.service.checkpoints.tree_writer import Kind, TreeWriter, kind_of


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
        raise RestoreFailed(listed(problems), conflict=True)
    reader = BlobReader(git)
    try:
        await Apply(TreeWriter(git.work_tree), reader).run(plan.steps())
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

    def steps(self) -> list[Step]:
        """The steps, in the order they are taken."""
        written = {c.path for c in self.writes}
        # A folder where a file or link comes back must go, once emptied (verified before).
        cleared = sorted((c.path for c in self.writes if c.now is None),
                         key=lambda f: (-f.count("/"), f))
        steps: list[Step] = [Remove(c.path, c.now) for c in self.removals if c.now]
        steps += [RemoveFolder(f) for f in self.emptied if f not in written]
        steps += [RemoveFolder(f, required=True) for f in cleared]
        steps += [MakeFolder(f) for f in self.needed]
        steps += [Put(c.path, c.then, now=c.now) for c in self.writes if c.then]
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


