"""The daemon's own JSON-RPC error: -32803 RequestFailed, classified by `data.kind`."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException

REQUEST_FAILED = -32803


def request_failed(message: str, data: dict[str, Any]) -> JsonRpcException:
    """A -32803 RequestFailed error; `data.kind` classifies the failure."""
    return JsonRpcException(message=message, code=REQUEST_FAILED, data=data)
