"""When a start goes through a resident, where the resident listens, and the resident itself
(`python -m harness9.resident.starter SOCKET`).

`harness9 serve`, `acp` and `exec` hand themselves to the resident of this interpreter and these
libraries when one listens; otherwise they start one in the background and run on their own this
time. A resident ends after `IDLE_SECONDS` without a start and without a daemon of its own, or
when its socket is removed or taken over. `HARNESS9_RESIDENT=0` turns it off.

The socket's folder is the user's own (`$XDG_RUNTIME_DIR/harness9`, else `/tmp/harness9-UID`,
mode 0700, checked), and the resident serves only its own user. Sandboxed commands cannot reach
it: they may not make sockets, and the folders it is in are not theirs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Sequence

from harness9.resident import fork_server, handover
from harness9.resident.becoming import become, forked

COMMANDS = frozenset({"serve", "acp", "exec"})
SWITCH = "HARNESS9_RESIDENT"
IDLE_SECONDS = 30 * 60.0
# How long a start waits for the resident's answer: one still importing answers late, and the
# start then runs on its own (the resident, seeing it gone, forks nothing for it).
READY_TIMEOUT = 5.0
PRELOAD_DELAY = 2.0
# What a daemon imports, by its roots (their submodules come along): the libraries, then the
# front-ends' and the service's modules (none of them reads the environment on import).
PRELOAD = (
    "lsprotocol.types", "pygls.lsp.server", "pygls.protocol", "pygls.exceptions", "cattrs",
    "openai", "anthropic", "httpx2", "httpcore2", "h11", "anyio", "anyio._backends._asyncio",
    "mcp", "mcp.client.session", "mcp.client.stdio", "jsonschema", "truststore",
    "acp", "acp.schema", "pydantic",
    "harness9.cli", "harness9.service.agent_service", "harness9.lsp.serve", "harness9.acp.main",
    "harness9.client.headless",
)  # fmt: skip
_LONGEST_FOLDER = 70  # a socket's path has at most 107 bytes, and the name takes 33
# What the resident keeps of the first start's environment: how an interpreter starts, where
# things are. Each daemon gets its own start's whole environment.
_KEPT = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TMPDIR", "XDG_RUNTIME_DIR")


def enabled(env: dict[str, str] | os._Environ[str]) -> bool:
    """Whether starts go through a resident (`HARNESS9_RESIDENT` is not `0`)."""
    return env.get(SWITCH, "1").strip() != "0"


def run_through_resident(argv: Sequence[str]) -> None:
    """Hand this start to the resident (never returning) when it is a daemon's and a resident
    listens; else return, having started a resident for the next time."""
    if not argv or argv[0] not in COMMANDS or forked() or not enabled(os.environ):
        return
    try:
        path = socket_path()
        conn = None if path is None else handover.connect(path)
    except OSError:  # no resident to be had here: this start runs on its own
        return
    if conn is None:
        if path is not None:
            start_resident(path)
        return
    handover.hand_over(conn, argv, dict(os.environ), READY_TIMEOUT, _harden)


def _harden() -> None:
    """Keep this start's memory and environment (the editor's keys) out of reach, as a
    daemon's own are: it lives as long as the daemon."""
    from harness9.process.hardening import harden
    from harness9.redaction import looks_secret

    harden(looks_secret)


def describe() -> str:
    """One line for `harness9 doctor`: whether starts go through a resident, and its state."""
    if not enabled(os.environ):
        return f"resident: off ({SWITCH}=0): every start loads the libraries itself"
    path = socket_path()
    if path is None:
        return "resident: none: no private folder for its socket (XDG_RUNTIME_DIR or /tmp)"
    try:
        with open(path + ".pid") as pid:
            return f"resident: ready (pid {pid.read().strip()}), listening at {path}"
    except OSError:
        return f"resident: none yet; the next start makes one at {path}"


