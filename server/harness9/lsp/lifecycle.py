"""The daemon's protocol class: the LSP lifecycle rules pygls leaves out (after `shutdown`,
requests are refused, not ignored), and our capabilities in the `initialize` answer."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

PROTOCOL_VERSION = "1.1"
METHODS = [
    "agent/run", "agent/cancel", "agent/tools", "agent/checkpoints", "agent/restore",
    "agent/sessions", "agent/session", "agent/deleteSession", "agent/compact",
]
PROGRESS_KINDS = [
    "run_started", "turn_started", "thinking", "text_delta", "assistant_message",
    "tool_started", "approval_requested", "approval_resolved", "tool_completed", "tool_failed",
    "observation", "usage", "run_finished", "checkpoint", "checkpoints_off",
    "context_compacted",
]


class LifecycleProtocol(LanguageServerProtocol):
    """pygls' protocol, but a request after `shutdown` gets -32600 instead of no answer.

    (pygls already ends with exit code 0 for an `exit` after `shutdown` and 1 without; our
    transport lets that code reach the process.)
    """

    def handle_message(self, message: Any) -> None:
        """Answer requests that arrive after `shutdown` with InvalidRequest; pass the rest on."""
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if self._shutdown and method not in (None, types.EXIT) and msg_id is not None:
            error = JsonRpcInvalidRequest(message=f"{method}: the server is shutting down")
            self._send_response(msg_id, None, error.to_response_error())
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' initialize, plus `capabilities.experimental.harness9`."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {
            "harness9": {
                "protocolVersion": PROTOCOL_VERSION,
                "methods": METHODS,
                "progressKinds": PROGRESS_KINDS,
            }
        }
        return result
