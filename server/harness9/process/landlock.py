"""Landlock through its three system calls (Linux 5.13+): a ruleset that denies writes beneath
everything but some folders.

Reads and execution stay free (they are not in the handled rights). Without network, TCP bind
and connect are denied (ABI 4+); abstract unix sockets and signals that leave the sandbox too
(ABI 6+). Landlock and `no_new_privs` confine the calling *thread* and what it starts: a
`Spawner` is a daemon thread confined once, from which commands are started (they inherit its
domain) the cheap way, as any other start, while the daemon's other threads stay free. (A hook
run in the child before bash would force Python to copy the whole daemon with fork.)
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol, TypeVar

_T = TypeVar("_T")
_SPAWNERS_KEPT = 8  # confined threads kept for reuse (one per distinct set of rules)

# The same numbers on every architecture (the generic system call table).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_WRITE_FILE = 1 << 1
_REMOVE_DIR, _REMOVE_FILE = 1 << 4, 1 << 5
_MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

# Files a command writes to wherever it runs: their write right only (files take no others).
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx")
_DEVICE_FOLDERS = ("/dev/shm", "/dev/pts")


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


def restrictor(writable: list[str], network: bool) -> Restriction:
    """A function that confines the thread that calls it (and what it starts): writes only
    beneath `writable` (and to the usual devices), no TCP unless `network`. Raises OSError when
    the ruleset cannot be made."""
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available")
    fd = _ruleset(abi, network)
    try:
        folder_rights = _folder_rights(abi)
        for folder in writable:
            _allow(fd, folder, folder_rights, missing_ok=True)
        file_rights = _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0)
        for device in _DEVICES:
            _allow(fd, device, file_rights, missing_ok=True)
        for folder in _DEVICE_FOLDERS:
            _allow(fd, folder, folder_rights, missing_ok=True)
    except BaseException:
        os.close(fd)
        raise
    os.set_inheritable(fd, False)
    return _Restrict(fd)


class Spawner:
    """A daemon thread confined by one ruleset; what it starts is confined the same way."""

    def __init__(self, writable: list[str], network: bool) -> None:
        restrict = restrictor(writable, network)  # raises OSError here, not in the thread

        def confine() -> None:
            try:
                restrict()  # a failure breaks the pool: nothing ever runs unconfined in it
            finally:
                restrict.close()

        self._pool = ThreadPoolExecutor(1, thread_name_prefix="landlock", initializer=confine)

    def submit(self, start: Callable[..., _T], *args: object) -> Future[_T]:
        """Run `start(*args)` in the confined thread."""
        return self._pool.submit(start, *args)

    def close(self) -> None:
        """Let the thread end once its work is done."""
        self._pool.shutdown(wait=False)


_spawners: OrderedDict[tuple[tuple[str, ...], bool], Spawner] = OrderedDict()
_spawners_lock = threading.Lock()


def spawner(writable: list[str], network: bool) -> Spawner:
    """The confined thread for these rules (made once, kept among the last few used); raises
    OSError when the ruleset cannot be made."""
    key = (tuple(writable), network)
    with _spawners_lock:
        found = _spawners.pop(key, None)
        if found is None:
            found = Spawner(writable, network)
        _spawners[key] = found
        while len(_spawners) > _SPAWNERS_KEPT:
            _spawners.popitem(last=False)[1].close()
        return found


def _folder_rights(abi: int) -> int:
    rights = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


def _ruleset(abi: int, network: bool) -> int:
    attr = _RulesetAttr(fs=_folder_rights(abi))
    size = 8
    if abi >= 4 and not network:
        attr.net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6 and not network:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    elif abi >= 6:
        attr.scoped = _SCOPE_SIGNAL
        size = 24
    fd = int(_syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                      ctypes.c_uint32(0)))
    if fd < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"landlock_create_ruleset: {os.strerror(errno)}")
    return fd


def _allow(fd: int, path: str, rights: int, *, missing_ok: bool = False) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        if missing_ok:
            return
        raise
    try:
        if not os.path.isdir(path):
            rights &= _WRITE_FILE | _TRUNCATE  # the only rights a file rule may hold
        rule = _PathBeneath(allowed=rights, parent_fd=target)
        done = int(_syscall(_ADD_RULE, ctypes.c_int(fd), ctypes.c_int(_RULE_PATH_BENEATH),
                            ctypes.byref(rule), ctypes.c_uint32(0)))
        if done < 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"landlock_add_rule {path}: {os.strerror(errno)}")
    finally:
        os.close(target)


class Restriction(Protocol):
    """Confines the thread that calls it; `close` releases what the daemon holds for it."""

    def __call__(self) -> None: ...

    def close(self) -> None: ...


class _Restrict:
    """The confined thread's part (calling it): no new privileges, then the ruleset. Holds the
    ruleset's descriptor until `close`."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._fd_arg = ctypes.c_int(fd)
        self._zero = ctypes.c_uint32(0)

    def __call__(self) -> None:
        if _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if _syscall(_RESTRICT_SELF, self._fd_arg, self._zero) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")

    def close(self) -> None:
        """Release the ruleset's descriptor (once it is applied)."""
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)
