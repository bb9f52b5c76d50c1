"""Process set-up for `harness9 serve`: a private protocol channel, stderr logs, clean exits."""

from __future__ import annotations

import logging
import os
import signal
import sys
from types import FrameType

from pygls.exceptions import JsonRpcException


class _AnsweredErrors(logging.Filter):
    """Drops pygls' tracebacks for errors we raise on purpose: they are answered to the client."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, JsonRpcException)


def configure_logging(level: str | None = None) -> None:
    """Everything to stderr; the engine's block log without a prefix, as the seed prints it."""
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [stderr]
    root.setLevel(level or os.environ.get("HARNESS9_LOG_LEVEL", "INFO"))
    engine = logging.getLogger("harness9.engine")
    plain = logging.StreamHandler(sys.stderr)
    plain.setFormatter(logging.Formatter("%(message)s"))
    engine.handlers[:] = [plain]
    engine.propagate = False
    pygls_log = logging.getLogger("pygls")
    pygls_log.setLevel(logging.WARNING)  # at INFO it logs every message body
    for handler in root.handlers:
        handler.addFilter(_AnsweredErrors())


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


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """Kill every tool process group, then leave at once (pygls' shutdown would block on stdin)."""
    try:
        from harness9.tools.process_reaper import kill_all_groups

        kill_all_groups()
    finally:
        os._exit(128 + signum)


def main() -> None:
    """Serve the protocol on stdin/stdout until the client exits or the connection ends.

    Exit code 0 after `shutdown` and `exit`, or when stdin closes; 1 for `exit` without
    `shutdown`, a frame that cannot be read, or a client that stopped taking our output.
    """
    configure_logging()
    rpc_in, rpc_out = claim_stdio()
    signal.signal(signal.SIGTERM, _on_sigterm)
    from harness9.lsp.server import server
    from harness9.lsp.transport import serve_stdio

    code = serve_stdio(server.protocol, rpc_in, rpc_out, server.report_server_error)
    sys.exit(code)
