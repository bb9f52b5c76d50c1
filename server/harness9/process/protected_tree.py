"""What the sandbox protects inside one writable folder, and what a command created there.

Protected are the names of `protected_names` at any depth (nested repositories' `.git` too),
the folder git's `core.hooksPath` names, and what the sandbox's `protect` globs match. The walk
follows no link and does not enter a protected folder (its content is protected with it).

`existing()` gives what to keep read-only; a command cannot create a missing one either: the
caller takes a `snapshot()` before the command, and once no process of it is left,
`remove_created(created_since(snapshot))`.

Repeated calls are cheap: each folder's listing is kept with its identity and times, and only a
folder whose change time moved is listed again (one `lstat` per known folder). The change time
is used because a command can set a folder's modification time back but not its change time; a
folder that changed within `settle` seconds of being listed is listed again next time (a file
system's clock ticks coarsely, so a later change could carry the same time).
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

from harness9.process.hooks_path import hooks_path
from harness9.process.protected_names import name_reason


class Identity(NamedTuple):
    """What a protected path is: its file and kind, and for a link, the file it leads to."""

    device: int
    inode: int
    kind: int  # stat.S_IFMT of its mode
    target: tuple[int, int] | None  # a link's target (device, inode); None if none or dangling


@dataclass(frozen=True, slots=True)
class TreeSnapshot:
    """The protected paths of a tree at one moment, with what each was."""

    entries: Mapping[str, Identity]


@dataclass(frozen=True, slots=True)
class _Listing:
    key: tuple[int, int, int, int]  # device, inode, mtime_ns, ctime_ns of the folder
    settled: bool  # the folder had not changed for `settle` seconds when it was listed
    protected: tuple[str, ...]  # names of protected entries
    folders: tuple[str, ...]  # paths of the other subfolders (links excluded)


class ProtectedTree:
    """The protected paths under one writable folder `root` (resolved once), plus what the
    `protect` globs (relative to root, or absolute inside it; `..` is never followed) match;
    `fold_case` where the file system ignores letter case."""

    def __init__(
        self, root: str, protect: Sequence[str] = (), *, fold_case: bool = False,
        limit: int = 256, settle: float = 2.0,
    ) -> None:
        self.root = os.path.realpath(root)
        self.left_out = 0  # paths the last `existing()` left out past `limit`
        self.listed = 0  # folders the last call listed (the others were known unchanged)
        self._prefix = self.root.rstrip("/") + "/"
        self._globs = [parts for pattern in protect
                       if (parts := _glob_parts(self.root, pattern, fold_case)) is not None]
        self._fold_case = fold_case
        self._limit = limit
        self._settle_ns = int(settle * 1e9)
        self._listings: dict[str, _Listing] = {}
        self._lock = threading.Lock()  # concurrent commands may share the tree
        self._hooks_known: tuple[tuple[object, ...], str | None] | None = None

    def existing(self) -> list[str]:
        """The real paths to keep read-only, shallowest first, at most `limit` of them: each
        protected path (a link: where it leads, if that exists inside root), none inside
        another one listed."""
        paths = {real for path, identity in self._scan().items()
                 if (real := self._real(path, identity)) is not None}
        kept = sorted(_outermost(paths), key=lambda path: (path.count("/"), path))
        self.left_out = max(0, len(kept) - self._limit)
        return kept[:self._limit]

    def snapshot(self) -> TreeSnapshot:
        """Every protected path there is now (links unresolved), with what it is."""
        return TreeSnapshot(MappingProxyType(self._scan()))

    def created_since(self, before: TreeSnapshot) -> list[str]:
        """The protected paths that exist now and did not in `before`, or are another file
        than then (another inode or kind, or a link that leads elsewhere), none inside another
        one."""
        now = self._scan()
        return _outermost(path for path, identity in now.items()
                          if before.entries.get(path) != identity)

    def remove_created(self, paths: Iterable[str]) -> list[str]:
        """Removes each of `paths` (a folder with its content) that lies strictly inside root
        with no link on the way; a link is removed, never followed. Returns what it removed."""
        removed = []
        for path in sorted(set(paths)):
            if self._removable(path) and _remove(path):
                removed.append(path)
        return removed

    def _scan(self) -> dict[str, Identity]:
        with self._lock:
            return self._walk()

    def _walk(self) -> dict[str, Identity]:
        found: dict[str, Identity] = {}
        listings: dict[str, _Listing] = {}
        self.listed = 0
        pending = [self.root]
        while pending:
            folder = pending.pop()
            listing = self._listing(folder)
            if listing is None:
                continue
            listings[folder] = listing
            for name in listing.protected:
                path = os.path.join(folder, name)
                if (identity := _identity(path)) is not None:
                    found[path] = identity
            pending += listing.folders
        self._listings = listings  # forgets the folders that are gone
        hooks = self._hooks()
        if hooks is not None and (identity := _identity(hooks)) is not None:
            found[hooks] = identity
        return found

    def _listing(self, folder: str) -> _Listing | None:
        try:
            info = os.lstat(folder)
        except OSError:
            return None
        if not stat.S_ISDIR(info.st_mode):
            return None
        key = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        known = self._listings.get(folder)
        if known is not None and known.settled and known.key == key:
            return known
        listed_at = time.time_ns()
        protected, folders = self._list(folder)
        self.listed += 1
        settled = info.st_ctime_ns < listed_at - self._settle_ns
        return _Listing(key, settled, protected, folders)

    def _list(self, folder: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        protected: list[str] = []
        folders: list[str] = []
        relative = folder[len(self._prefix):] if folder != self.root else ""
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if self._protects(entry.name, f"{relative}/{entry.name}".lstrip("/")):
                        protected.append(entry.name)
                    elif entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
        except OSError:  # unreadable (or gone): nothing seen in it
            pass
        return tuple(protected), tuple(folders)

    def _protects(self, name: str, relative: str) -> bool:
        if name_reason(name, self._fold_case) is not None:
            return True
        if not self._globs:
            return False
        parts = (relative.casefold() if self._fold_case else relative).split("/")
        return any(_glob_matches(pattern, parts) for pattern in self._globs)

    def _hooks(self) -> str | None:
        """The hooks folder (its parents resolved, not itself) when it lies inside root."""
        key = _config_stamp(self.root)
        if self._hooks_known is None or self._hooks_known[0] != key:
            self._hooks_known = (key, self._hooks_now())
        return self._hooks_known[1]

    def _hooks_now(self) -> str | None:
        named = hooks_path(self.root)
        if named is None:
            return None
        path = os.path.join(os.path.realpath(os.path.dirname(named)), os.path.basename(named))
        return path if self._inside(path) else None

    def _real(self, path: str, identity: Identity) -> str | None:
        if identity.kind != stat.S_IFLNK:
            return path
        if identity.target is None:
            return None
        real = os.path.realpath(path)
        return real if self._inside(real) else None

    def _inside(self, path: str) -> bool:
        return path.startswith(self._prefix)

    def _removable(self, path: str) -> bool:
        parent = os.path.dirname(path)
        return (os.path.isabs(path) and os.path.normpath(path) == path and self._inside(path)
                and os.path.realpath(parent) == parent)


_HOOKS_TTL_NS = 5_000_000_000  # git's answer is asked again at least this often


def _config_stamp(root: str) -> tuple[object, ...]:
    """What git's answer for `root` depends on, cheaply: the state of the config files git
    reads (the workspace's own cannot be changed from inside the sandbox; the others lie
    outside it), and the time, so a setting made elsewhere is seen within seconds."""
    home = os.path.expanduser("~")
    files = (os.path.join(root, ".git"), os.path.join(root, ".git", "config"),
             os.path.join(home, ".gitconfig"),
             os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"),
                          "git", "config"),
             "/etc/gitconfig")
    stamp: list[object] = [time.monotonic_ns() // _HOOKS_TTL_NS]
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            stamp.append(None)
        else:
            stamp.append((info.st_ino, info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def _identity(path: str) -> Identity | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    kind = stat.S_IFMT(info.st_mode)
    target = None
    if kind == stat.S_IFLNK:
        try:
            leads = os.stat(path)
            target = (leads.st_dev, leads.st_ino)
        except OSError:
            pass
    return Identity(info.st_dev, info.st_ino, kind, target)


def _outermost(paths: Iterable[str]) -> list[str]:
    """`paths` sorted, without those inside another of them."""
    unique = set(paths)
    return sorted(path for path in unique if not any(
        parent in unique for parent in _parents(path)))


def _parents(path: str) -> Iterator[str]:
    parent = os.path.dirname(path)
    while parent != path:
        yield parent
        path, parent = parent, os.path.dirname(parent)


def _glob_parts(root: str, pattern: str, fold_case: bool) -> tuple[str, ...] | None:
    """A `protect` glob as path components relative to root, or None if it names nothing
    inside root."""
    if os.path.isabs(pattern):
        pattern = os.path.relpath(pattern, root)
    parts = tuple(part for part in pattern.split("/") if part not in ("", "."))
    if not parts or ".." in parts:
        return None
    return tuple(part.casefold() for part in parts) if fold_case else parts


def _glob_matches(pattern: Sequence[str], parts: Sequence[str]) -> bool:
    """Whether path components `parts` match the glob's (`**` spans any number of them)."""
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_glob_matches(rest, parts[skip:]) for skip in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], head) and _glob_matches(rest, parts[1:])


def _remove(path: str) -> bool:
    """Removes `path` (never following a link), making folders writable where it must."""
    for attempt in range(2):
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                shutil.rmtree(path)
            else:
                os.unlink(path)
            return True
        except PermissionError:
            if attempt == 0 and _grant_writes(path):
                continue
            return False
        except OSError:  # gone already, or cannot be removed
            return False
    return False


def _grant_writes(path: str) -> bool:
    """Lets its owner change `path`'s folder and list and change every folder inside `path`
    (a command may have taken these rights away to keep what it made); False if it cannot."""
    try:
        folders = [os.path.dirname(path)]
        if stat.S_ISDIR(os.lstat(path).st_mode):
            folders.append(path)
        for folder in folders:
            os.chmod(folder, os.lstat(folder).st_mode | stat.S_IRWXU)
        for parent, names, _files in os.walk(path):
            for name in names:
                inner = os.path.join(parent, name)
                if not os.path.islink(inner):
                    os.chmod(inner, os.lstat(inner).st_mode | stat.S_IRWXU)
    except OSError:
        return False
    return True
