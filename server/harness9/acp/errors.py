"""JSON-RPC errors of the ACP front-end, in the LSP front-end's classes."""

from __future__ import annotations

from acp import RequestError

from harness9.service.runs import RunError

REQUEST_FAILED = -32803  # the LSP front-end's RequestFailed: same code, same `data.kind`


def invalid_params(field: str, reason: str) -> RequestError:
    """-32602 whose message starts with the field's name."""
    return RequestError(-32602, f"{field}: {reason}", {"field": field})


def request_failed(exc: RunError) -> RequestError:
    """-32803 classified by `data.kind`, as the LSP front-end answers a failed run."""
    return RequestError(REQUEST_FAILED, exc.message, {"kind": exc.kind, **exc.data})
