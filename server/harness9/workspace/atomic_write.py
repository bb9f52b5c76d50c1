"""Atomic file replacement shared by the file-writing tools, and the clean-up of its leftovers.

A write goes to a temporary file `.<name>.<8 hex>.h9tmp` in the target's folder (same file
system, so the rename is atomic), opened, renamed and removed relative to the folder's
descriptor. A process killed mid-write leaves such a file behind; the next write to that
folder, or the daemon's start, removes ours once they are a minute old.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_log = logging.getLogger(__name__)

TEMP_SUFFIX = ".h9tmp"
STALE_SECONDS = 60.0
# Ours by name: a dot, the target's name, 8 random characters (hex, or mkstemp's alphabet for
# files left by earlier versions), the suffix.
_TEMP_NAME = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.h9tmp")
_SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})



@dataclass(frozen=True, slots=True)
class Owner:
    """The mode and owner an existing file keeps when it is replaced."""

    mode: int
    uid: int
    gid: int

    @classmethod
    def of(cls, info: os.stat_result) -> Owner:
        """The mode bits and owner of a file as `stat` saw it."""
        return cls(stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid)


def replace_in_folder(dir_fd: int, name: str, data: bytes, keep: Owner | int) -> None:
    """Replace `name` in the folder `dir_fd` with `data`: readers see the old bytes or the new.

    `keep` is the mode for a new file, or the `Owner` of the file being replaced (its mode, and
    its owner where the daemon may set it). The bytes are flushed to disk before the rename. On
    any failure the temporary file is removed and the target is untouched.
    """
    sweep_folder(dir_fd)
    temp = f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o600, dir_fd=dir_fd)
    try:
        try:
            _write_all(fd, data)
            _set_owner(fd, keep)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dir_fd)
        raise


def replace_with_link(dir_fd: int, name: str, target: str) -> None:
    """Replace `name` in the folder `dir_fd` (a file or a link, never followed) with a symbolic
    link to `target`, in one rename: readers see the old entry or the new link."""
    temp = f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    os.symlink(target, temp, dir_fd=dir_fd)
    try:
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dir_fd)
        raise


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    """`replace_in_folder` for a plain path (not sandboxed: for the daemon's own files)."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        replace_in_folder(folder, path.name, data, mode)
    finally:
        os.close(folder)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _set_owner(fd: int, keep: Owner | int) -> None:
    if isinstance(keep, int):
        os.fchmod(fd, keep)
        return
    if (keep.uid, keep.gid) != (os.geteuid(), os.getegid()):
        # Only root (or a member of the group) may give a file away; otherwise the file
        # becomes the daemon's, as any editor's save-by-rename would make it.
        with contextlib.suppress(PermissionError):
            os.fchown(fd, keep.uid, keep.gid)
    os.fchmod(fd, keep.mode)  # after chown, which clears set-id bits


def sweep_folder(dir_fd: int) -> int:
    """Remove our temporary files older than a minute from the folder; how many were removed.

    One directory listing: cheap next to the fsync of the write it comes with. Errors are
    logged, never raised: clean-up must not fail a write.
    """
    try:
        return _remove_stale(dir_fd, time.time())
    except OSError as exc:
        _log.debug("temporary-file sweep skipped: %s", exc)
        return 0


def _remove_stale(dir_fd: int, now: float) -> int:
    removed = 0
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if not _TEMP_NAME.fullmatch(entry.name):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_SECONDS:
                    os.unlink(entry.name, dir_fd=dir_fd)
                    removed += 1
            except FileNotFoundError:
                continue  # another process's rename or clean-up got there first
    return removed


def sweep_tree(roots: Iterable[str], budget_seconds: float = 2.0) -> int:
    """Sweep every folder under `roots` (dependency and VCS folders skipped) within a budget.

    Meant for the daemon's start, in a background thread: a daemon killed mid-write left its
    temporary file, and the next write to that folder might be a long time coming. Folders are
    opened relative to their parent's descriptor without following links, so a folder swapped
    for a link meanwhile cannot lead the sweep outside the workspace.
    """
    deadline = time.monotonic() + budget_seconds
    removed = 0
    for root in roots:
        try:
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            removed += _sweep_below(fd, deadline, _MAX_DEPTH)
        finally:
            os.close(fd)
    if removed:
        _log.info("removed %d stale temporary file(s) left by an interrupted write", removed)
    return removed


_MAX_DEPTH = 64


def _sweep_below(fd: int, deadline: float, depth: int) -> int:
    removed = sweep_folder(fd)
    if depth == 0:
        return removed
    for name in _subfolders(fd):
        if time.monotonic() > deadline:
            break
        try:
            child = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
        except OSError:
            continue  # gone, or no longer a folder
        try:
            removed += _sweep_below(child, deadline, depth - 1)
        finally:
            os.close(child)
    return removed


_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _subfolders(fd: int) -> list[str]:
    try:
        with os.scandir(fd) as entries:
            return [
                entry.name
                for entry in entries
                if entry.name not in _SKIPPED_FOLDERS and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []
