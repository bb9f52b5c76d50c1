"""Turning a process forked by the resident into the command its start asked for, as if the
interpreter had been started for it: its file descriptors, folder, environment, signals and
standard streams."""

from __future__ import annotations

import io
import os
import signal
import sys
import tempfile
import time
from typing import Any

from harness9.resident.fork_server import Request

_forked = [False]  # set in a daemon the resident forked: it never hands over again


def forked() -> bool:
    """Whether this process is a daemon the resident forked."""
    return _forked[0]


def become(request: Request, module: str = "harness9") -> None:
    """Take on `request`'s descriptors, folder and environment; exec a fresh interpreter
    instead when the environment changes how one starts (`request.fresh`)."""
    for target, fd in enumerate(request.fds):
        os.dup2(fd, target)
    for fd in request.fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request.cwd)
    if request.fresh:
        os.execve(sys.executable, [sys.executable, "-m", module, *request.argv], request.env)
    _forked[0] = True
    os.setpgid(0, 0)  # a process group of its own, not the resident's
    os.environ.clear()
    os.environ.update(request.env)
    time.tzset()
    tempfile.tempdir = None  # TMPDIR as this daemon's environment says
    for sig in range(1, signal.NSIG):  # the resident's own handlers go; SIG_IGN of SIGPIPE
        handler = signal.getsignal(sig)  # and SIGXFSZ stays, as at start-up
        if callable(handler) and handler is not signal.default_int_handler:
            signal.signal(sig, signal.SIG_DFL)
    sys.stdin, sys.stdout, sys.stderr = (_stdio(0, sys.stdin), _stdio(1, sys.stdout),
                                         _stdio(2, sys.stderr))
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = (  # type: ignore[misc]
        sys.stdin, sys.stdout, sys.stderr)
    sys.argv = ["harness9", *request.argv]


def _stdio(fd: int, old: Any) -> io.TextIOWrapper:
    """A standard stream on `fd` made the way the interpreter makes it at start-up."""
    reading = fd == 0
    buffered = reading or not old.write_through  # -u or PYTHONUNBUFFERED: write through
    raw = io.FileIO(fd, "rb" if reading else "wb", closefd=False)
    stream: Any = raw
    if buffered:
        stream = io.BufferedReader(raw) if reading else io.BufferedWriter(raw)
    text = io.TextIOWrapper(
        stream, encoding=old.encoding, errors=old.errors, newline="\n",
        line_buffering=buffered and (raw.isatty() or fd == 2), write_through=not buffered,
    )
    text.mode = "r" if reading else "w"  # type: ignore[misc]
    return text
