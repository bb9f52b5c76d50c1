"""A file call's path as it was decided on, and writing exactly that file.

Whoever decides whether a call may write (the approval step) resolves its path once
(`decide_path`: links followed beneath the workspace), decides on where it leads, and hands
that resolution to the write (`deciding`). The write opens the same place again without
following any link (`beneath_as_decided`): a folder on the way that became a link, a folder
that is not the one the call was decided on, or a link put in place of the file itself fails
the call, so a link swapped in while the user was asked (or while another call ran) can never
redirect the write. The file is then replaced by a rename in that folder: nothing is ever
written through a link in the last component. A write nobody decided on (a tool used without
the approval step) is resolved when it is written, with the same guarantees from there on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from harness9.schema import ToolError
from harness9.workspace.path_walk import Location
from harness9.workspace.safe_path import open_beneath, resolve_beneath


@dataclass(frozen=True, slots=True)
class Decided:
    """Where a path led when its call was decided: the workspace root's real path, the path as
    the call gave it, where it leads (workspace-relative, `/`-separated, "" for the root), and
    the identity (device, inode) of the folder holding it (None: that folder did not exist
    yet, and is made, without following links, when the file is written), and the workspace
    as the caller spelled it."""

    root: str
    given: str
    relative: str
    folder: tuple[int, int] | None
    workdir: str = ""

    @property
    def real(self) -> str:
        """The real path it was decided on."""
        return os.path.join(self.root, *self.relative.split("/")) if self.relative else self.root


# The paths the current call was decided on, set by the approval step while the call runs.
DECIDED: ContextVar[tuple[Decided, ...]] = ContextVar("harness9_decided", default=())


def decide_path(workdir: str | os.PathLike[str], path: str) -> Decided:
    """Resolve `path` once, beneath `workdir`; `ToolError` as `resolve_beneath`."""
    with resolve_beneath(workdir, path) as where:
        root = where.path[: len(where.path) - len(where.relative)].rstrip(os.sep) or os.sep
        folder = None if where.folder_missing else _identity(os.fstat(where.dir_fd))
        return Decided(root, path, where.relative, folder, os.fspath(workdir))


@contextlib.contextmanager
def deciding(decided: Iterable[Decided]) -> Iterator[None]:
    """Let the writes of the block go where `decided` says (each for its own given path)."""
    token = DECIDED.set(tuple(decided))
    try:
        yield
    finally:
        DECIDED.reset(token)


def decided_for(workdir: str | os.PathLike[str], path: str) -> Decided | None:
    """What the current call decided on for `path` in `workdir` (None: nothing)."""
    pinned = DECIDED.get()
    if not pinned:
        return None
    spelled = os.fspath(workdir)
    for decided in pinned:  # the workspace as spelled when decided, else its real path
        if decided.given == path and decided.workdir == spelled:
            return decided
    root = os.path.realpath(workdir)
    return next((d for d in pinned if d.given == path and d.root == root), None)


def settled(workdir: str | os.PathLike[str], path: str) -> Decided:
    """What the current call decided on for `path` in `workdir`; resolved now when nothing
    was (`ToolError` as `resolve_beneath`)."""
    return decided_for(workdir, path) or decide_path(workdir, path)


@contextlib.contextmanager
def open_as_decided(workdir: str | os.PathLike[str], path: str, flags: int) -> Iterator[int]:
    """`open_beneath`, except that a path the current call was decided on is opened where it
    was decided, never through a link (a `ToolError` as `beneath_as_decided`): what the call
    reads before it writes is the file it writes."""
    decided = decided_for(workdir, path)
    if decided is None:
        with open_beneath(workdir, path, flags) as (fd, _):
            yield fd
        return
    with beneath_as_decided(workdir, decided, path, make_folders=False) as where:
        if where.folder_missing:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        try:
            fd = os.open(where.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=where.dir_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a link swapped in since the check just made
                raise _link_in_place(path) from None
            raise
        try:
            yield fd
        finally:
            os.close(fd)


@contextlib.contextmanager
def beneath_as_decided(
    workdir: str | os.PathLike[str], decided: Decided, shown: str, *, make_folders: bool = True
) -> Iterator[Location]:
    """The folder and name of the file `decided` names, opened again for the block without
    following a link anywhere (missing folders made with `make_folders`). A `ToolError` when
    it is no longer what was decided on: a link on the way or in the file's place, or another
    folder than the one decided on."""
    with resolve_beneath(workdir, decided.relative or ".", make_folders=make_folders,
                         follow_links=False) as where:
        if decided.folder is not None and not where.folder_missing and \
                _identity(os.fstat(where.dir_fd)) != decided.folder:
            raise ToolError(
                f"Error: the folder of {shown} was replaced after this call was decided (by a "
                "command or another program); nothing was written. Read the file again and "
                "retry if it should still be written"
            )
        if not where.folder_missing and _is_link(where):
            raise _link_in_place(shown)
        yield where


def _link_in_place(shown: str) -> ToolError:
    return ToolError(
        f"Error: {shown} was replaced by a symbolic link after this call was decided; nothing "
        "was written (file tools never write through a link put in a file's place). Read it "
        "again and retry if it should still be written"
    )


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _is_link(where: Location) -> bool:
    try:
        info = os.stat(where.name, dir_fd=where.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return stat.S_ISLNK(info.st_mode)
