"""The seccomp filter: its program run by a small classic-BPF interpreter against what it should
decide, for generated system calls (a differential test of the assembled jumps), then installed
for real in a child process."""

from __future__ import annotations

import errno
import os
import platform
import socket
import struct
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness9.process import seccomp

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not seccomp.supported(), reason="no filter for this architecture"),
]

ALLOW, ERRNO = 0x7FFF0000, 0x00050000
TABLES = {"x86_64": (0xC000003E, 41, 16, 425, True), "aarch64": (0xC00000B7, 198, 29, 425, False)}
ARCH, SOCKET, IOCTL, IO_URING, X32 = TABLES[platform.machine()]
TIOCSTI, TIOCLINUX = 0x5412, 0x541C


def interpret(code: bytes, nr: int, arch: int, args: list[int]) -> int:
    """What the kernel would return for this call (the opcodes the filter uses)."""
    data = struct.pack("<IIQ6Q", nr, arch, 0, *args)
    steps = [struct.unpack("<HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    accumulator, pc = 0, 0
    while True:
        op, jt, jf, k = steps[pc]
        if op == 0x20:
            accumulator = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x35):
            hit = accumulator == k if op == 0x15 else accumulator >= k
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")


def expected(families: frozenset[int] | None, nr: int, arch: int, args: list[int]) -> int:
    if arch != ARCH or (X32 and nr >= 0x40000000) or nr == IO_URING:
        return ERRNO | errno.ENOSYS
    if nr == IOCTL and args[1] & 0xFFFFFFFF in (TIOCSTI, TIOCLINUX):
        return ERRNO | errno.EPERM
    if nr == SOCKET and families is not None and args[0] & 0xFFFFFFFF not in families:
        return ERRNO | errno.EACCES
    return ALLOW


interesting_nr = st.one_of(st.sampled_from([SOCKET, IOCTL, IO_URING, 0, 1, 0x40000000 + 41]),
                           st.integers(0, 2**32 - 1))
interesting_arg = st.one_of(st.sampled_from([1, 2, 10, 16, 40, TIOCSTI, TIOCLINUX, 0x5413]),
                            st.integers(0, 2**64 - 1))
family_sets = st.one_of(st.none(), st.frozensets(st.sampled_from([1, 2, 10, 16]), max_size=3))


@settings(max_examples=400, deadline=None)
@given(families=family_sets, nr=interesting_nr,
       arch=st.sampled_from([ARCH, 0x40000003, 0xC00000B7, 0xC000003E]),
       args=st.lists(interesting_arg, min_size=6, max_size=6))
def test_the_program_decides_as_the_rules_say(families: frozenset[int] | None, nr: int,
                                              arch: int, args: list[int]) -> None:
    code = seccomp.program(families)
    assert interpret(code, nr, arch, args) == expected(families, nr, arch, args)


_CHILD = """
import errno, fcntl, os, socket, sys, termios
from harness9.process import seccomp
seccomp.install(seccomp.program(frozenset()))
results = []
for family in (socket.AF_INET, socket.AF_UNIX):
    try:
        socket.socket(family, socket.SOCK_STREAM)
        results.append("open")
    except OSError as exc:
        results.append(errno.errorcode[exc.errno])
a, b = socket.socketpair()
results.append("pair")
fd = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
try:
    fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    results.append("typed")
except OSError as exc:
    results.append(errno.errorcode[exc.errno])
print(" ".join(results))
"""


def test_installed_it_refuses_sockets_and_typing_but_not_socket_pairs() -> None:
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                          timeout=30, check=False)
    assert done.stdout.split() == ["EACCES", "EACCES", "pair", "EPERM"], done.stderr
    socket.socket(socket.AF_INET).close()  # this process is not filtered
    assert os.getpid() > 0
