"""The resident's loop: import the heavy libraries once, then fork a supervised daemon for each
start that connects.

Each accepted start gets a supervisor (a fork of the resident) that forks the daemon, passes it
the signals the start forwards, reports its wait status back, and kills it when the start is
gone. Only the standard library is imported here.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import logging
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

_log = logging.getLogger("harness9.resident")

HEADER = struct.Struct("!I")  # the length of the JSON request that follows
FORKED = b"+"  # the supervisor's answer once the daemon is forked
MAX_REQUEST = 16 * 1024 * 1024
_PEER = struct.Struct("3i")  # struct ucred: pid, uid, gid


@dataclass
class Request:
    """What a start hands over: its command line (after `harness9`), environment, working
    folder and standard file descriptors; `fresh` when the interpreter must start anew."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    fds: list[int]
    fresh: bool = False


@dataclass
class Loop:
    """The resident's state: when it last forked a daemon, and its supervisors still alive."""

    started_at: float = field(default_factory=time.monotonic)
    last_start: float = field(default_factory=time.monotonic)
    supervisors: set[int] = field(default_factory=set)

    def idle_for(self) -> float:
        """Seconds since the last start (0 while a daemon it forked still runs)."""
        return 0.0 if self.supervisors else time.monotonic() - self.last_start


def startup_environment(env: dict[str, str]) -> dict[str, str]:
    """The variables that shape how an interpreter starts (flags, hash seed, paths, locale)."""
    return {k: v for k, v in env.items()
            if k.startswith(("PYTHON", "LC_")) or k in ("LANG", "LANGUAGE")}


def preload(modules: Sequence[str]) -> None:
    """Import `modules` (one that fails is left to the daemon), then keep what they made out of
    every later garbage collection: a collection would walk, and so copy, all of it in each
    daemon."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # a library that moved on: the daemon imports it itself
            _log.warning("resident: %s not preloaded: %r", name, exc)
    gc.collect()
    gc.freeze()


def exit_on_term(on_term: Callable[[], None]) -> None:
    """Make SIGTERM end this process at once, after `on_term()`."""
    def terminated(*_: object) -> None:
        on_term()
        os._exit(0)

    signal.signal(signal.SIGTERM, terminated)


def serve(listener: socket.socket, keep_going: Callable[[Loop], bool],
          tick: float = 1.0, on_term: Callable[[], None] = lambda: None) -> Request:
    """Accept starts on `listener` while `keep_going(loop)` holds (asked every `tick` seconds
    when idle); SIGTERM ends it after `on_term()`. Returns only in a forked daemon: its
    request. Exits the process otherwise."""
    if threading.active_count() != 1:
        raise RuntimeError("a preloaded library started a thread: forking is not safe")
    _not_dumpable()
    startup = startup_environment(dict(os.environ))
    loop = Loop()
    exit_on_term(on_term)
    while True:
        ready, _, _ = select.select([listener], [], [], tick)
        _reap(loop)
        if not ready:
            if not keep_going(loop):
                os._exit(0)
            continue
        with contextlib.suppress(OSError):
            conn, _ = listener.accept()
            if not _same_user(conn):
                conn.close()
                continue
            loop.last_start = time.monotonic()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                listener.close()
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                return _supervise(conn, startup)
            loop.supervisors.add(pid)
            conn.close()


def _not_dumpable() -> None:
    """Keep the resident's memory, and so its supervisors' and daemons' (they inherit this),
    out of reach of the user's other processes: a supervisor holds its start's environment,
    the editor's keys included."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        _log.warning("resident: cannot make it non-dumpable: %s",
                     os.strerror(ctypes.get_errno()))


def _reap(loop: Loop) -> None:
    """Collect the supervisors that ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        loop.supervisors.discard(pid)


def _same_user(conn: socket.socket) -> bool:
    """Whether the peer runs as this process's user (the socket's folder keeps others out too)."""
    _pid, uid, _gid = _PEER.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                   _PEER.size))
    return bool(uid == os.getuid())


def receive(conn: socket.socket) -> Request:
    """Read a start's request: a length, three file descriptors, then the JSON."""
    header, fds, _, _ = socket.recv_fds(conn, HEADER.size, 3)
    while len(header) < HEADER.size:
        more = conn.recv(HEADER.size - len(header))
        if not more:
            raise EOFError("the start went away before its request")
        header += more
    (size,) = HEADER.unpack(header)
    if size > MAX_REQUEST or len(fds) != 3:
        raise ValueError("a malformed request")
    payload = bytearray()
    while len(payload) < size:
        chunk = conn.recv(size - len(payload))
        if not chunk:
            raise EOFError("the start went away during its request")
        payload += chunk
    data: dict[str, Any] = json.loads(payload)
    return Request(argv=[str(a) for a in data["argv"]], env=dict(data["env"]),
                   cwd=str(data["cwd"]), fds=fds)


def _supervise(conn: socket.socket, startup: dict[str, str]) -> Request:
    """In the supervisor: fork the daemon, pass it signals, report its end, kill it when the
    start dies. Returns only in the daemon."""
    try:
        request = receive(conn)
    except (OSError, ValueError, EOFError, KeyError):
        os._exit(1)
    request.fresh = startup_environment(request.env) != startup
    if _gone(conn):  # the start stopped waiting (it runs the command itself): not twice
        os._exit(0)
    pid = os.fork()
    if pid == 0:
        conn.close()
        return request
    for fd in request.fds:
        os.close(fd)
    with contextlib.suppress(OSError):
        conn.sendall(FORKED)
    _relay(conn, pid)
    os._exit(0)


def _gone(conn: socket.socket) -> bool:
    """Whether the start closed its end (it sends nothing after its request)."""
    ready, _, _ = select.select([conn], [], [], 0)
    return bool(ready) and conn.recv(1, socket.MSG_PEEK) == b""


def _relay(conn: socket.socket, pid: int) -> None:
    """Pass the signal numbers read from `conn` to `pid` until it ends (its wait status goes
    back) or `conn` closes (the start was killed: so is the daemon)."""
    pidfd = os.pidfd_open(pid)
    pending = b""
    while True:
        ready, _, _ = select.select([conn.fileno(), pidfd], [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            with contextlib.suppress(OSError):
                conn.sendall(b"%d\n" % status)
            return
        chunk = conn.recv(64)
        if not chunk:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(pid, int(line))
