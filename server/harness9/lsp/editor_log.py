"""The block log's tool blocks in the editor's log view (`window/logMessage`, Info).

A handler of the engine's block log (`add_block_log_handler`): it runs in the log's thread,
where a block is formatted once for stderr and the editor, and it sends the blocks of a batch
of records (`LOG_BATCH_SECONDS`) as one message: a quick run costs the editor a message or two,
not two for every tool call, and the event loop nothing.
"""

from __future__ import annotations

import logging
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

    def deliver(self, texts: list[str]) -> None:
        self._send("\n".join(texts))
