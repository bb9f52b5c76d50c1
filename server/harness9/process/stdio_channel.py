"""Process set-up every stdio front-end shares: stderr logs, a private protocol channel, and
a SIGTERM that takes the tool processes with it."""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import logging
import logging.handlers
import os
import queue
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

from harness9.redaction import RedactingFilter

LOG_BATCH_SECONDS = 0.05


def configure_logging(level: str | None = None) -> None:
    """Everything to stderr, secrets redacted; the engine's block log without a prefix, as the
    seed prints it.

    The event loop only queues a record: a thread redacts, formats and writes it, so a slow
    reader of stderr (an editor's log view) or a long line never holds up a turn. The thread
    takes the records of `LOG_BATCH_SECONDS` at a time. What is queued is written before the
    process exits (not on SIGTERM, which leaves at once).
    """
    stderr = _Batched(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    stderr.addFilter(RedactingFilter())
    plain = _Batched(sys.stderr)
    plain.setFormatter(logging.Formatter("%(message)s"))
    plain.addFilter(RedactingFilter())
    # No record needs them (neither format shows them), and gathering them costs every record.
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    root = logging.getLogger()
    root.handlers[:] = [_queued(stderr)]
    root.setLevel(level or os.environ.get("HARNESS9_LOG_LEVEL", "INFO"))
    engine = logging.getLogger("harness9.engine")
    engine.handlers[:] = [_queued(plain, engine.name)]
    engine.propagate = False


def add_block_log_handler(handler: logging.Handler) -> None:
    """Also hand the engine's block log to `handler`, in the log thread, at INFO whatever
    the level of stderr's log (after `configure_logging`). The handler's `flush` is called
    after each batch of records."""
    engine = logging.getLogger("harness9.engine")
    listener = next(li for li in _listeners if li.name == engine.name)
    for existing in listener.handlers:
        existing.setLevel(max(existing.level, engine.getEffectiveLevel()))
    listener.handlers = (*listener.handlers, handler)
    engine.setLevel(min(logging.INFO, engine.getEffectiveLevel()))


def _queued(handler: logging.Handler, name: str = "") -> logging.Handler:
    """A handler that queues records for `handler`, which a thread of its own writes."""
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    listener = _BatchListener(records, handler, name)
    listener.start()
    atexit.register(listener.stop)
    _listeners.append(listener)
    return _RecordQueue(records)


class _BatchListener(logging.handlers.QueueListener):
    """A listener that, woken by a record, waits `LOG_BATCH_SECONDS` and then takes every
    record queued by then: one wake-up for a turn's records, not one each (every wake-up of
    the thread takes the interpreter from the event loop for a moment)."""

    def __init__(self, records: queue.SimpleQueue[Any], handler: logging.Handler,
                 name: str = "") -> None:
        super().__init__(records, handler, respect_handler_level=True)
        self.name = name  # the logger whose records it takes ("" for the root)
        self._records = records
        self._taken: collections.deque[Any] = collections.deque()

    def handle(self, record: logging.LogRecord) -> None:
        """Hand `record` on; at the end of a batch, flush the handlers."""
        super().handle(record)
        if not self._taken or self._taken[0] is None:  # None: the sentinel of `stop`
            for handler in self.handlers:
                handler.flush()

    def dequeue(self, block: bool) -> Any:
        if not self._taken:
            first = self._records.get(block)
            time.sleep(LOG_BATCH_SECONDS)  # the thread sleeps: queuing meanwhile wakes nothing
            self._taken.append(first)
            with contextlib.suppress(queue.Empty):
                while True:
                    self._taken.append(self._records.get_nowait())
        return self._taken.popleft()


class BatchHandler(logging.Handler):
    """A handler that keeps the formatted records of a batch and hands them on together
    (`deliver`) when flushed: the log's thread flushes its handlers after each batch."""

    def __init__(self, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self._texts: list[str] = []
        self._taking = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:
            self.handleError(record)
            return
        with self._taking:
            self._texts.append(text)

    def flush(self) -> None:
        with self._taking:
            texts, self._texts = self._texts, []
        if texts:
            self.deliver(texts)

    def deliver(self, texts: list[str]) -> None:
        """Hand on one batch's formatted records, oldest first."""
        raise NotImplementedError


class _Batched(BatchHandler):
    """Writes a batch of records to a stream at once (one write a batch, not one or more for
    each record: stderr is unbuffered or line-buffered)."""

    def __init__(self, stream: Any) -> None:
        super().__init__()
        self.stream = stream

    def deliver(self, texts: list[str]) -> None:
        self.stream.write("".join(f"{text}\n" for text in texts))
        self.stream.flush()


class _RecordQueue(logging.handlers.QueueHandler):
    """Queues the record itself: the listener's handler formats and redacts it in its thread.
    (`QueueHandler` would format it here first, on the event loop, and copy it.) Our log
    calls pass immutable arguments, so formatting later gives the same text."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record


_listeners: list[_BatchListener] = []


def write_queued_logs() -> None:
    """Write what the log queues hold now, before a process leaves without its exit handlers
    (later records are dropped). Not from a signal handler: it waits for the writer threads."""
    while _listeners:
        listener = _listeners.pop()
        atexit.unregister(listener.stop)
        listener.stop()


def claim_stdio() -> tuple[int, int]:
    """Private copies of fds 0 and 1 for the protocol; the real fds point elsewhere.

    A stray print, or a child process inheriting stdout, would otherwise corrupt the JSON-RPC
    stream for good, and a child inheriting stdin would eat the next client message.
    """
    rpc_in = os.dup(0)
    rpc_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return rpc_in, rpc_out


def reap_children_without_threads() -> None:
    """Python 3.11's asyncio starts a thread to wait for each child process (every bash call,
    every git of a checkpoint): there, wait through a pidfd on the event loop instead, as 3.12
    does by default. Call before the event loop starts."""
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return
    try:
        os.close(os.pidfd_open(os.getpid()))  # a kernel older than 5.3 has no pidfds
    except OSError:
        return
    asyncio.set_child_watcher(asyncio.PidfdChildWatcher())


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """Kill every tool process group, then leave at once (a graceful shutdown could block)."""
    try:
        from harness9.process.reaper import kill_all_groups

        kill_all_groups()
    finally:
        os._exit(128 + signum)


def exit_on_sigterm() -> None:
    """SIGTERM kills the tool processes and ends the daemon at once."""
    signal.signal(signal.SIGTERM, _on_sigterm)
