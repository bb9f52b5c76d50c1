"""Daemons started from an interpreter that already imported the heavy libraries.

Each `harness9 serve` or `harness9 acp` a test starts would otherwise spend one to four seconds
of CPU importing lsprotocol, pygls, the model SDKs, mcp and the ACP SDK: most of the suite's
time. Here one "fork server" per test session imports those libraries once (none of harness9's
own modules: they are imported by each daemon, under its own environment) and forks a daemon
for each start:

    test ──pipes──▶ launcher (a tiny `python -S` process)
                      │ hands its stdin, stdout and stderr, its argv, environment and working
                      │ folder over a unix socket
                      ▼
    fork server ──fork──▶ supervisor ──fork──▶ daemon: runs `python -m harness9 ARGS` on
                                                those file descriptors, in that environment

The launcher stands for the daemon: it ends with the daemon's exit status (or signal), passes
on the signals it gets (SIGTERM, SIGINT, …), and when it is killed the supervisor kills the
daemon. A daemon whose environment changes how the interpreter itself starts (any PYTHON*
variable, the locale) is not forked: the supervisor execs a fresh `python -m harness9` instead.

`command(*args)` is the command line a test starts; it is the plain `python -m harness9 ARGS`
when no fork server is configured or `HARNESS9_TEST_PRELOAD=0`. `tests/conftest.py` owns the
fork server's folder (HARNESS9_TEST_PRELOAD_DIR) and stops the server at the end of the session.

Only the standard library is imported here: the launcher runs it with `python -S`.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from typing import Any

DIR_VARIABLE = "HARNESS9_TEST_PRELOAD_DIR"
SWITCH_VARIABLE = "HARNESS9_TEST_PRELOAD"  # "0": every daemon is a plain `python -m harness9`
SERVER_START_TIMEOUT = 60.0

# What a daemon imports from outside harness9 and the standard library, by its roots (their
# submodules come along); one that fails to import is skipped.
PRELOAD = [
    "lsprotocol.types", "pygls.lsp.server", "pygls.protocol", "pygls.exceptions", "cattrs",
    "openai", "anthropic", "httpx2", "httpcore2", "h11", "anyio", "anyio._backends._asyncio",
    "mcp", "mcp.client.session", "mcp.client.stdio", "jsonschema", "truststore",
    "acp", "acp.schema", "pydantic",
]  # fmt: skip

# Signals the launcher passes on to the daemon.
FORWARDED = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
             signal.SIGUSR2]

_HEADER = struct.Struct("!I")
_STARTED: list[Any] = []


def _startup_environment(env: dict[str, str]) -> dict[str, str]:
    """The variables that shape how an interpreter starts (flags, hash seed, paths, locale)."""
    return {k: v for k, v in env.items()
            if k.startswith(("PYTHON", "LC_")) or k in ("LANG", "LANGUAGE")}


# -- the test's side


def command(*args: str) -> list[str]:
    """The command line of `harness9 ARGS`: through the fork server when there is one."""
    folder = os.environ.get(DIR_VARIABLE)
    if not folder or os.environ.get(SWITCH_VARIABLE) == "0":
        return [sys.executable, "-m", "harness9", *args]
    return [sys.executable, "-S", os.path.abspath(__file__), "launch", _ensure_server(folder),
            *args]


def _ensure_server(folder: str) -> str:
    """The fork server's socket, starting the server on first use (one for all xdist workers)."""
    import subprocess

    sock = os.path.join(folder, "server.sock")
    with open(os.path.join(folder, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(folder, "pid")):
            log = open(os.path.join(folder, "server.log"), "ab")  # noqa: SIM115
            # Run as a file but without its folder first on sys.path (tests/support would shadow).
            boot = ("import sys; sys.path.pop(0); __file__ = sys.argv[0] = sys.argv.pop(1); "
                    "exec(compile(open(__file__).read(), __file__, 'exec'))")
            proc = subprocess.Popen(
                [sys.executable, "-c", boot, os.path.abspath(__file__), "serve", folder],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                env={k: v for k, v in os.environ.items() if k != DIR_VARIABLE},
            )
            log.close()
            _STARTED.append(proc)  # ended by `stop` in the session's main process
            with open(os.path.join(folder, "pid"), "w") as pid:
                pid.write(str(proc.pid))
            # The socket listens before the imports: the first daemon waits for them, not here.
            deadline = time.monotonic() + SERVER_START_TIMEOUT
            while not os.path.exists(sock):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the fork server did not start; see {folder}/server.log")
                time.sleep(0.01)
    return sock


def warm_up() -> None:
    """Start the session's fork server now (its imports run while the first tests do)."""
    folder = os.environ.get(DIR_VARIABLE)
    if folder and os.environ.get(SWITCH_VARIABLE) != "0":
        _ensure_server(folder)


def new_folder() -> str:
    """A folder for a session's fork server (started by the first daemon that needs it)."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="harness9-preload-")
    with open(os.path.join(folder, "owner"), "w") as owner:
        owner.write(str(os.getpid()))
    return folder


def stop(folder: str) -> None:
    """Stop the session's fork server (if one started) and remove its folder."""
    import shutil

    with contextlib.suppress(OSError, ValueError), open(os.path.join(folder, "pid")) as pid:
        os.kill(int(pid.read()), signal.SIGTERM)
    shutil.rmtree(folder, ignore_errors=True)


# -- the launcher


def _launch(sock_path: str, args: list[str]) -> None:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(sock_path)
    env = {k: v for k, v in os.environ.items() if k != DIR_VARIABLE}
    payload = json.dumps({"argv": args, "env": env, "cwd": os.getcwd()}).encode()
    socket.send_fds(conn, [_HEADER.pack(len(payload))], [0, 1, 2])
    conn.sendall(payload)
    # The daemon has the pipes now: the test sees their end when the daemon closes them.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)

    def forward(signum: int, frame: Any) -> None:
        with contextlib.suppress(OSError):
            conn.sendall(b"%d\n" % signum)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            os._exit(70)  # the fork server went away
        answer += chunk
    status = int(answer)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status))


