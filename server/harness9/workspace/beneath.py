"""A folder below the workspace root opened in one call by the kernel (Linux `openat2`).

`openat2` with `RESOLVE_BENEATH` resolves a whole path below a directory descriptor and fails
if any step (a `..`, an absolute link, a link out) would leave it; `RESOLVE_NO_SYMLINKS` refuses
every link on the way. The check and the open are one system call, so nothing can be swapped
between them. `safe_path` asks this first and walks component by component only when the
kernel says no: a folder missing (to report or make), a link it refuses (the walk follows an
absolute link back into the workspace, or refuses it with its own message), a kernel without
`openat2`, or anything unusual.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
from typing import Any

_OPENAT2 = 437  # the same number on every architecture that has it (Linux 5.6)
_ARCHES = frozenset({"x86_64", "aarch64", "arm64"})
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]


_FOLLOWING = _OpenHow(_FLAGS, 0, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS)
_NOT_FOLLOWING = _OpenHow(_FLAGS, 0, _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS)
_HOW_SIZE = ctypes.c_size_t(ctypes.sizeof(_OpenHow))


def _syscall() -> Any:
    """libc's `syscall`, where `openat2` may exist (Linux on a known architecture)."""
    if not sys.platform.startswith("linux") or platform.machine() not in _ARCHES:
        return None
    call = ctypes.CDLL(None, use_errno=True).syscall
    call.restype = ctypes.c_long
    return call


_call = _syscall()


def open_folder(root_fd: int, relative: str, follow_links: bool) -> tuple[int, bool] | None:
    """A descriptor of the folder `relative` (no `..` in it) below `root_fd`, opened without
    leaving it, and whether a link was followed on the way (only with `follow_links`); None
    when the kernel cannot or will not (the caller then walks the path itself)."""
    fd = _open(root_fd, relative, _NOT_FOLLOWING)  # the usual case: no link, its path is known
    if fd is not None:
        return fd, False
    if not follow_links or ctypes.get_errno() != errno.ELOOP:
        return None
    fd = _open(root_fd, relative, _FOLLOWING)
    return None if fd is None else (fd, True)


def _open(root_fd: int, relative: str, how: _OpenHow) -> int | None:
    global _call
    if _call is None:
        return None
    fd = int(_call(_OPENAT2, ctypes.c_int(root_fd), os.fsencode(relative), ctypes.byref(how),
                   _HOW_SIZE))
    if fd >= 0:
        return fd
    if ctypes.get_errno() in (errno.ENOSYS, errno.EPERM):  # too old a kernel, or a filter
        _call = None
    return None


def real_path(fd: int) -> str | None:
    """Where the folder open as `fd` is now, as the kernel names it (None when it cannot)."""
    try:
        path = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return path if path.startswith(os.sep) else None
