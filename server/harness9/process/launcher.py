"""The daemon's side of the launcher (`launch_server.py`): the process that starts commands.

`LAUNCHER.spawn(request, output)` asks the launcher to start a command and returns a `Child`
(`stdin` and `stderr` give a process that is spoken to over its stdio, a language server):
its pid (also its process group's id), an awaitable exit, and `release()` for when the daemon
has done with its group. The launcher is started on first use, with an empty environment; a
reader thread takes its answers, so any event loop (or none) can wait for them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import itertools
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness9.process.reaper import ALSO_KILL, kill_group

_log = logging.getLogger(__name__)
_MAX_MESSAGE = 1 << 16
_KILLED = -9  # the exit of a command whose launcher died under it
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from harness9.process.launch_server import main; main(int(sys.argv[2]))")


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """What to start and how to confine it (see `launch_server` for the fields' meaning)."""

    argv: Sequence[str]
    cwd: str
    env: Mapping[str, str]
    landlock: Mapping[str, Any] | None = None
    seccomp: Mapping[str, Any] | None = None
    drop_caps: bool = False

    def encoded(self) -> bytes:
        """The request as the launcher reads it."""
        return json.dumps({
            "argv": list(self.argv), "cwd": self.cwd, "env": dict(self.env),
            "landlock": dict(self.landlock) if self.landlock is not None else None,
            "seccomp": dict(self.seccomp) if self.seccomp is not None else None,
            "dropCaps": self.drop_caps,
        }).encode()


@dataclass(eq=False)
class Child:
    """A command the launcher started: a zombie once it exits, until `release`."""

    pid: int
    _client: LauncherClient
    _exit: concurrent.futures.Future[int] = field(default_factory=concurrent.futures.Future)
    _reaped: concurrent.futures.Future[None] = field(default_factory=concurrent.futures.Future)

    @property
    def returncode(self) -> int | None:
        """Its exit code, minus the signal that killed it, or None while it runs."""
        return self._exit.result() if self._exit.done() else None

    async def wait(self, timeout: float) -> bool:
        """Whether it exited within `timeout` seconds."""
        if self._exit.done():
            return True
        done, _ = await asyncio.wait([asyncio.wrap_future(self._exit)], timeout=timeout)
        return bool(done)

    def release(self) -> None:
        """Let the launcher reap it (its group id may be reused from then on)."""
        self._client.release(self)

    async def reaped(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) until the launcher has reaped it."""
        if not self._reaped.done():
            await asyncio.wait([asyncio.wrap_future(self._reaped)], timeout=timeout)


class LauncherClient:
    """Starts the launcher on first use and talks to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, concurrent.futures.Future[Child]] = {}
        self._children: dict[int, Child] = {}
        self._released: set[int] = set()

    @property
    def pid(self) -> int | None:
        """The launcher's process id, None before it started."""
        return None if self._process is None else self._process.pid

    def ensure_started(self) -> None:
        """Start the launcher now (a warm-up, so the first command does not wait for it)."""
        with self._lock:
            self._ensure_started()

    def spawn(self, request: LaunchRequest, output: int, stdin: int | None = None,
              stderr: int | None = None) -> concurrent.futures.Future[Child]:
        """Ask for `request` to be started with its stdout and stderr on `output` (its stdin
        from /dev/null); or with its stdin from `stdin` and, given, its stderr on `stderr`."""
        if stderr is not None and stdin is None:
            raise ValueError("a separate stderr needs a stdin too")
        pipes = [output, *([stdin] if stdin is not None else []),
                 *([stderr] if stderr is not None else [])]
        future: concurrent.futures.Future[Child] = concurrent.futures.Future()
        memfd = os.memfd_create("harness9-request", os.MFD_CLOEXEC)
        try:
            os.write(memfd, request.encoded())
            with self._lock:
                control = self._ensure_started()
                request_id = next(self._ids)
                self._pending[request_id] = future
                message = json.dumps({"op": "spawn", "id": request_id}).encode()
                try:
                    socket.send_fds(control, [message], [memfd, *pipes])
                except OSError as exc:
                    self._pending.pop(request_id, None)
                    future.set_exception(OSError(exc.errno, f"the launcher is gone: {exc}"))
        finally:
            os.close(memfd)
        return future

    def release(self, child: Child) -> None:
        """Tell the launcher to reap `child` (once)."""
        with self._lock:
            if self._children.get(child.pid) is not child or child.pid in self._released:
                return
            self._released.add(child.pid)
            try:
                if self._socket is None:
                    raise OSError("the launcher is gone")
                self._socket.send(json.dumps({"op": "release", "pid": child.pid}).encode())
            except OSError:
                self._children.pop(child.pid, None)
                _done(child._reaped)

    def kill_all(self) -> int:
        """Have the launcher SIGKILL the group of every command it started that still runs
        (those whose start the daemon has not heard of yet too); how many are in flight. No
        lock: safe from a signal handler (one datagram is never mixed with another)."""
        control = self._socket
        if control is None:
            return 0
        with contextlib.suppress(OSError):
            control.send(b'{"op": "killall"}')
        return len(self._children) + len(self._pending)

    def _ensure_started(self) -> socket.socket:
        if self._socket is not None:
            return self._socket
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_parent = str(Path(__file__).resolve().parents[2])
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _BOOT, package_parent, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), env={}, cwd="/", start_new_session=True,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        self._socket = ours
        threading.Thread(target=self._read, args=(ours, self._process), daemon=True,
                         name="harness9-launcher").start()
        return ours

    def _read(self, control: socket.socket, process: subprocess.Popen[bytes]) -> None:
        """Take the launcher's messages until it is gone."""
        while True:
            try:
                data = control.recv(_MAX_MESSAGE)
            except OSError:
                data = b""
            if not data:
                break
            self._take(json.loads(data))
        self._lost(control, process)

    def _take(self, message: dict[str, Any]) -> None:
        with self._lock:
            if message["op"] == "released":
                self._released.discard(message["pid"])
                child = self._children.pop(message["pid"], None)
                if child is not None:
                    _done(child._reaped)
                return
            if message["op"] == "exited":
                child = self._children.get(message["pid"])
                if child is not None and not child._exit.done():
                    child._exit.set_result(int(message["returncode"]))
                return
            future = self._pending.pop(message["id"], None)
            if message["op"] == "started":
                child = Child(message["pid"], self)
                self._children[child.pid] = child
                self._released.discard(child.pid)
                if future is not None:
                    future.set_result(child)
            elif future is not None:
                number = int(message.get("errno") or 0) or errno.EPERM
                future.set_exception(OSError(number, message.get("message") or "cannot start"))

    def _lost(self, control: socket.socket, process: subprocess.Popen[bytes]) -> None:
        """The launcher ended: its commands are killed and reported so, pending starts fail,
        and the next start makes a new one."""
        with self._lock:
            if self._socket is control:
                self._socket = None
            pending, self._pending = self._pending, {}
            children, self._children = self._children, {}
        control.close()
        _log.warning("the command launcher (pid %d) ended; a new one starts with the next "
                     "command", process.pid)
        for future in pending.values():
            future.set_exception(OSError(errno.ECHILD, "the command launcher ended"))
        for child in children.values():
            kill_group(child.pid)
            if not child._exit.done():
                child._exit.set_result(_KILLED)
            _done(child._reaped)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)


def _done(future: concurrent.futures.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


LAUNCHER = LauncherClient()
ALSO_KILL.append(LAUNCHER.kill_all)