# -- the fork server


def _serve(folder: str) -> dict[str, Any]:
    """Accept launchers until stopped. Returns only in a forked daemon: its request."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.path.join(folder, "server.sock.tmp"))
    listener.listen(128)
    os.rename(os.path.join(folder, "server.sock.tmp"), os.path.join(folder, "server.sock"))
    with open(os.path.join(folder, "owner")) as owner:
        owner_pid = int(owner.read())
    import importlib

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception as exc:  # a library that moved on: the daemon imports it itself
            print(f"preload: {name}: {exc!r}", file=sys.stderr)
    import gc
    import threading

    assert threading.active_count() == 1, "a preloaded library started a thread"
    startup = _startup_environment(dict(os.environ))
    # What was imported stays out of the daemons' garbage collections: a collection would walk
    # (and so copy) all of it in every daemon, and so would the daemon's exit.
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        ready, _, _ = select.select([listener], [], [], 1.0)
        while True:  # reap the supervisors that ended
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not ready:
            try:
                os.kill(owner_pid, 0)
            except ProcessLookupError:  # the test session is gone
                os._exit(0)
            continue
        conn, _ = listener.accept()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            return _supervise(conn, startup)
        conn.close()


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, _HEADER.size, 3)
    while len(header) < _HEADER.size:
        header += conn.recv(_HEADER.size - len(header))
    (size,) = _HEADER.unpack(header)
    payload = b""
    while len(payload) < size:
        chunk = conn.recv(size - len(payload))
        if not chunk:
            os._exit(1)
        payload += chunk
    return json.loads(payload), fds


def _supervise(conn: socket.socket, startup: dict[str, str]) -> dict[str, Any]:
    """In the supervisor: fork the daemon, pass it signals, report its end, kill it when the
    launcher dies. Returns only in the daemon."""
    request, fds = _receive(conn)
    request["fds"] = fds
    request["fresh"] = _startup_environment(request["env"]) != startup
    pid = os.fork()
    if pid == 0:
        conn.close()
        return request
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    pending = b""
    while True:
        ready, _, _ = select.select([conn, pidfd], [], [])
        if pidfd in ready:
            _, status = os.waitpid(pid, 0)
            with contextlib.suppress(OSError):
                conn.sendall(b"%d\n" % status)
            os._exit(0)
        chunk = conn.recv(64)
        if not chunk:  # the launcher was killed: so is the daemon
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os._exit(0)
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, int(line))


def _become(request: dict[str, Any]) -> None:
    """Turn this forked process into `python -m harness9 ARGV` as the launcher would have run."""
    for target, fd in enumerate(request["fds"]):
        os.dup2(fd, target)
    for fd in request["fds"]:
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    env: dict[str, str] = request["env"]
    argv = [sys.executable, "-m", "harness9", *request["argv"]]
    if request["fresh"]:
        os.execve(sys.executable, argv, env)
    os.setpgid(0, 0)  # a process group of its own, not the fork server's
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    import tempfile

    tempfile.tempdir = None  # TMPDIR as this daemon's environment says
    for sig in range(1, signal.NSIG):  # the fork server's own handlers go; SIG_IGN of
        handler = signal.getsignal(sig)  # SIGPIPE and SIGXFSZ stays, as at start-up
        if callable(handler) and handler is not signal.default_int_handler:
            signal.signal(sig, signal.SIG_DFL)
    sys.stdin, sys.stdout, sys.stderr = (_stdio(0, sys.stdin), _stdio(1, sys.stdout),
                                         _stdio(2, sys.stderr))
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    sys.path[0:0] = [os.getcwd()]  # what `-m` puts first
    sys.argv = ["-m", *request["argv"]]


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


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        _launch(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "serve":
        daemon = _serve(sys.argv[2])
        _become(daemon)
        del daemon
        import runpy

        runpy.run_module("harness9", run_name="__main__", alter_sys=True)
