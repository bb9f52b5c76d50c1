"""Landlock through its three system calls (Linux 5.13+): a ruleset that denies writes beneath
everything but some folders, and reads of what is hidden.

- Writes: only beneath the writable folders (and to the usual devices).
- Reads: everything but the hidden paths and other terminals (`/dev/pts`): since Landlock only
  allows, the folders on the way to a hidden path are opened up entry by entry, leaving out the
  hidden one (a listing still shows its name; its files cannot be read).
- Without network, TCP bind and connect are denied (ABI 4+); abstract unix sockets and signals
  that leave the sandbox always (ABI 6+). The seccomp filter (`seccomp.py`) covers the rest.

A ruleset confines the process that applies it and what that process starts, never the daemon:
the launcher (`launch_server.py`) applies it in a freshly forked child just before bash.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

# The same numbers on every architecture (the generic system call table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_READ_FILE, _WRITE_FILE = 1 << 2, 1 << 1
_REMOVE_DIR, _REMOVE_FILE = 1 << 4, 1 << 5
_MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
_FILE_RIGHTS = _READ_FILE | _WRITE_FILE | _TRUNCATE  # the only rights a rule on a file holds

# Files a command writes to wherever it runs: their write right only (files take no others).
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx")
_DEVICE_FOLDERS = ("/dev/shm",)
# Never readable: the terminals of other programs (the user's among them).
UNREADABLE = ("/dev/pts",)
_MAX_READ_RULES = 4096  # entries opened up around hidden paths; past it the ruleset fails


@dataclass(frozen=True, slots=True)
class Rules:
    """What a command may do: write beneath `writable`, read all but `hidden`, and network."""

    writable: tuple[str, ...]
    network: bool
    hidden: tuple[str, ...] = ()


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_prctl = _libc.prctl


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    try:
        version = int(_syscall(_CREATE_RULESET, None, ctypes.c_size_t(0),
                               ctypes.c_uint32(_CREATE_RULESET_VERSION)))
    except (AttributeError, OSError):
        return 0
    return max(version, 0)


def ruleset(rules: Rules) -> int:
    """A ruleset descriptor (close-on-exec) for `rules`; raises OSError when it cannot be made.
    A writable folder that is missing, or no longer the folder it was resolved as (a link was
    swapped in), is left out: it is not written through."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available")
    fd = _ruleset(abi, rules.network)
    try:
        folder_rights = _folder_rights(abi)
        for folder in rules.writable:
            # Reads come from the rules around hidden paths; a folder inside one needs its own.
            inside = any(_is_within(folder, hidden) for hidden in rules.hidden)
            _allow_exact(fd, folder, folder_rights | (_READ_FILE if inside else 0))
        for device in _DEVICES:
            _allow(fd, device, _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0))
        for folder in _DEVICE_FOLDERS:
            _allow(fd, folder, folder_rights | _READ_FILE)
        for path, is_folder in readable_around([*UNREADABLE, *rules.hidden]):
            _allow(fd, path, _READ_FILE, is_folder=is_folder)
    except BaseException:
        os.close(fd)
        raise
    os.set_inheritable(fd, False)
    return fd


def readable_around(excluded: Iterable[str]) -> list[tuple[str, bool]]:
    """(path, is folder) of every entry to open up so that all is readable but `excluded`
    (real paths): `/` itself when nothing is excluded, else each entry of the folders on the
    way to an excluded path but the one leading there. Links are left out (what they point to
    is reached by its own path); so are excluded paths that do not exist."""
    targets = {os.path.normpath(path) for path in excluded if os.path.lexists(path)}
    on_the_way = {os.path.dirname(path) for path in targets}
    for path in list(on_the_way):
        while path != "/":
            path = os.path.dirname(path)
            on_the_way.add(path)
    if not targets:
        return [("/", True)]
    found: list[tuple[str, bool]] = []
    for folder in sorted(on_the_way):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            path = entry.path if folder != "/" else "/" + entry.name
            if path in targets or path in on_the_way or entry.is_symlink():
                continue
            found.append((path, entry.is_dir(follow_symlinks=False)))
            if len(found) > _MAX_READ_RULES:
                raise OSError(f"too many entries around the hidden paths (over {_MAX_READ_RULES})")
    return found


def folders_around(excluded: Iterable[str]) -> list[str]:
    """The folders whose entries `readable_around` lists: a ruleset made from them is out of
    date once one of them changes."""
    folders: set[str] = set()
    for path in excluded:
        if os.path.lexists(path):
            path = os.path.normpath(path)
            while path != "/":
                path = os.path.dirname(path)
                folders.add(path)
    return sorted(folders)


def _is_within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def restrict_self(fd: int) -> None:
    """Confine the calling thread (a child about to start a command) by the ruleset `fd`: no
    new privileges, then the ruleset. Raises OSError."""
    if _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if _syscall(_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"landlock_restrict_self: {os.strerror(number)}")


def _folder_rights(abi: int) -> int:
    rights = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


def _ruleset(abi: int, network: bool) -> int:
    attr = _RulesetAttr(fs=_folder_rights(abi) | _READ_FILE)
    size = 8
    if abi >= 4 and not network:
        attr.net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_SIGNAL | (0 if network else _SCOPE_ABSTRACT_UNIX_SOCKET)
        size = 24
    fd = int(_syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                      ctypes.c_uint32(0)))
    if fd < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"landlock_create_ruleset: {os.strerror(number)}")
    return fd


def _allow_exact(fd: int, folder: str, rights: int) -> None:
    """A rule for `folder` only if it is that very folder: reached without a link."""
    try:
        target = os.open(folder, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if os.readlink(f"/proc/self/fd/{target}") == os.path.normpath(folder):
            _add_rule(fd, target, rights, folder)
    finally:
        os.close(target)


def _allow(fd: int, path: str, rights: int, *, is_folder: bool | None = None) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return  # missing, or gone since it was listed
    try:
        mode = os.fstat(target).st_mode
        if stat.S_ISLNK(mode):
            return  # never a rule through a link
        if is_folder is None:
            is_folder = stat.S_ISDIR(mode)
        _add_rule(fd, target, rights if is_folder else rights & _FILE_RIGHTS, path)
    finally:
        os.close(target)


def _add_rule(fd: int, target: int, rights: int, path: str) -> None:
    rule = _PathBeneath(allowed=rights, parent_fd=target)
    done = int(_syscall(_ADD_RULE, ctypes.c_int(fd), ctypes.c_int(_RULE_PATH_BENEATH),
                        ctypes.byref(rule), ctypes.c_uint32(0)))
    if done < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"landlock_add_rule {path}: {os.strerror(number)}")
