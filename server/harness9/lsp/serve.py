"""Process set-up for `harness9 serve`: a private protocol channel, stderr logs, clean exits."""

from __future__ import annotations

import asyncio
import logging
import sys

from pygls.exceptions import JsonRpcException

from harness9.process import stdio_channel as stdio
from harness9.process.hardening import harden
from harness9.process.process_end import parent_to_watch
from harness9.redaction import looks_secret

INFO = 3  # `window/logMessage`'s MessageType.Info


class _AnsweredErrors(logging.Filter):
    """Drops pygls' tracebacks for errors we raise on purpose: they are answered to the
    client. And asyncio's for a handler that was cancelled: when the connection ends, the
    handlers still running are cancelled and pygls' callback reads each one's result, which
    asyncio would log as "Exception in callback" with a traceback; the reason the connection
    ended is already logged, on one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, JsonRpcException | asyncio.CancelledError)


def configure_logging(level: str | None = None) -> None:
    """The shared stderr logging, with pygls quiet and our answered errors without tracebacks."""
    stdio.configure_logging(level)
    pygls_log = logging.getLogger("pygls")
    pygls_log.setLevel(logging.WARNING)  # at INFO it logs every message body
    for handler in logging.getLogger().handlers:
        handler.addFilter(_AnsweredErrors())


def main() -> None:
    """Serve the protocol on stdin/stdout until the client exits or the connection ends.

    Exit code 0 after `shutdown` and `exit`, when stdin closes or when the editor's process
    ends (the `processId` of `initialize`, or the daemon's parent); 1 for `exit` without
    `shutdown`, a frame that cannot be read, or a client that stopped taking our output.
    """
    parent = parent_to_watch()  # first: it may end while we start
    configure_logging()
    harden(looks_secret)
    rpc_in, rpc_out = stdio.claim_stdio()
    stdio.exit_on_sigterm()
    stdio.reap_children_without_threads()
    from harness9.lsp.editor_log import EditorLog
    from harness9.lsp.server import server
    from harness9.lsp.transport import send_notification, serve_stdio

    def window_log(text: str) -> None:
        send_notification(server.protocol, "window/logMessage", {"type": INFO, "message": text})

    stdio.add_block_log_handler(EditorLog(window_log))

    code = serve_stdio(server.protocol, rpc_in, rpc_out, server.report_server_error, parent)
    sys.exit(code)
