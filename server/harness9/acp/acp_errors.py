"""JSON-RPC errors of the ACP front-end, and the one place the service's errors become them,
in the LSP front-end's classes:

| service error       | JSON-RPC error                                               |
|---------------------|--------------------------------------------------------------|
| `UnknownSession`    | -32602, message `sessionId: …`, `data.field`                 |
| `UnknownCheckpoint` | -32602, message `checkpointId: …`, `data.field`              |
| `RunError`          | -32803, `data.kind` (+ `status`, `runId`, `sessionId`)       |

A cancelled run is no error in ACP: `session/prompt` answers stop reason `cancelled`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from acp import RequestError

from harness9.service.service_errors import RunError, UnknownCheckpoint, UnknownSession

REQUEST_FAILED = -32803  # the LSP front-end's RequestFailed: same code, same `data.kind`


def invalid_params(field: str, reason: str) -> RequestError:
    """-32602 whose message starts with the field's name."""
    return RequestError(-32602, f"{field}: {reason}", {"field": field})


def workspace_root(cwd: str) -> str:
    """`cwd` as the workspace root: an absolute path to an existing folder (-32602 naming
    `cwd`)."""
    if not os.path.isabs(cwd):
        raise invalid_params("cwd", f"must be an absolute path, got {cwd!r}")
    if not os.path.isdir(cwd):
        raise invalid_params("cwd", f"{cwd} is not a folder")
    return cwd


def request_failed(exc: RunError) -> RequestError:
    """-32803 classified by `data.kind`, as the LSP front-end answers a failed run."""
    return RequestError(REQUEST_FAILED, exc.message, {"kind": exc.kind, **exc.data})


@contextmanager
def wire_errors() -> Iterator[None]:
    """Answers a handler's service errors as the JSON-RPC errors of the table above."""
    try:
        yield
    except UnknownSession as exc:
        raise invalid_params("sessionId", str(exc)) from None
    except UnknownCheckpoint as exc:
        raise invalid_params("checkpointId", str(exc)) from None
    except RunError as exc:
        raise request_failed(exc) from None
