"""Daemons started from an interpreter that already imported the heavy libraries.

Each `harness9 serve` or `harness9 acp` a test starts would otherwise spend one to four seconds
of CPU importing lsprotocol, pygls, the model SDKs, mcp and the ACP SDK: most of the suite's
time. Here one "fork server" per test session (harness9's resident, `harness9.resident`, with
a folder of the session's and without harness9's own modules: each daemon imports them under its
own environment) imports those libraries once and forks a daemon for each start:

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

Only the standard library and `harness9.resident` are imported here: the launcher runs it with
`python -S`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import sys
import time
from typing import Any

DIR_VARIABLE = "HARNESS9_TEST_PRELOAD_DIR"
SWITCH_VARIABLE = "HARNESS9_TEST_PRELOAD"  # "0": every daemon is a plain `python -m harness9`
SERVER_START_TIMEOUT = 60.0

_STARTED: list[Any] = []


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


# -- the launcher and the fork server: harness9's resident, with the test session's folder


def _launch(sock_path: str, args: list[str]) -> None:
    from harness9.resident import handover

    conn = handover.connect(sock_path)
    if conn is not None:
        handover.hand_over(conn, args, {k: v for k, v in os.environ.items() if k != DIR_VARIABLE})
    os._exit(handover.LOST_RESIDENT)


def _serve(folder: str) -> None:
    """Serve daemons until the test session is gone; in each forked daemon, run its command."""
    from harness9.resident import fork_server
    from harness9.resident.becoming import become
    from harness9.resident.starter import PRELOAD

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.path.join(folder, "server.sock.tmp"))
    listener.listen(128)
    os.rename(os.path.join(folder, "server.sock.tmp"), os.path.join(folder, "server.sock"))
    with open(os.path.join(folder, "owner")) as owner:
        owner_pid = int(owner.read())

    def owner_alive(loop: fork_server.Loop) -> bool:
        try:
            os.kill(owner_pid, 0)
        except ProcessLookupError:
            return False
        return True

    # Not harness9's own modules: each daemon imports them under its own environment.
    fork_server.preload([name for name in PRELOAD if not name.startswith("harness9")])
    request = fork_server.serve(listener, owner_alive)
    # A daemon given a fresh interpreter (its environment starts Python otherwise) is never
    # handed to a resident of the user's, which would outlive the test session.
    request.env.setdefault("HARNESS9_RESIDENT", "0")
    become(request)
    sys.path[0:0] = [os.getcwd()]  # what `-m` puts first
    sys.argv = ["-m", *request.argv]
    del request
    import runpy

    runpy.run_module("harness9", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    # The launcher runs with `python -S`: harness9 comes from this checkout.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "server"))
    if sys.argv[1] == "launch":
        _launch(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "serve":
        _serve(sys.argv[2])
