"""Checkpoints: snapshots of a workspace in a shadow git repository, and restoring them.

One shadow repository per workspace lives under the state directory. A snapshot is `git add -A`
into the shadow index, `write-tree`, and `commit-tree` when the tree changed: nothing is checked
out, the user's own `.git` is never opened, and the workspace's `.gitignore` rules apply
(plus a default exclude list of dependency and build folders). When nothing changed since the
index was last written, a snapshot writes nothing (see `shadow_index`).

Nested repositories (a folder with a `.git` of its own, submodules included) are not
snapshotted: git would only record which commit they are at, which cannot bring their files
back. They are left out, and named in `ShadowRepo.skipped`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness9.schema import ChangedFile
from harness9.service.checkpoints.restore_steps import RestoreFailed
from harness9.service.checkpoints.shadow_git import GitError, ShadowGit, git_executable
from harness9.service.checkpoints.shadow_index import CheckpointsOff, Limits, ShadowIndex, text_of
from harness9.service.checkpoints.tree_restore import Plan, planned, restore_tree
from harness9.service.state import state_dir, workspace_key

DEFAULT_EXCLUDES = [
    ".git",
    "node_modules/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".tox/",
    ".gradle/",
    "build/",
    "dist/",
    "target/",
    "*.h9tmp",
]
_REF_PREFIX = "refs/harness9/checkpoints/"
_NAME_TRIES = 3
__all__ = [
    "ChangedFile",
    "Checkpoint",
    "CheckpointsOff",
    "Limits",
    "RestoreFailed",
    "Restored",
    "ShadowRepo",
]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A snapshot: its id (the commit), its tree, and what changed since the one before."""

    id: str
    tree: str
    created_at: float
    files: tuple[ChangedFile, ...] = ()


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restore did: the paths it wrote back or removed, and the checkpoint that undoes
    it (taken just before)."""

    paths: tuple[str, ...]
    undo: str


@dataclass
class ShadowRepo:
    """The checkpoints of one workspace."""

    git: ShadowGit
    limits: Limits = field(default_factory=Limits)
    _last: Checkpoint | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _tree: ShadowIndex = field(init=False)
    _number: int | None = None  # the next checkpoint's number, once known
    _drafts: set[str] = field(default_factory=set)  # commits drafted, not yet kept or dropped

    def __post_init__(self) -> None:
        self._tree = ShadowIndex(self.git, self.limits)

    @property
    def skipped(self) -> list[str]:
        """The nested repositories left out of the snapshots, by path."""
        return self._tree.skipped

    @classmethod
    async def open(
        cls, workspace: str, root: Path | None = None, limits: Limits | None = None
    ) -> ShadowRepo:
        """The shadow repository of `workspace` under `root` (the state directory's
        `checkpoints/`); raises `CheckpointsOff` when git is missing or the workspace is gone."""
        executable = git_executable()
        if executable is None:
            raise CheckpointsOff("checkpoints are off: git is not installed")
        top = root if root is not None else state_dir()
        base = root if root is not None else top / "checkpoints"
        git = ShadowGit(executable, base / workspace_key(workspace), _real_folder(workspace))
        await git.init(DEFAULT_EXCLUDES, top)
        return cls(git, limits or Limits())

    async def snapshot(self, message: str, *, force: bool = False) -> Checkpoint | None:
        """A checkpoint of the workspace as it is now, with the files changed since the last
        one; None when nothing changed, unless `force` (then a checkpoint of the same tree)."""
        async with self._lock:
            return await self._take(message, force=force)

    async def draft(self, message: str) -> Checkpoint:
        """A checkpoint of the workspace as it is now, written but not yet numbered (nothing
        lists it, and pruning leaves it alone): `keep` makes it a checkpoint, `drop` lets it go.
        A run takes its first one so, beside its first model call."""
        async with self._lock:
            draft = await self._write(message, force=True)
            assert draft is not None
            self._drafts.add(draft.id)
            return draft

    async def keep(self, draft: Checkpoint, message: str) -> Checkpoint:
        """Number and name a `draft`: it is then the newest checkpoint. (If another daemon's
        pruning collected it meanwhile: a checkpoint of the workspace as it is now, with
        `message`, instead.)"""
        async with self._lock:
            self._drafts.discard(draft.id)
            try:
                return await self._kept(draft)
            except GitError:
                retaken = await self._write(message, force=True)
                assert retaken is not None
                return await self._kept(retaken)

    def drop(self, draft: Checkpoint) -> None:
        """A `draft` that will not be kept (git collects it with the next pruning)."""
        self._drafts.discard(draft.id)

    async def _take(self, message: str, *, force: bool) -> Checkpoint | None:
        """`snapshot`, the lock held."""
        draft = await self._write(message, force=force)
        return None if draft is None else await self._kept(draft)

    async def _write(self, message: str, *, force: bool) -> Checkpoint | None:
        """The commit of the workspace's tree now, with what changed since the newest
        checkpoint (unnamed); None when nothing changed, unless `force`."""
        tree = await self._tree.tree_now(sized=True)
        last = self._last or await self._head()
        if last is not None and last.tree == tree and not force:
            return None
        files: Sequence[ChangedFile] = ()
        if last is not None and last.tree != tree:  # else a run's first, when nothing changed
            files = await self._changes(last.tree, tree)
        # No parent: each checkpoint stands alone, so pruning one frees its objects.
        commit = (await self.git.run("commit-tree", tree, "-m", message)).decode().strip()
        return Checkpoint(commit, tree, time.time(), tuple(files))

    async def _kept(self, draft: Checkpoint) -> Checkpoint:
        """Name `draft` and make it the newest checkpoint, the lock held."""
        await self._name(draft.id)
        self._last = draft
        return draft

    async def _name(self, commit: str) -> None:
        """Give `commit` the next checkpoint number (and make it the head). The number is
        remembered; `create` fails when another daemon on this workspace took it meanwhile,
        and the newest is asked of git again."""
        failure = GitError("no checkpoint number")
        for _ in range(_NAME_TRIES):
            number = self._number if self._number is not None else await self._next_number()
            updates = (f"create {_REF_PREFIX}{number:09d} {commit}\n"
                       f"update refs/harness9/head {commit}\n")
            try:
                await self.git.run("update-ref", "--stdin", stdin=updates.encode())
            except GitError as exc:
                self._number, failure = None, exc
                continue
            self._number = number + 1
            return
        raise failure

    async def current_tree(self) -> str:
        """The tree of the workspace as it is now, without keeping a checkpoint (for telling
        what one tool call changed)."""
        async with self._lock:
            return await self._tree.tree_now(sized=False)

    async def changes(self, older: str, newer: str) -> list[ChangedFile]:
        """What differs between two checkpoints (ids or trees), by path."""
        return await self._changes(older, newer)

    async def restore(self, checkpoint_id: str, only: Collection[str] | None = None) -> Restored:
        """Put the workspace's files back as they were at `checkpoint_id` (only the paths in
        `only`, when given).

        A snapshot is taken first, so the restore itself can be undone (`Restored.undo`). Files
        and links added since are removed, changed and deleted ones get their bytes and mode
        back (a link comes back as the link); no link is ever followed. Ignored files and nested
        repositories are left alone. `RestoreFailed` (with the workspace as it was) when
        something no checkpoint holds is in the way, or a write fails.
        """
        await self._known(checkpoint_id)
        async with self._lock:
            undo = await self._take(f"before restoring {checkpoint_id[:12]}", force=True)
            assert undo is not None
            try:
                paths = await restore_tree(self.git, undo.tree, checkpoint_id, only)
            except RestoreFailed as exc:
                exc.undo = undo.id
                raise
            self._last = None  # the next snapshot compares against the shadow's head again
            self._tree.forget()
            return Restored(tuple(paths), undo.id)

    async def plan_restore(self, checkpoint_id: str, only: Collection[str] | None) -> Plan:
        """What `restore` would do now; nothing is written to the workspace."""
        await self._known(checkpoint_id)
        async with self._lock:
            tree = await self._tree.tree_now(sized=False)
            return await planned(self.git, tree, checkpoint_id, only)

    async def checkpoint_ids(self) -> list[str]:
        """Every checkpoint kept, oldest first."""
        return [commit for _, commit in await self._refs()]

    async def _refs(self) -> list[tuple[str, str]]:
        """(ref name, commit) of every checkpoint, oldest first (the names are numbered)."""
        out = await self.git.run(
            "for-each-ref", "--sort=refname", "--format=%(refname) %(objectname)", _REF_PREFIX
        )
        pairs = (line.split() for line in out.decode().splitlines())
        return [(name, commit) for name, commit in pairs]

    async def _next_number(self) -> int:
        """One more than the newest checkpoint's number (not the count: pruning leaves gaps)."""
        out = await self.git.run(
            "for-each-ref", "--sort=-refname", "--count=1", "--format=%(refname)", _REF_PREFIX
        )
        newest = out.decode().strip()
        return int(newest.rsplit("/", 1)[1]) + 1 if newest else 1

    async def prune(self, keep: int) -> int:
        """Drop all but the newest `keep` checkpoints and let git reclaim their space."""
        refs = await self._refs()
        dropped = refs[: max(0, len(refs) - keep)]
        async with self._lock:
            for name, _ in dropped:
                await self.git.run("update-ref", "-d", name)
            # A draft is reachable from no ref yet: collecting now would take it.
            if dropped and not self._drafts:
                await self.git.run("reflog", "expire", "--expire=now", "--all")
                await self.git.run("gc", "--quiet", "--prune=now")
        return len(dropped)

    async def _changes(self, older: str, newer: str) -> list[ChangedFile]:
        out = await self.git.run(
            "diff-tree", "-r", "--no-renames", "--name-status", "-z", older, newer
        )
        fields = out.split(b"\0")
        statuses = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}
        return [
            ChangedFile(text_of(path), statuses.get(code.decode(), "modified"))
            for code, path in zip(fields[0::2], fields[1::2], strict=False)
            if code
        ]

    async def _head(self) -> Checkpoint | None:
        try:
            out = await self.git.run(
                "rev-parse", "--verify", "-q", "refs/harness9/head^{commit}",
                "refs/harness9/head^{tree}",
            )
        except GitError:
            return None
        commit, tree = out.decode().split()
        return Checkpoint(commit, tree, 0.0)

    async def _known(self, checkpoint_id: str) -> None:
        try:
            await self.git.run("rev-parse", "--verify", "-q", f"{checkpoint_id}^{{commit}}")
        except GitError:
            raise KeyError(checkpoint_id) from None

def _real_folder(workspace: str) -> str:
    if not os.path.isdir(workspace):
        raise CheckpointsOff(f"checkpoints are off: {workspace} is not a folder")
    return os.path.realpath(workspace)



