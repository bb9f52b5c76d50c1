"""Noticing that another process has ended: the editor that started the daemon.

A daemon must end with its editor. Its stdin closing says so in most cases, but not all: the
pipe's other end can live on in a process the editor started (a terminal, another server that
inherited it), and a remote editor keeps its extension host for a while after the window closed.
So the daemon also watches the editor's process: the `processId` an LSP client gives in
`initialize` (the protocol asks servers to exit when it ends), and its own parent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import select
import signal
import threading
import time
from collections.abc import Callable

from harness9.process import stdio_channel

_log = logging.getLogger(__name__)
POLL_SECONDS = 1.0  # how often a process is looked for where the kernel has no pidfds


def when_process_ends(
    loop: asyncio.AbstractEventLoop, pid: int, callback: Callable[[], None]
) -> Callable[[], None]:
    """Call `callback` on `loop` once process `pid` has ended; returns what stops the watch.
    A pidfd makes the loop wake when it ends; without pidfds (another OS, an old kernel) the
    process is looked for every `POLL_SECONDS`. A process that does not exist here is not
    watched: the id may be from another PID namespace (an editor outside a container)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        _log.info("process %d does not exist here: not watched", pid)
        return lambda: None
    except (AttributeError, OSError):
        return _poll(loop, pid, callback)

    def ended() -> None:
        stop()
        callback()

    def stop() -> None:
        with contextlib.suppress(ValueError, OSError):  # already stopped: fd closed
            loop.remove_reader(fd)
            os.close(fd)

    loop.add_reader(fd, ended)
    return stop


def _poll(
    loop: asyncio.AbstractEventLoop, pid: int, callback: Callable[[], None]
) -> Callable[[], None]:
    """`when_process_ends` by looking for the process now and then."""
    handle: asyncio.TimerHandle | None = None
    if not is_alive(pid):
        _log.info("process %d does not exist here: not watched", pid)
        return lambda: None

    def look() -> None:
        nonlocal handle
        if is_alive(pid):
            handle = loop.call_later(POLL_SECONDS, look)
        else:
            callback()

    def stop() -> None:
        if handle is not None:
            handle.cancel()

    look()
    return stop


def terminate_when_process_ends(pid: int, who: str) -> None:
    """Send this process SIGTERM (whose handler kills the tool processes and leaves) once
    process `pid` has ended; `who` names it in the log. A thread waits, so this also holds
    while the process is busy outside an event loop."""
    threading.Thread(target=_wait_then_terminate, args=(pid, who), daemon=True,
                     name="harness9-process-end").start()


def _wait_then_terminate(pid: int, who: str) -> None:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):
        while is_alive(pid):
            time.sleep(POLL_SECONDS)
    else:
        select.select([fd], [], [])
        os.close(fd)
    _log.info("%s (pid %d) has ended: stopping", who, pid)
    stdio_channel.write_queued_logs()
    os.kill(os.getpid(), signal.SIGTERM)


def is_alive(pid: int) -> bool:
    """Whether a process with this id exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def parent_to_watch() -> int | None:
    """The process that started this one; None when that was init (pid 1): a daemon started
    detached, or whose parent is already gone, has no parent to end with."""
    parent = os.getppid()
    return parent if parent > 1 else None
