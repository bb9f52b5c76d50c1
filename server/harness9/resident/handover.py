"""The starting side: hand this process's standard descriptors, command line, environment and
folder to a resident, then stand for the daemon it forks: pass on the signals this process
gets, and end with the daemon's exit status (or signal)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from harness9.resident.fork_server import FORKED, HEADER

# Signals passed on to the daemon.
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
             signal.SIGUSR2, signal.SIGWINCH)
LOST_RESIDENT = 70  # EX_SOFTWARE: the resident went away without a status


def connect(path: str, timeout: float | None = None) -> socket.socket | None:
    """A connection to the resident listening at `path`, or None when none listens."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return None
    conn.settimeout(None)
    return conn


def hand_over(conn: socket.socket, argv: Sequence[str], env: dict[str, str],
              timeout: float | None = None, taken: Callable[[], None] | None = None) -> None:
    """Send the request on `conn`; once the resident says the daemon is forked (within
    `timeout` seconds), call `taken`, wait for the daemon's end and end the same way. Returns
    (closing `conn`) only when the resident did not take the start: this process then runs
    the command itself."""
    payload = json.dumps({"argv": list(argv), "env": env, "cwd": os.getcwd()}).encode()
    try:
        socket.send_fds(conn, [HEADER.pack(len(payload))], [0, 1, 2])
        conn.sendall(payload)
        conn.settimeout(timeout)
        forked = conn.recv(1) == FORKED
        conn.settimeout(None)
    except OSError:
        forked = False
    if not forked:  # a resident that was ending, or stuck: the descriptors it got go with it
        conn.close()
        return
    if taken is not None:
        taken()
    # The daemon has the pipes now: the editor sees their end when the daemon closes them.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)

    def forward(signum: int, frame: Any) -> None:
        with contextlib.suppress(OSError):
            conn.sendall(b"%d\n" % signum)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    _end_as(_status(conn))


def _status(conn: socket.socket) -> int | None:
    """The daemon's wait status, or None when the resident went away without one."""
    answer = b""
    while not answer.endswith(b"\n"):
        try:
            chunk = conn.recv(64)
        except InterruptedError:
            continue
        if not chunk:
            return None
        answer += chunk
    return int(answer)


def _end_as(status: int | None) -> NoReturn:
    """Exit the way the daemon did: by its signal, or with its exit code."""
    if status is None:
        os._exit(LOST_RESIDENT)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status))
