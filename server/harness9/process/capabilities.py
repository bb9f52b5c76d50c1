"""Dropping every capability before a sandboxed command starts: a daemon running as root must
give commands nothing that could lift the sandbox (mount, ptrace, raw sockets, TIOCSTI)."""

from __future__ import annotations

import ctypes
import errno
import os

_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_VERSION_3 = 0x20080522


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_all() -> None:
    """Empty the bounding, ambient, inheritable, permitted and effective sets of the calling
    thread, so that what it executes (root's programs included) starts with none. Raises
    OSError when a set cannot be emptied."""
    libc = ctypes.CDLL(None, use_errno=True)
    if os.geteuid() == 0:  # only root can shrink the bounding set, and only root needs it
        for cap in range(_last_cap() + 1):
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                number = ctypes.get_errno()
                if number == errno.EINVAL:  # past the kernel's last capability
                    break
                raise OSError(number, f"cannot drop capability {cap}")
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL before 4.3
    header = _Header(_VERSION_3, 0)
    data = (_Data * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as handle:
            return int(handle.read())
    except (OSError, ValueError):
        return 63
