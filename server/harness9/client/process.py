"""Starting and stopping the daemon process, with nothing heavy imported.

The daemon is spawned before the client imports anything it can do without until then, so both
start-ups overlap. It runs in its own process group, so a terminal's Ctrl-C reaches only the
client (which turns it into a `$/cancelRequest`), and so a forced stop can kill the daemon and
its children at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from typing import IO

DAEMON_COMMAND = [sys.executable, "-m", "harness9", "serve"]


async def spawn_daemon(env: dict[str, str], stderr: IO[str] | None,
                       command: list[str] | None = None) -> asyncio.subprocess.Process:
    """Start `harness9 serve` (or `command`, which starts it elsewhere); its stderr goes to
    `stderr` (a file), or to ours when None."""
    return await asyncio.create_subprocess_exec(
        *(command or DAEMON_COMMAND),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        env=env,
        start_new_session=True,
    )


def kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the daemon's whole process group, if it is still running."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
