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
import stat
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness9.schema import ToolError
from harness9.workspace.beneath import open_folder, real_path

_MAX_LINKS = 40  # as the kernel's limit for one lookup (ELOOP)
_MAX_RETRIES = 8  # walks restarted because a component changed under us
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Location:
    """Where a workspace path lives: its folder's open descriptor and its name in that folder.

    `name` is `"."` for the workspace root itself. `path` is the real path, for messages and
    as the key under which writes to one file are serialized; `relative` is that path below the
    root. `folder_missing` is True when a folder on the way is missing (then `name` holds the
    rest of the path and must not be opened). The descriptor is valid only inside the
    `resolve_beneath` block that produced it.
    """

    dir_fd: int
    name: str
    path: str
    folder_missing: bool = False
    relative: str = ""  # `path` below the root, `/`-separated ("" for the root)


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
        root_fd = os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except FileNotFoundError:
        raise ToolError(
            f"Error: the workspace root {root} no longer exists (it was deleted or moved); "
            "nothing was read or written"
        ) from None
    with _Walk(root, root_fd, path, follow_links) as walk:
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
    for _ in range(_MAX_RETRIES):
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
    raise _keeps_changing(path)


def _keeps_changing(shown: str) -> ToolError:
    return ToolError(
        f"Error: {shown} keeps changing while it is being opened (a folder or link on the way "
        "is being replaced); nothing was read or written"
    )


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
        relative = _below(base, lexical)
        if relative is not None:
            return relative
    raise _outside(path, root, lexical, "")


def _below(root: str, candidate: str) -> list[str] | None:
    """The components of `candidate` under `root`, or None when it is not `root` or below it;
    `root + separator` keeps `/proj-evil` out of `/proj`."""
    if candidate == root:
        return []
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not candidate.startswith(prefix):
        return None
    return [part for part in candidate[len(prefix):].split(os.sep) if part]


def _collapsed(parts: list[str]) -> deque[str]:
    """`parts` with each `name/..` pair taken out, as the text reads (what `realpath` does
    below a folder that does not exist); `..` that climb above the first part stay."""
    kept: deque[str] = deque()
    for part in parts:
        if part == ".." and kept and kept[-1] != "..":
            kept.pop()
        elif part not in ("", "."):
            kept.append(part)
    return kept


def _outside(path: str, root: str, where: str, how: str) -> ToolError:
    return ToolError(
        f"Error: path {path!r} is outside the workspace {root} (resolves to {where}{how}); "
        "only files inside the workspace can be used"
    )


class _Swapped(Exception):
    """A component changed between looking at it and opening it: walk again."""


