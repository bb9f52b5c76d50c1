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

from harness9.redaction import RedactingFilter

SHOWN = frozenset({"tool_started", "tool_finished"})  # the event kinds the editor's log gets


def _shown(record: logging.LogRecord) -> bool:
    return getattr(record, "event", None) in SHOWN


class EditorLog(logging.Handler):
    """Collects the (redacted) blocks of tool starts and ends; `flush` sends them, joined, to
    `send`."""

    def __init__(self, send: Callable[[str], None]) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(logging.Formatter("%(message)s"))
        self.addFilter(_shown)  # first: nothing else is redacted twice
        self.addFilter(RedactingFilter())
        self._send = send
        self._blocks: list[str] = []
        self._taking = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._taking:
            self._blocks.append(self.format(record))

    def flush(self) -> None:
        with self._taking:
            blocks, self._blocks = self._blocks, []
        if blocks:
            self._send("\n".join(blocks))
