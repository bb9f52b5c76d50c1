"""The block log's tool blocks in the editor's log view (`window/logMessage`, Info).

A handler of the engine's block log (`add_block_log_handler`): it runs in the log's thread,
where a block is formatted once for stderr and the editor, and it sends the blocks of a batch
of records (`LOG_BATCH_SECONDS`) as one message: a quick run costs the editor a message or two,
not two for every tool call, and the event loop nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from harness9.process.stdio_channel import BatchHandler
from harness9.redaction import RedactingFilter

SHOWN = frozenset({"tool_started", "tool_finished"})  # the event kinds the editor's log gets


def _shown(record: logging.LogRecord) -> bool:
    return getattr(record, "event", None) in SHOWN


class EditorLog(BatchHandler):
    """Collects the (redacted) blocks of tool starts and ends and sends each batch's, joined,
    to `send`."""

    def __init__(self, send: Callable[[str], None]) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(logging.Formatter("%(message)s"))
        self.addFilter(_shown)  # first: nothing else is redacted twice
        self.addFilter(RedactingFilter())
        self._send = send
        self._sending = threading.Lock()
        self._stopped = False
        _live.append(self)

    def deliver(self, texts: list[str]) -> None:
        with self._sending:
            if not self._stopped:
                self._send("\n".join(texts))

    def stop(self) -> None:
        """Send what is collected now, then nothing more (a batch being sent goes first)."""
        self.flush()
        with self._sending:
            self._stopped = True


_live: list[EditorLog] = []


def stop_sending() -> None:
    """The client asked to shut down: it gets no log message after the answer (the blocks
    still queued go to stderr only)."""
    for handler in _live:
        handler.stop()
