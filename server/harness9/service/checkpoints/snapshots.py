"""Checkpoints: snapshots of a workspace in a shadow git repository, and restoring them.

One shadow repository per workspace lives under the state directory. A snapshot is `git add -A`
into the shadow index, `write-tree`, and `commit-tree` when the tree changed: nothing is checked
out, the user's own `.git` is never opened, and the workspace's `.gitignore` rules apply
(plus a default exclude list of dependency and build folders). When nothing changed since the
index was last written (this daemon wrote it, and no one has since), a snapshot costs one
`git ls-files` pass that compares the files' stat with the index and lists new ones, and
writes nothing.

Nested repositories (a folder with a `.git` of its own, submodules included) are not
snapshotted: git would only record which commit they are at, which cannot bring their files
back. They are left out, and named in `ShadowRepo.skipped`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness9.schema import ChangedFile
from harness9.service.checkpoints.shadow_git import GitError, ShadowGit, git_executable
from harness9.service.checkpoints.tree_restore import Plan, RestoreFailed, planned, restore_tree
from harness9.service.state import state_dir, workspace_key

_log = logging.getLogger("harness9.checkpoints")

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
MAX_FILES = 20_000
MAX_BYTES = 500 * 1024 * 1024
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
_MAX_NAMED_PATHS = 1000  # more changed files than this are added by walking the tree
_LOCK_RETRIES = 20  # another daemon's git holds the shadow index: wait up to about a second


class CheckpointsOff(Exception):
    """Checkpoints cannot be taken for this workspace; the message says why, for the user."""


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
class Limits:
    """Beyond these, snapshots would cost too much: checkpoints turn off for the workspace."""

    max_files: int = MAX_FILES
    max_bytes: int = MAX_BYTES


@dataclass
class ShadowRepo:
    """The checkpoints of one workspace."""

    git: ShadowGit
    limits: Limits = field(default_factory=Limits)
    skipped: list[str] = field(default_factory=list)
    _last: Checkpoint | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The tree this daemon last wrote the index as, and the index file's stat just after.
    _index: tuple[str, tuple[int, int, int]] | None = None
    # The size of each file the last size check counted (what a snapshot would copy).
    _sizes: dict[bytes, int] | None = None
    _number: int | None = None  # the next checkpoint's number, once known
    _drafts: set[str] = field(default_factory=set)  # commits drafted, not yet kept or dropped

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
        tree = await self._tree_now(sized=True)
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
            return await self._tree_now(sized=False)

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
            self._index = None
            return Restored(tuple(paths), undo.id)

    async def plan_restore(self, checkpoint_id: str, only: Collection[str] | None) -> Plan:
        """What `restore` would do now; nothing is written to the workspace."""
        await self._known(checkpoint_id)
        async with self._lock:
            return await planned(self.git, await self._tree_now(sized=False), checkpoint_id, only)

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

    async def _tree_now(self, *, sized: bool) -> str:
        """The workspace's tree as it is now: the index's when nothing changed since this
        daemon wrote it, else the index brought up to date (`sized`: refusing, first, a
        workspace beyond the limits)."""
        changed = await self._changed_since_index()
        if changed == [] and self._index is not None:
            return self._index[0]
        if sized:
            await self._check_size(changed)
        return await self._write_tree(changed)

    async def _write_tree(self, changed: list[bytes] | None = None) -> str:
        """Bring the index up to the workspace and write its tree. With `changed` (the paths
        that differ from the index), only those are added; else the whole tree is."""
        self._index = None
        if changed is None or not await self._add_only(changed):
            await self._git_locked("add", "--all", "--ignore-errors", "--", ".", ok=(0, 1))
            await self._drop_nested_repositories()
        tree = (await self._git_locked("write-tree")).decode().strip()
        stamp = self._index_stamp()
        if stamp is not None:
            self._index = (tree, stamp)
        return tree

    async def _add_only(self, changed: list[bytes]) -> bool:
        """Add just `changed` to the index; False when git must look at the whole tree instead
        (a new nested repository, too many paths for one command line, or a path git refuses
        alone: one beneath a folder that became a link)."""
        if len(changed) > _MAX_NAMED_PATHS or any(path.endswith(b"/") for path in changed):
            return False
        try:
            # The paths as git listed them: literal, even when they hold `*` or `:(`.
            await self._git_locked("--literal-pathspecs", "add", "--all", "--ignore-errors",
                                   "--", *(_text(path) for path in changed), ok=(0, 1))
        except GitError:
            return False
        return True

    async def _changed_since_index(self) -> list[bytes] | None:
        """The paths that differ from the index this daemon last wrote (modified, deleted or
        new files; a nested repository's folder is listed only when it is new), from one
        `ls-files` pass over the files' stat; None when that cannot be told (no index of ours,
        or another process wrote it since)."""
        if self._index is None:
            return None
        stamp = self._index[1]
        if self._index_stamp() != stamp:
            return None
        out = await self.git.run("--no-optional-locks", "ls-files", "-z", "--modified",
                                 "--deleted", "--others", "--exclude-standard")
        skipped = set(self.skipped)
        changed = sorted({p for p in out.split(b"\0") if p and _text(p).rstrip("/") not in skipped})
        return None if self._index_stamp() != stamp else changed

    def _index_stamp(self) -> tuple[int, int, int] | None:
        """The index file's modification time, size and inode; None when there is none."""
        try:
            found = os.stat(self.git.git_dir / "index")
        except OSError:
            return None
        return found.st_mtime_ns, found.st_size, found.st_ino

    async def _git_locked(self, *args: str, ok: tuple[int, ...] = (0,)) -> bytes:
        """Run git, waiting briefly while another daemon's git holds the shadow index."""
        for attempt in range(_LOCK_RETRIES):
            try:
                return await self.git.run(*args, ok=ok)
            except GitError as exc:
                if "index.lock" not in str(exc) or attempt == _LOCK_RETRIES - 1:
                    raise
                await asyncio.sleep(0.05)
        raise AssertionError("unreachable")

    async def _drop_nested_repositories(self) -> None:
        """Take gitlinks (nested repositories) out of the index; remember their paths."""
        out = await self.git.run("ls-files", "--stage", "-z")
        nested = [
            _text(entry.split(b"\t", 1)[1])
            for entry in out.split(b"\0")
            if entry.startswith(b"160000 ")
        ]
        if nested:
            await self.git.run("update-index", "--force-remove", "--", *nested)
            new = [path for path in nested if path not in self.skipped]
            if new:
                _log.info("checkpoints leave out nested repositories: %s", ", ".join(new))
            self.skipped = sorted(set(self.skipped) | set(nested))

    async def _changes(self, older: str, newer: str) -> list[ChangedFile]:
        out = await self.git.run(
            "diff-tree", "-r", "--no-renames", "--name-status", "-z", older, newer
        )
        fields = out.split(b"\0")
        statuses = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}
        return [
            ChangedFile(_text(path), statuses.get(code.decode(), "modified"))
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

    async def _check_size(self, changed: list[bytes] | None = None) -> None:
        """Refuse a workspace too big to snapshot, before git copies any of it. With `changed`
        (the paths that differ from the last snapshot's), only those are looked at again."""
        if changed is None or self._sizes is None or any(p.endswith(b"/") for p in changed):
            out = await self.git.run("ls-files", "-z", "--cached", "--others",
                                     "--exclude-standard")
            paths = [p for p in out.split(b"\0") if p]
            self._sizes = await asyncio.to_thread(_sizes_of, self.git.work_tree, paths)
        else:
            self._sizes.update(_sizes_of(self.git.work_tree, changed))
            for path in changed:
                if self._sizes[path] < 0:
                    del self._sizes[path]
        count = sum(1 for size in self._sizes.values() if size >= 0)
        if count > self.limits.max_files:
            raise CheckpointsOff(
                f"checkpoints are off for this workspace: {count} files are more than "
                f"{self.limits.max_files} (add the large folders to .gitignore)"
            )
        total = sum(size for size in self._sizes.values() if size > 0)
        if total > self.limits.max_bytes:
            raise CheckpointsOff(
                f"checkpoints are off for this workspace: its files take {total >> 20} MB, more "
                f"than {self.limits.max_bytes >> 20} MB (add the large files to .gitignore)"
            )


def _real_folder(workspace: str) -> str:
    if not os.path.isdir(workspace):
        raise CheckpointsOff(f"checkpoints are off: {workspace} is not a folder")
    return os.path.realpath(workspace)


def _sizes_of(root: str, paths: list[bytes]) -> dict[bytes, int]:
    """The size of each path under `root` (not following a link); -1 for one that is gone."""
    sizes = {}
    base = root.encode("utf-8", "surrogateescape")
    for path in paths:
        try:
            sizes[path] = os.lstat(os.path.join(base, path)).st_size
        except OSError:
            sizes[path] = -1
    return sizes


def _text(path: bytes) -> str:
    return path.decode("utf-8", "surrogateescape")

