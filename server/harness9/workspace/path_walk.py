"""Walking a workspace path from the root's descriptor, one component at a time (see
`safe_path`): each folder opened with `O_NOFOLLOW | O_DIRECTORY` relative to the one before it,
a symbolic link read and followed by hand only while it stays inside the workspace, and the
walk started again when a component changes under it."""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from dataclasses import dataclass

from harness9.schema import ToolError
from harness9.workspace.beneath import open_folder, real_path

MAX_LINKS = 40  # as the kernel's limit for one lookup (ELOOP)
MAX_RETRIES = 8  # walks restarted because a component changed under us
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


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


def keeps_changing(shown: str) -> ToolError:
    """The refusal of a path whose way keeps changing while it is walked."""
    return ToolError(
        f"Error: {shown} keeps changing while it is being opened (a folder or link on the way "
        "is being replaced); nothing was read or written"
    )


def below(root: str, candidate: str) -> list[str] | None:
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


def outside(path: str, root: str, where: str, how: str) -> ToolError:
    """The refusal of a path that resolves outside the workspace."""
    return ToolError(
        f"Error: path {path!r} is outside the workspace {root} (resolves to {where}{how}); "
        "only files inside the workspace can be used"
    )


class _Swapped(Exception):
    """A component changed between looking at it and opening it: walk again."""


class Walk:
    """One resolution: a stack of open folder descriptors from the root down."""

    def __init__(self, root: str, root_fd: int, shown: str, follow_links: bool = True) -> None:
        self.root = root
        self.shown = shown
        self.follow_links = follow_links
        self.fds = [root_fd]
        self.names: list[str] = []

    def __enter__(self) -> Walk:
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
            names = below(self.root, real) if real is not None else folders
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
        for _ in range(MAX_RETRIES):
            self._reset()
            try:
                return self._walk(deque(parts), make_folders)
            except _Swapped:
                continue
        raise keeps_changing(self.shown)

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
                if links > MAX_LINKS:
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
            parts = below(self.root, os.path.normpath(target))
            if parts is None:
                parts = below(self.root, os.path.realpath(target))
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
            fd = os.open(name, DIR_FLAGS, dir_fd=self.fds[-1])
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
            fd = os.open(name, DIR_FLAGS, dir_fd=self.fds[-1])
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
        return outside(self.shown, self.root, where, " through a symbolic link")
