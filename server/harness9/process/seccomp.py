"""A seccomp filter for sandboxed commands, written as a classic BPF program (no libseccomp).

What it refuses, whatever the mechanism:
- any system call of another architecture's table (32-bit calls from a 64-bit process, x32),
  which would otherwise reach `socketcall` and the like past the checks below: `ENOSYS`;
- `io_uring_setup`: a ring runs socket and file operations no filter sees: `ENOSYS`;
- the `TIOCSTI` and `TIOCLINUX` ioctls, which type into a terminal: `EPERM`;
- without network, `socket()` of every family but those `families` names (`EACCES`).
  `socketpair()` stays: its two ends reach nothing outside the command.

The filter is installed in the command's own process just before it starts bash (Landlock), or
handed to bubblewrap (`--seccomp FD`), which installs it just before the command.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from dataclasses import dataclass

# Filter opcodes and return values (linux/filter.h, linux/seccomp.h).
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
# Offsets in `struct seccomp_data`: nr, arch, then the arguments (64-bit, little-endian).
_NR, _ARCH, _ARG0, _ARG1 = 0, 4, 16, 24
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
_X32_BIT = 0x40000000
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, _PR_SET_NO_NEW_PRIVS = 22, 2, 38


@dataclass(frozen=True, slots=True)
class _Table:
    """One architecture's audit value and the numbers of the calls the filter looks at."""

    arch: int
    socket: int
    ioctl: int
    io_uring_setup: int
    x32: bool = False


_TABLES = {
    "x86_64": _Table(0xC000003E, socket=41, ioctl=16, io_uring_setup=425, x32=True),
    "aarch64": _Table(0xC00000B7, socket=198, ioctl=29, io_uring_setup=425),
}

AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16


def supported() -> bool:
    """Whether this machine's architecture has a filter here."""
    return platform.machine() in _TABLES


def program(families: frozenset[int] | None) -> bytes:
    """The filter for this machine's architecture: `families` None allows every socket,
    else `socket()` of only those address families. Raises OSError where there is none."""
    table = _TABLES.get(platform.machine())
    if table is None:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {platform.machine()}")
    return b"".join(struct.pack("<HBBI", *step) for step in _steps(table, families))


_Step = tuple[str, int, str]  # (operation, offset or value, label or return)


def _steps(table: _Table, families: frozenset[int] | None) -> list[tuple[int, int, int, int]]:
    """The instructions: checks first, each jumping forward to a label or to one of the shared
    returns at the end."""
    steps: list[_Step] = [
        ("load", _ARCH, ""), ("jeq", table.arch, "nr"), ("ret", 0, "enosys"),
        ("label", 0, "nr"), ("load", _NR, ""),
    ]
    if table.x32:
        steps.append(("jge", _X32_BIT, "enosys"))
    steps += [("jeq", table.io_uring_setup, "enosys"), ("jeq", table.ioctl, "ioctl")]
    if families is not None:
        steps.append(("jeq", table.socket, "socket"))
    steps += [("ret", 0, "allow"), ("label", 0, "ioctl"), ("load", _ARG1, ""),
              ("jeq", _TIOCSTI, "eperm"), ("jeq", _TIOCLINUX, "eperm"), ("ret", 0, "allow")]
    if families is not None:
        steps += [("label", 0, "socket"), ("load", _ARG0, "")]
        steps += [("jeq", family, "allow") for family in sorted(families)]
        steps.append(("ret", 0, "eacces"))
    return _assemble(steps)


_RETURNS = {
    "allow": _RET_ALLOW,
    "enosys": _RET_ERRNO | errno.ENOSYS,
    "eperm": _RET_ERRNO | errno.EPERM,
    "eacces": _RET_ERRNO | errno.EACCES,
}


def _assemble(steps: list[_Step]) -> list[tuple[int, int, int, int]]:
    """Resolve the symbolic steps: labels to positions, return names to the shared returns."""
    body = [step for step in steps if step[0] != "label"]
    where = {name: len(body) + index for index, name in enumerate(_RETURNS)}
    position = 0
    for operation, _, target in steps:
        if operation == "label":
            where[target] = position
        else:
            position += 1
    out: list[tuple[int, int, int, int]] = []
    for index, (operation, number, target) in enumerate(body):
        if operation == "load":
            out.append((_LD_W_ABS, 0, 0, number))
        elif operation == "ret":
            out.append((_RET_K, 0, 0, _RETURNS[target]))
        else:
            distance = where[target] - index - 1
            if not 0 <= distance < 256:
                raise ValueError("seccomp program: jump out of range")
            out.append((_JEQ_K if operation == "jeq" else _JGE_K, distance, 0, number))
    out += [(_RET_K, 0, 0, code) for code in _RETURNS.values()]
    return out


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(code: bytes) -> None:
    """Install `code` on the calling thread (no_new_privs must already be set). Raises OSError."""
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp: {os.strerror(number)}")
