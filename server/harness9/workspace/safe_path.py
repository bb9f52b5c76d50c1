"""The workspace sandbox shared by every file tool (the seed's `safePath`), race-free.

A path is resolved component by component from a directory descriptor of the workspace root:
each folder is opened with `O_NOFOLLOW | O_DIRECTORY` relative to the one before it, and a
symbolic link is read and followed by hand, only while it stays inside the workspace. The tools
then open, create and rename the last component relative to the descriptor of its folder, so
the check and the use are one operation: a folder swapped for a link to outside between them
cannot redirect a read or a write (the `O_NOFOLLOW` open fails, and the walk starts again).
Where the kernel can do it (`beneath`: Linux's `openat2`), the folder is opened in one call
that may not leave the workspace, and the walk is only the way through what it refuses.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from harness9.schema import ToolError
from harness9.workspace.path_walk import (
    DIR_FLAGS,
    MAX_RETRIES,
    Location,
    Walk,
    below,
    keeps_changing,
    outside,
)


def safe_path(workdir: str | os.PathLike[str], path: str) -> Path:
    """The real path of `path` (workspace-relative, or absolute inside the workspace).

    Refuses empty paths, NUL bytes, and anything whose lexical form, or whose form after
    following symbolic links (also for files that do not exist yet, through a linked parent
    folder or a dangling link), lies outside `workdir`. The prefix test uses
    `root + separator`, so `/proj-evil` is not in `/proj`. `..` is applied to the text first,
    as the seed's Join does. Tools that open the file use `resolve_beneath` instead.
    """
    with resolve_beneath(workdir, path) as where:
        return Path(where.path)


@contextlib.contextmanager
def resolve_beneath(
    workdir: str | os.PathLike[str],
    path: str,
    *,
    make_folders: bool = False,
    follow_links: bool = True,
) -> Iterator[Location]:
    """Resolve `path` inside `workdir` and hold its folder open for the block.

    With `make_folders`, missing folders on the way are created (mode 0755, as the umask
    allows). A missing workspace root, a link leaving the workspace, and a file where a folder
    should be are `ToolError`s for the model. Without `follow_links`, no link is followed at
    all: a link where a folder should be is a `ToolError`, and the last component is given
    as it is (the caller acts on the entry itself, a link included, never on its target).
    """
    _check_text(path)
    root = os.path.realpath(workdir)
    parts = _relative_parts(workdir, root, path)
    try:
        root_fd = os.open(root, DIR_FLAGS & ~os.O_NOFOLLOW)
    except FileNotFoundError:
        raise ToolError(
            f"Error: the workspace root {root} no longer exists (it was deleted or moved); "
            "nothing was read or written"
        ) from None
    with Walk(root, root_fd, path, follow_links) as walk:
        yield walk.at_once(parts) or walk.resolve(parts, make_folders=make_folders)


@contextlib.contextmanager
def open_beneath(
    workdir: str | os.PathLike[str], path: str, flags: int
) -> Iterator[tuple[int, Location]]:
    """Open the existing file `path` inside `workdir` with `flags` for the block.

    The last component is opened relative to its folder's descriptor and never followed: if it
    became a link after the walk looked at it, the walk runs again (and follows it only inside
    the workspace). Raises `FileNotFoundError` when it does not exist, and the `OSError` of the
    open otherwise; sandbox refusals are `ToolError`s.
    """
    for _ in range(MAX_RETRIES):
        with resolve_beneath(workdir, path) as where:
            if where.folder_missing:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
            try:
                fd = os.open(where.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=where.dir_fd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    continue
                raise
            try:
                yield fd, where
            finally:
                os.close(fd)
            return
    raise keeps_changing(path)


def _check_text(path: str) -> None:
    if not path or not path.strip():
        raise ToolError("Error: path is empty; give a file path relative to the workspace root")
    if "\0" in path:
        raise ToolError(f"Error: path {path!r} contains a NUL byte")


def _relative_parts(workdir: str | os.PathLike[str], root: str, path: str) -> list[str]:
    """The components of `path` below the root, after applying `..` to the text."""
    lexical = os.path.abspath(os.path.join(root, path))
    # An absolute path may spell the workspace as the client gave it (e.g. through a linked /tmp).
    for base in (root, os.path.abspath(workdir)):
        relative = below(base, lexical)
        if relative is not None:
            return relative
    raise outside(path, root, lexical, "")