class _Walk:
    """One resolution: a stack of open folder descriptors from the root down."""

    def __init__(self, root: str, root_fd: int, shown: str, follow_links: bool = True) -> None:
        self.root = root
        self.shown = shown
        self.follow_links = follow_links
        self.fds = [root_fd]
        self.names: list[str] = []

    def __enter__(self) -> _Walk:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()

    def at_once(self, parts: list[str]) -> Location | None:
        """The location when the kernel opens the folder in one call (`beneath`) and the last
        component needs no following; None when the walk must decide."""
        if not parts:
            return None
        *folders, name = parts
        if folders:
            opened = open_folder(self.fds[0], os.sep.join(folders), self.follow_links)
            if opened is None:
                return None
            fd, followed = opened
            self.fds.append(fd)
            real = real_path(fd) if followed else None
            names = _below(self.root, real) if real is not None else folders
            if names is None:  # not where the root's own path says (a moved root): walk
                self._reset()
                return None
            self.names = names
        if self._look(name) == "link":
            self._reset()
            return None
        return self._at(name)

    def resolve(self, parts: list[str], *, make_folders: bool) -> Location:
        """Walk `parts` from the root, again from the start when something changed mid-way."""
        for _ in range(_MAX_RETRIES):
            self._reset()
            try:
                return self._walk(deque(parts), make_folders)
            except _Swapped:
                continue
        raise _keeps_changing(self.shown)

    def _reset(self) -> None:
        while len(self.fds) > 1:
            os.close(self.fds.pop())
        self.names.clear()

    def _walk(self, pending: deque[str], make_folders: bool) -> Location:
        links = 0
        while pending:
            name = pending.popleft()
            if name in ("", "."):
                continue
            if name == "..":  # only from a link's target: the model's own `..` was applied
                self._up(pending)
                continue
            # A folder on the way is opened straight away (O_NOFOLLOW): one call in the usual
            # case; the last component is looked at, since the caller opens it itself.
            step = self._enter(name, make_folders) if pending else self._look(name)
            if step == "link" and not self.follow_links:
                raise self._link_in_the_way(name)
            if step == "link":
                links += 1
                if links > _MAX_LINKS:
                    raise ToolError(f"Error: {self.shown}: too many levels of symbolic links")
                self._follow(name, pending)
            elif step == "last":
                return self._at(name)
            elif step == "missing" and ".." in pending:  # a link's target passing through it
                pending = _collapsed([name, *pending])
            elif step == "missing":  # the rest does not exist: nothing more can redirect it
                rest = os.sep.join([name, *pending])
                return self._at(rest, folder_missing=True)
        return self._at(".")

    def _look(self, name: str) -> str:
        """`link` when the last component is a symbolic link to follow, else `last`."""
        if not self.follow_links:
            return "last"
        info = self._lstat(name)
        return "link" if info is not None and stat.S_ISLNK(info.st_mode) else "last"

    def _lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=self.fds[-1], follow_symlinks=False)
        except FileNotFoundError:
            return None

    def _follow(self, name: str, pending: deque[str]) -> None:
        """Replace `name` by its link's target, refusing one that leaves the workspace."""
        try:
            target = os.readlink(name, dir_fd=self.fds[-1])
        except OSError as exc:
            if exc.errno in (errno.EINVAL, errno.ENOENT):
                raise _Swapped from None  # no longer a link
            raise
        if os.path.isabs(target):
            # A target may spell the workspace through a link of its own (a linked /tmp): its
            # real form decides; the walk from the root then checks every component again.
            parts = _below(self.root, os.path.normpath(target))
            if parts is None:
                parts = _below(self.root, os.path.realpath(target))
            if parts is None:
                raise self._escape(target, pending)
            self._reset()
            pending.extendleft(reversed(parts))
            return
        pending.extendleft(reversed(target.split(os.sep)))

    def _up(self, pending: deque[str]) -> None:
        if not self.names:
            raise self._escape("..", pending)
        os.close(self.fds.pop())
        self.names.pop()

    def _enter(self, name: str, make_folders: bool) -> str:
        """Open the folder `name` and step into it (`entered`), or say why not: `link`, or
        `missing` (then created and entered with `make_folders`)."""
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=self.fds[-1])
        except FileNotFoundError:
            if not make_folders:
                return "missing"
            self._make_folder(name)
            return self._enter_made(name)
        except OSError as exc:
            if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                raise
            info = self._lstat(name)
            if info is None:
                raise _Swapped from None  # removed after the open failed
            if stat.S_ISLNK(info.st_mode):
                return "link"
            raise self._file_in_the_way() from None
        self.fds.append(fd)
        self.names.append(name)
        return "entered"

    def _enter_made(self, name: str) -> str:
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=self.fds[-1])
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                raise _Swapped from None  # replaced right after it was made: walk again
            raise
        self.fds.append(fd)
        self.names.append(name)
        return "entered"

    def _make_folder(self, name: str) -> None:
        try:
            os.mkdir(name, 0o755, dir_fd=self.fds[-1])
        except FileExistsError:
            pass  # made by someone else meanwhile; opening it checks what it is
        except FileNotFoundError:
            raise _Swapped from None  # our folder was removed under us
        except OSError as exc:
            raise ToolError(
                f"Error: cannot create the folders for {self.shown}: {exc.strerror}"
            ) from None

    def _at(self, name: str, folder_missing: bool = False) -> Location:
        below = [] if name == "." else [name]
        return Location(self.fds[-1], name, self._path("/".join(below)), folder_missing,
                        "/".join([*self.names, *below]))

    def _path(self, name: str) -> str:
        return os.path.join(self.root, *self.names, *([name] if name else []))

    def _file_in_the_way(self) -> ToolError:
        return ToolError(
            f"Error: cannot use {self.shown}: a part of the path is a file, not a folder"
        )

    def _link_in_the_way(self, name: str) -> ToolError:
        return ToolError(
            f"Error: cannot use {self.shown}: {self._path(name)} is a symbolic link, not a folder"
        )

    def _escape(self, target: str, pending: deque[str]) -> ToolError:
        """The refusal of a link leading out; it names where the link leads (no lookups: the
        link may be gone by now)."""
        where = os.path.normpath(os.path.join(self._path(""), target, *pending))
        return _outside(self.shown, self.root, where, " through a symbolic link")
