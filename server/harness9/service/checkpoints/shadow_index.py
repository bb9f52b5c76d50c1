"""The shadow index of a workspace's checkpoints: the workspace's tree as it is now, written
as little as it takes, and the limits beyond which checkpoints turn off.

When nothing changed since the index was last written (this daemon wrote it, and no one has
since), the tree costs one `git ls-files` pass that compares the files' stat with the index and
lists new ones, and writes nothing; else only what changed is added. Nested repositories (a
folder with a `.git` of its own) are taken out of the index and named in `skipped`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field

from harness9.service.checkpoints.shadow_git import GitError, ShadowGit

_log = logging.getLogger("harness9.checkpoints")

MAX_FILES = 20_000
MAX_BYTES = 500 * 1024 * 1024
_MAX_NAMED_PATHS = 1000  # more changed files than this are added by walking the tree
_LOCK_RETRIES = 20  # another daemon's git holds the shadow index: wait up to about a second


class CheckpointsOff(Exception):
    """Checkpoints cannot be taken for this workspace; the message says why, for the user."""


@dataclass
class Limits:
    """Beyond these, snapshots would cost too much: checkpoints turn off for the workspace."""

    max_files: int = MAX_FILES
    max_bytes: int = MAX_BYTES


@dataclass
class ShadowIndex:
    """The index of one workspace's shadow repository, and what it last held."""

    git: ShadowGit
    limits: Limits = field(default_factory=Limits)
    skipped: list[str] = field(default_factory=list)
    # The tree this daemon last wrote the index as, and the index file's stat just after.
    _index: tuple[str, tuple[int, int, int]] | None = None
    # The size of each file the last size check counted (what a snapshot would copy).
    _sizes: dict[bytes, int] | None = None

    def forget(self) -> None:
        """The workspace changed behind the index's back (a restore): look at it afresh."""
        self._index = None

    async def tree_now(self, *, sized: bool) -> str:
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
                                   "--", *(text_of(path) for path in changed), ok=(0, 1))
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
        changed = sorted({path for path in out.split(b"\0")
                          if path and text_of(path).rstrip("/") not in skipped})
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
            text_of(entry.split(b"\t", 1)[1])
            for entry in out.split(b"\0")
            if entry.startswith(b"160000 ")
        ]
        if nested:
            await self.git.run("update-index", "--force-remove", "--", *nested)
            new = [path for path in nested if path not in self.skipped]
            if new:
                _log.info("checkpoints leave out nested repositories: %s", ", ".join(new))
            self.skipped = sorted(set(self.skipped) | set(nested))

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


def text_of(path: bytes) -> str:
    """A path git listed, as text (bytes that are not UTF-8 kept as surrogates)."""
    return path.decode("utf-8", "surrogateescape")
