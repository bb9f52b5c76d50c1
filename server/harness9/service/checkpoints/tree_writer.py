"""The workspace as a restore sees it and changes it: entries beneath the root, no link followed.

Every operation walks from the workspace root's descriptor without following any link
(`resolve_beneath(..., follow_links=False)`: a link where a folder should be is refused) and
acts on the last component itself. A link is removed or replaced, never what it leads to; a
file is replaced by renaming a temporary file over it, a link by renaming a new link over it, so
a reader sees the old entry or the new one. These are blocking calls: run them in a thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from harness9.workspace.atomic_write import Owner, replace_in_folder, replace_with_link
from harness9.workspace.path_walk import Location
from harness9.workspace.safe_path import resolve_beneath

Kind = Literal["missing", "file", "link", "folder", "other"]
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def kind_of(info: os.stat_result | None) -> Kind:
    """What an `lstat` result is (`missing` for None)."""
    if info is None:
        return "missing"
    if stat.S_ISREG(info.st_mode):
        return "file"
    if stat.S_ISLNK(info.st_mode):
        return "link"
    if stat.S_ISDIR(info.st_mode):
        return "folder"
    return "other"


@dataclass(frozen=True, slots=True)
class TreeWriter:
    """Link-safe operations on workspace-relative paths (`/`-separated, as git names them)."""

    root: str

    @contextlib.contextmanager
    def _at(self, path: str) -> Iterator[Location]:
        """The folder of `path` held open, reached without following a link; `FileNotFoundError`
        when a folder on the way is missing."""
        with resolve_beneath(self.root, path, follow_links=False) as where:
            if where.folder_missing:
                raise FileNotFoundError(errno.ENOENT, "a folder on the way is missing", path)
            yield where

    def lstat(self, path: str) -> os.stat_result | None:
        """The entry at `path` itself (a link is not followed); None when there is none."""
        try:
            with self._at(path) as where:
                return os.stat(where.name, dir_fd=where.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def remove(self, path: str) -> None:
        """Remove the file or link at `path` (a folder is an error)."""
        with self._at(path) as where:
            os.unlink(where.name, dir_fd=where.dir_fd)

    def remove_folder(self, path: str) -> bool:
        """Remove the folder at `path` if it is empty; False when it is not."""
        with self._at(path) as where:
            try:
                os.rmdir(where.name, dir_fd=where.dir_fd)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    return False
                raise
        return True

    def make_folder(self, path: str, mode: int) -> None:
        """Make the folder `path` with exactly `mode` (the umask aside)."""
        with self._at(path) as where:
            os.mkdir(where.name, 0o700, dir_fd=where.dir_fd)
            fd = os.open(where.name, _FOLDER_FLAGS, dir_fd=where.dir_fd)
            try:
                os.fchmod(fd, mode)
            finally:
                os.close(fd)

    def write_file(self, path: str, data: bytes, keep: Owner | int) -> None:
        """Replace whatever file or link is at `path` with a file of `data` (see
        `replace_in_folder` for `keep`)."""
        with self._at(path) as where:
            replace_in_folder(where.dir_fd, where.name, data, keep)

    def write_link(self, path: str, target: str) -> None:
        """Replace whatever file or link is at `path` with a link to `target`."""
        with self._at(path) as where:
            replace_with_link(where.dir_fd, where.name, target)

    def below(self, path: str) -> list[tuple[str, Kind]]:
        """Every entry under the folder `path` (paths from the root), folders before what they
        hold; nothing is followed."""
        with self._at(path) as where:
            fd = os.open(where.name, _FOLDER_FLAGS, dir_fd=where.dir_fd)
        try:
            return _entries(fd, path)
        finally:
            os.close(fd)


def _entries(fd: int, prefix: str) -> list[tuple[str, Kind]]:
    found: list[tuple[str, Kind]] = []
    with os.scandir(fd) as listing:
        names = [(entry.name, kind_of(entry.stat(follow_symlinks=False))) for entry in listing]
    for name, kind in sorted(names):
        found.append((f"{prefix}/{name}", kind))
        if kind == "folder":
            child = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            try:
                found += _entries(child, f"{prefix}/{name}")
            finally:
                os.close(child)
    return found