def socket_folder() -> str | None:
    """The user's own folder for the socket (made 0700), or None when it is not safe."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    folder = (os.path.join(runtime, "harness9")
              if runtime and len(runtime) < _LONGEST_FOLDER and os.path.isdir(runtime)
              else f"/tmp/harness9-{os.getuid()}")
    with contextlib.suppress(OSError):  # made already, or not makeable: lstat tells
        os.mkdir(folder, 0o700)
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o077
    return folder if private and info.st_uid == os.getuid() else None


def fingerprint() -> str:
    """What a resident's preloaded code depends on: the interpreter, how it started (a start
    that starts differently gets a resident of its own, not a fresh interpreter each time), its
    library folders (their change times move when a package is installed) and every module of
    harness9's own."""
    parts = [sys.executable, sys.version,
             repr(sorted(fork_server.startup_environment(dict(os.environ)).items()))]
    for entry in sys.path:  # not the script's folder or `-m`'s working folder, which vary
        if not entry.endswith(("site-packages", "dist-packages")):
            continue
        with contextlib.suppress(OSError):
            parts.append(f"{entry}:{os.stat(entry or '.').st_mtime_ns}")
    _module_times(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), parts)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _module_times(folder: str, parts: list[str]) -> None:
    """Append the path and change time of each module under `folder`."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".py"):
                parts.append(f"{entry.path}:{entry.stat().st_mtime_ns}")
            elif entry.is_dir() and entry.name != "__pycache__":
                _module_times(entry.path, parts)


def socket_path() -> str | None:
    """Where this interpreter's resident listens, or None when there is no safe folder."""
    folder = socket_folder()
    return None if folder is None else os.path.join(folder, f"resident-{fingerprint()}.sock")


def start_resident(path: str) -> None:
    """Start a resident for `path` in the background, in a session of its own."""
    env = {k: v for k, v in os.environ.items()
           if k in _KEPT or k in fork_server.startup_environment(dict(os.environ))}
    with contextlib.suppress(OSError), open(path + ".log", "ab") as log:
        subprocess.Popen(
            [sys.executable, "-P", "-m", "harness9.resident.starter", path],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            start_new_session=True, env=env, cwd="/",
        )


def _listen(path: str) -> tuple[socket.socket, int] | None:
    """Listen at `path` (taking it over when nothing answers there), or None when another
    resident already does."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temporary = os.path.join(os.path.dirname(path), f"{os.getpid()}.new")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    listener.bind(temporary)
    listener.listen(64)
    try:
        os.link(temporary, path)
    except FileExistsError:
        alive = handover.connect(path, timeout=1.0)
        if alive is not None:
            alive.close()
            listener.close()
            os.unlink(temporary)
            return None
        os.replace(temporary, path)  # a stale socket: nothing listens there
    else:
        os.unlink(temporary)
    return listener, os.stat(path).st_ino


def _why_leave(path: str, inode: int, loop: fork_server.Loop) -> str | None:
    """Why the resident at `path` (listening on `inode`) should end now, if it should."""
    try:
        ours = os.stat(path).st_ino == inode
    except OSError:
        ours = False
    if not ours:
        return "its socket was taken over"
    if loop.idle_for() >= IDLE_SECONDS:
        return f"idle for {loop.idle_for():.0f} s"
    try:
        current = f"resident-{fingerprint()}.sock"
    except OSError:  # its installation is gone
        current = ""
    if os.path.basename(path) != current:
        return "the code on disk changed"
    return None


def _remove(path: str) -> None:
    """Remove the socket `path` and its pid and log files."""
    for name in (path, path + ".pid", path + ".log"):
        with contextlib.suppress(OSError):
            os.unlink(name)


def _sweep(path: str) -> None:
    """Remove the files of the other residents in `path`'s folder whose socket no one listens
    on (a resident killed outright, or of code since replaced, leaves them)."""
    folder = os.path.dirname(path)
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if (entry.name.startswith("resident-") and entry.name.endswith(".sock")
                    and entry.path != path):
                alive = handover.connect(entry.path, timeout=0.5)
                if alive is None:
                    _remove(entry.path)
                else:
                    alive.close()


def resident_main(path: str) -> None:
    """The resident: listen, preload, serve; in each forked daemon, run its command."""
    listening = _listen(path)
    if listening is None:
        return
    listener, inode = listening

    def keep_going(loop: fork_server.Loop) -> bool:
        why = _why_leave(path, inode, loop)
        if why is None:
            return True
        print(f"harness9 resident {os.getpid()}: leaving: {why}", file=sys.stderr)
        if why != "its socket was taken over":  # the new resident keeps the path and files
            _remove(path)
        return False

    def on_term() -> None:
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == inode:
                _remove(path)

    fork_server.exit_on_term(on_term)  # while it loads, too
    _sweep(path)
    time.sleep(PRELOAD_DELAY)  # the start that made it loads the same: let it go first
    fork_server.preload(PRELOAD)
    with open(f"{path}.{os.getpid()}", "w") as pid:  # ready: for whoever waits for it or
        pid.write(f"{os.getpid()}\n")  # stops it
    os.replace(f"{path}.{os.getpid()}", path + ".pid")
    request = fork_server.serve(listener, keep_going, on_term=on_term)
    if request.fresh:  # a fresh interpreter runs on its own: handed over, it would come back
        request.env[SWITCH] = "0"
    become(request)
    del request
    from harness9.cli import main

    main(sys.argv[1:])


if __name__ == "__main__":
    resident_main(sys.argv[1])
