"""Process groups started by tools never outlive the daemon, however the daemon ends.

Every group a tool starts is registered here. The first registration starts a tiny watcher process
in its own session, and the daemon tells it about groups over a pipe: `+PGID` when one starts,
`-PGID` when it is gone. When the daemon dies by any means, SIGKILL included, the kernel closes
the pipe; the watcher reads end-of-file, SIGKILLs every group still registered and exits. Nothing
but the daemon holds the pipe's write end (it is close-on-exec), so the end-of-file is certain.

A group started in the instant before its registration reached the pipe, or a job a command
detached into a new session (`setsid`), is found another way: every tool process carries the
environment variable `HARNESS9_TOOL_SESSION` with this daemon's token, and at end-of-file the
watcher also kills the process group of every process whose environment holds it (Linux /proc).
So nothing a tool started survives the daemon.

`kill_all_groups()` kills the registered groups from inside the daemon, e.g. in a SIGTERM handler.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping

_log = logging.getLogger(__name__)

# The environment variable that marks every process a tool starts, with the daemon's token.
TOOL_SESSION_ENV = "HARNESS9_TOOL_SESSION"

# The watcher: reads `+PGID`/`-PGID` lines from stdin; at end-of-file SIGKILLs what is left, then
# the groups of the processes marked with the token given as its argument.
_WATCHER_SOURCE = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
marker = ("%s=" % sys.argv[1]).encode() + sys.argv[2].encode()
groups, pending = set(), b""
while True:
    try:
        chunk = os.read(0, 4096)
    except OSError:
        chunk = b""
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\\n")
    for line in lines:
        if line[:1] == b"+":
            groups.add(int(line[1:]))
        elif line[:1] == b"-":
            groups.discard(int(line[1:]))
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
try:
    pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
except OSError:
    pids = []
for pid in pids:
    try:
        with open("/proc/%d/environ" % pid, "rb") as handle:
            if marker in handle.read().split(b"\\0"):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
    except OSError:
        pass
"""


class GroupReaper:
    """Tracks live process groups and guarantees they die with the daemon."""

    def __init__(self) -> None:
        self._groups: set[int] = set()
        self._watcher: subprocess.Popen[bytes] | None = None
        self._pipe: int | None = None
        self.token = f"{os.getpid()}-{secrets.token_hex(8)}"

    def tool_environment(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a tool process: `base` (default: the daemon's), marked with this
        daemon's token (whatever filtered `base`, the mark is always there)."""
        return {**(os.environ if base is None else base), TOOL_SESSION_ENV: self.token}

    @property
    def groups(self) -> frozenset[int]:
        """The process groups currently registered."""
        return frozenset(self._groups)

    @property
    def watcher_pid(self) -> int | None:
        """The watcher process's id; None before the first registration."""
        return None if self._watcher is None else self._watcher.pid

    def ensure_watching(self) -> None:
        """Have a live watcher before a group starts, so `register` is a single pipe write."""
        if self._watcher is not None and self._watcher.poll() is None:
            return
        self._close()
        self._send("".join(f"+{pgid}\n" for pgid in self._groups))

    def register(self, pgid: int) -> None:
        """Track `pgid` until `unregister`; it is killed if the daemon dies first."""
        self._groups.add(pgid)
        self._send(f"+{pgid}\n")

    def unregister(self, pgid: int) -> None:
        """Stop tracking `pgid` (its group has been killed or has ended)."""
        self._groups.discard(pgid)
        self._send(f"-{pgid}\n")

    def kill_all(self) -> int:
        """SIGKILL every registered group now; returns how many groups were signalled."""
        killed = 0
        for pgid in list(self._groups):
            if kill_group(pgid):
                killed += 1
            self.unregister(pgid)
        return killed

    def _send(self, line: str) -> None:
        try:
            self._write(line)
        except OSError:
            # The watcher is gone (killed from outside): start a new one that knows every group.
            self._close()
            try:
                self._write("".join(f"+{pgid}\n" for pgid in self._groups))
            except OSError as exc:
                _log.warning("process group watcher unavailable: %s", exc)
                self._close()

    def _write(self, text: str) -> None:
        if self._pipe is None:
            self._start()
        assert self._pipe is not None
        if text:
            os.write(self._pipe, text.encode("ascii"))

    def _start(self) -> None:
        read_end, write_end = os.pipe()  # both close-on-exec: no tool process inherits them
        try:
            self._watcher = subprocess.Popen(
                [sys.executable, "-S", "-c", _WATCHER_SOURCE, TOOL_SESSION_ENV, self.token],
                stdin=read_end,
                # Never the daemon's stdout (the protocol channel), nor its stderr: an editor
                # reading that pipe to its end must not wait on the watcher.
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                start_new_session=True,  # signals to the editor's process group miss it
            )
        except OSError:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)
        self._pipe = write_end

    def _close(self) -> None:
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
        self._pipe = None
        if self._watcher is not None:
            # Only reached when the watcher has died or closed its end: this wait is immediate.
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self._watcher.kill()
                self._watcher.wait(timeout=1.0)
        self._watcher = None


def kill_group(pgid: int) -> bool:
    """SIGKILL the process group `pgid`; False when it no longer exists."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    except PermissionError:
        _log.warning("not allowed to kill process group %d", pgid)
        return False
    return True


REAPER = GroupReaper()


# Others that start tool processes and can end them all at once (the launcher: it also knows
# the commands whose start the daemon has not heard of yet); each returns how many it ended.
ALSO_KILL: list[Callable[[], int]] = []


def kill_all_groups() -> int:
    """SIGKILL every process group the tools started and that still runs (for a SIGTERM handler)."""
    return REAPER.kill_all() + sum(kill() for kill in ALSO_KILL)
