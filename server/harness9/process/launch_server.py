"""The launcher: a small process of its own that starts every command a tool runs.

The daemon starts it once, with an empty environment, and asks it over a socket pair to start
each command. It forks (it is small and has one thread, so that is cheap and safe), and the
child confines itself (Landlock, the seccomp filter, no capabilities), then executes the
command. So no command shares a process, thread or Landlock domain with the daemon, and none
sees the daemon's environment or memory.

It is also the commands' subreaper: a job that detaches itself (`setsid`, a double fork, its
marker variable removed) comes back to it as an orphan, and when the daemon is gone (the socket
reads end-of-file) it kills every process below it before it exits. So nothing a tool started
outlives the daemon.

Messages are JSON objects, one per datagram (SOCK_SEQPACKET):
- daemon → launcher: `{"op": "spawn", "id"}` with two to four descriptors: a memfd holding the
  request (`argv`, `cwd`, `env`, `landlock`, `seccomp`, `dropCaps`), the command's output pipe
  (its stdout, and its stderr unless a fourth is given), then optionally its stdin (else
  `/dev/null`) and its stderr: a language server speaks over its stdin and stdout;
  `{"op": "release", "pid"}` once the daemon has killed what was left of the command's group;
  `{"op": "killall"}` to SIGKILL the group of every command still running.
- launcher → daemon: `{"op": "started", "id", "pid"}`, `{"op": "failed", "id", "errno",
  "message"}`, `{"op": "exited", "pid", "returncode"}` (the child stays a zombie until released,
  so its process-group id cannot be reused while the daemon may still signal it), and
  `{"op": "released", "pid"}` once it is reaped.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import json
import os
import select
import signal
import socket
import sys
from typing import Any

from harness9.process import capabilities, landlock, seccomp

_PR_SET_CHILD_SUBREAPER, _PR_SET_DUMPABLE = 36, 4
_MAX_MESSAGE = 1 << 16
_SECCOMP_FD = 3  # where bubblewrap reads the filter from (`--seccomp 3`)
_HIGH_FD = 64  # the child's own descriptors move up here, out of the way of 0-3


class Launcher:
    """The launcher's state: its socket, its children, and the rulesets it has made."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.running: dict[int, bool] = {}  # pid -> its exit was reported
        self.rulesets: dict[str, tuple[tuple[tuple[str, int], ...], int]] = {}

    def serve(self) -> None:
        """Answer requests until the daemon is gone, then kill everything below."""
        wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        try:
            while True:
                ready, _, _ = select.select([self.control.fileno(), wake_read], [], [])
                if wake_read in ready:
                    with contextlib.suppress(OSError):
                        os.read(wake_read, 4096)
                    self.collect()
                if self.control.fileno() in ready and not self.receive():
                    break
        finally:
            for pid in self.running:
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)
            kill_descendants()

    def receive(self) -> bool:
        """Handle one message; False once the daemon has closed its end."""
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.control, _MAX_MESSAGE, 4,
                                                       socket.MSG_CMSG_CLOEXEC)
        except OSError:
            return False
        if not data:
            return False
        message = json.loads(data)
        if message.get("op") == "release":
            self.release(int(message["pid"]))
        elif message.get("op") == "killall":
            self.kill_running()
        elif message.get("op") == "spawn":
            self.spawn(message["id"], fds)
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        return True

    def send(self, message: dict[str, Any]) -> None:
        """Tell the daemon something (it reads every message as it comes)."""
        with contextlib.suppress(OSError):
            self.control.send(json.dumps(message).encode())

    def spawn(self, request_id: int, fds: list[int]) -> None:
        """Start the command the request names; tell the daemon its pid or why not."""
        try:
            if not 2 <= len(fds) <= 4:
                raise OSError("a spawn request needs the request and the output pipe")
            with os.fdopen(os.dup(fds[0]), "rb") as handle:
                handle.seek(0)
                request = json.loads(handle.read())
            pid = self.fork(request, fds[1:])
        except OSError as exc:
            self.send({"op": "failed", "id": request_id, "errno": exc.errno or 0,
                       "message": exc.strerror or str(exc)})
            return
        self.running[pid] = False
        self.send({"op": "started", "id": request_id, "pid": pid})
        self.collect()  # it may have ended already (a SIGCHLD before it was known)

    def fork(self, request: dict[str, Any], pipes: list[int]) -> int:
        """Fork the child that becomes the command (`pipes`: its output, then optionally its
        stdin and its stderr); raises OSError with the child's reason when it could not confine
        itself or execute the command."""
        ruleset = self.ruleset(request["landlock"]) if request.get("landlock") else None
        filter_code = _filter(request.get("seccomp"))
        report_read, report_write = os.pipe2(os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(report_read)
            _become(request, pipes, ruleset, filter_code, report_write)
        os.close(report_write)
        with os.fdopen(report_read, "rb") as reports:
            reason = reports.read()
        if reason:
            os.waitpid(pid, 0)
            number, _, text = reason.decode("utf-8", "replace").partition(":")
            raise OSError(int(number) if number.isdigit() else 0, text)
        return pid

    def ruleset(self, spec: dict[str, Any]) -> int:
        """The Landlock ruleset for `spec`, kept while the folders it was made from stay
        unchanged (a file added to a folder next to a hidden one must become readable)."""
        rules = landlock.Rules(tuple(spec["writable"]), bool(spec["network"]),
                               tuple(spec.get("hidden", ())))
        key = json.dumps(spec, sort_keys=True)
        around = [*landlock.UNREADABLE, *rules.hidden]
        stamp = tuple((folder, _mtime(folder)) for folder in landlock.folders_around(around))
        kept = self.rulesets.get(key)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        if kept is not None:
            os.close(kept[1])
        fd = landlock.ruleset(rules)
        self.rulesets[key] = (stamp, fd)
        return fd

    def kill_running(self) -> None:
        """SIGKILL the group of every command that has not exited."""
        for pid, exited in self.running.items():
            if not exited:
                with contextlib.suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)

    def collect(self) -> None:
        """Report children that exited (left as zombies until released); reap orphans."""
        children = _children()
        if children is None:  # a kernel without the list of children: reap as they end
            self.collect_all()
            return
        for pid in children:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue
            if info is None:
                continue
            if pid not in self.running:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)  # an orphan that came back to us
            elif not self.running[pid]:
                self.running[pid] = True
                self.send({"op": "exited", "pid": pid, "returncode": _returncode(info)})

    def collect_all(self) -> None:
        """Reap every child that exited, reporting the daemon's (their group ids are free
        from then on)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.running:
                self.running[pid] = True
                self.send({"op": "exited", "pid": pid,
                           "returncode": os.waitstatus_to_exitcode(status)})

    def release(self, pid: int) -> None:
        """Reap a child the daemon is done with."""
        if self.running.pop(pid, None) is not None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self.send({"op": "released", "pid": pid})


def _become(request: dict[str, Any], pipes: list[int], ruleset: int | None,
            filter_code: bytes | None, report: int) -> None:
    """In the forked child: the command's descriptors, session and confinement, then exec.
    Any failure is written to `report` (as `errno:reason`) and the child exits."""
    try:
        report = fcntl.fcntl(report, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD) for fd in pipes]
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.setsid()
        output = high[0]
        stdin = high[1] if len(high) > 1 else os.open(os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.dup2(output, 1)
        os.dup2(high[2] if len(high) > 2 else output, 2)
        os.chdir(request["cwd"])
        seccomp_spec = request.get("seccomp") or {}
        if filter_code is not None and seccomp_spec.get("fd") == _SECCOMP_FD:
            _hand_over(filter_code)  # bubblewrap installs it
        if request.get("dropCaps"):
            capabilities.drop_all()
        if ruleset is not None:
            landlock.restrict_self(ruleset)
        if filter_code is not None and seccomp_spec.get("fd") is None:
            seccomp.install(filter_code)
        os.execve(request["argv"][0], request["argv"], request["env"])
    except BaseException as exc:
        number = exc.errno if isinstance(exc, OSError) and exc.errno else 0
        text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        with contextlib.suppress(OSError):
            os.write(report, f"{number}:{text}".encode())
    os._exit(127)


def _hand_over(code: bytes) -> None:
    """Put the filter in a memfd at `_SECCOMP_FD`, open across exec."""
    memfd = os.memfd_create("harness9-seccomp", 0)
    os.write(memfd, code)
    os.lseek(memfd, 0, os.SEEK_SET)
    if memfd != _SECCOMP_FD:
        os.dup2(memfd, _SECCOMP_FD)
        os.close(memfd)


def _filter(spec: dict[str, Any] | None) -> bytes | None:
    if spec is None:
        return None
    families = spec.get("families")
    return seccomp.program(None if families is None else frozenset(families))


def _returncode(info: os.waitid_result) -> int:
    """As `Popen.returncode`: the exit code, or minus the signal that ended it."""
    if info.si_code == os.CLD_EXITED:
        return int(info.si_status)
    return -int(info.si_status)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def _children() -> list[int] | None:
    """This process's children (one thread: its id is the process's); None where the kernel
    does not list them."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", encoding="ascii") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        return None


def kill_descendants() -> None:
    """SIGKILL every process below this one, until none is left (orphans come back here as
    their parents die)."""
    for _ in range(1000):
        children = _children()
        if not children:  # (None: only the process groups can be reached, below)
            return
        for pid in children:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def main(control_fd: int) -> None:
    """The launcher's entry point: `control_fd` is its end of the socket pair."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C for the editor is not for us
    # Forks copy fewer pages when no collection walks (and writes to) the objects in between.
    gc.disable()
    gc.freeze()
    os.set_inheritable(control_fd, False)
    control = socket.socket(fileno=control_fd)
    Launcher(control).serve()
    sys.exit(0)
