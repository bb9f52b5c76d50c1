"""`FrameWriter`: the daemon's output to its client, never blocking the event loop."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import stat
import threading
from collections import deque
from collections.abc import Callable

_log = logging.getLogger("harness9.lsp.transport")

HIGH_WATER = 64 * 1024  # queued output bytes above which the client counts as lagging
_WRITE_BATCH = 256 * 1024


class FrameWriter:
    """pygls' writer: `write` never blocks, and frames leave in order.

    On a pipe or a socket (made non-blocking), a frame is written at once while nothing waits
    before it and the kernel takes it whole; what it does not take is queued for a thread of
    the writer's own, which waits until the client reads. (Handing every frame to the thread
    cost each turn about a millisecond: the thread's wake-ups take the interpreter from the
    event loop.) On anything else (a terminal, shared with the shell) every frame goes through
    the thread. Queued bytes count until the kernel has taken them, so `congested` turns true
    as soon as a client stops reading and the pipe fills.
    """

    def __init__(self, fd: int, high_water: int = HIGH_WATER,
                 rewrite: Callable[[bytes], bytes] | None = None) -> None:
        self._fd = fd
        self._rewrite = rewrite  # applied to every frame first (the transport's `pathMap`)
        self._high_water = high_water
        self._frames: deque[bytes] = deque()
        self._pending = 0
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)
        self._closed = False
        self._lost = False
        self._direct = _own_pipe(fd)
        if self._direct:
            os.set_blocking(fd, False)
        self.on_lost: Callable[[], None] = lambda: None
        self._thread = threading.Thread(target=self._run, name="harness9-writer", daemon=True)
        self._thread.start()

    @property
    def congested(self) -> bool:
        """More than the high-water mark is waiting for the client."""
        return self._pending > self._high_water

    @property
    def pending_bytes(self) -> int:
        """Bytes queued or being written."""
        return self._pending

    def write(self, data: bytes) -> None:
        """Write or queue one frame; dropped once the writer is closed or the client is gone."""
        if self._rewrite is not None:
            data = self._rewrite(data)
        with self._lock:
            if self._closed or self._lost:
                return
            if self._direct and not self._pending:  # nothing queued or being written
                data = data[self._write_now(data):]
                if not data:
                    return
            self._frames.append(data)
            self._pending += len(data)
            self._work.notify()

    def _write_now(self, data: bytes) -> int:
        """What the kernel takes of `data` without waiting (a failure is left to the thread,
        which meets it again and gives up)."""
        try:
            return os.write(self._fd, data)
        except OSError:
            return 0

    def close(self) -> None:
        """Accept no more frames; those queued are still written, then stdout is closed."""
        with self._lock:
            self._closed = True
            self._work.notify()

    def join(self, timeout: float) -> bool:
        """Wait until the writer's thread has ended (after `close`, once it wrote what was
        queued and closed the descriptor); False on timeout."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def drain(self, timeout: float) -> bool:
        """Wait until every queued frame is written (or the client is gone); False on timeout."""
        with self._lock:
            return self._idle.wait_for(lambda: self._pending == 0 or self._lost, timeout)

    def _run(self) -> None:
        while (batch := self._next_batch()) is not None:
            try:
                _write_all(self._fd, batch, self._direct)
            except OSError as exc:
                self._give_up(exc)
                return
            with self._lock:
                self._pending -= len(batch)
                if self._pending == 0:
                    self._idle.notify_all()
        with contextlib.suppress(OSError):
            os.close(self._fd)

    def _next_batch(self) -> bytes | None:
        """Up to `_WRITE_BATCH` bytes of whole frames; None once closed and empty."""
        with self._lock:
            self._work.wait_for(lambda: bool(self._frames) or self._closed)
            if not self._frames:
                return None
            parts = [self._frames.popleft()]
            size = len(parts[0])
            while self._frames and size + len(self._frames[0]) <= _WRITE_BATCH:
                parts.append(self._frames.popleft())
                size += len(parts[-1])
        return b"".join(parts)

    def _give_up(self, exc: OSError) -> None:
        _log.error("the client's end of stdout is gone (%s); closing the connection", exc)
        with self._lock:
            self._lost = True
            self._frames.clear()
            self._pending = 0
            self._idle.notify_all()
        self.on_lost()


def _write_all(fd: int, data: bytes, nonblocking: bool = False) -> None:
    view = memoryview(data)
    waiter = select.poll() if nonblocking else None
    if waiter is not None:
        waiter.register(fd, select.POLLOUT)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            assert waiter is not None
            waiter.poll()  # until the client reads (or leaves: the next write says so)


def _own_pipe(fd: int) -> bool:
    """Whether `fd` is a pipe or a socket, which only the client reads (non-blocking mode is
    then ours to set; on a terminal it would be the shell's too)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
