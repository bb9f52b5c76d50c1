"""LSP lifecycle rules pygls leaves out: after `shutdown`, requests are refused, not ignored."""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol


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
