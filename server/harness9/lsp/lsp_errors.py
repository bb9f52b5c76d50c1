"""The daemon's JSON-RPC errors, and the one place the service's errors become them.

| service error       | JSON-RPC error                                                    |
|---------------------|-------------------------------------------------------------------|
| `UnknownSession`    | -32602 InvalidParams, message `sessionId: …`                      |
| `UnknownCheckpoint` | -32602 InvalidParams, message `checkpointId: …`                   |
| `RunError`          | -32803 RequestFailed, `data.kind` (+ `status`, `runId`, `sessionId`) |
| `UnknownRun`        | -32602 InvalidParams, message `runId: …`                          |
| `RunCancelled`      | -32800 RequestCancelled, `data.runId`, `data.sessionId` (+ `reason`) |
| `NotARepository`    | -32602 InvalidParams, message `isolation: …`                      |
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcRequestCancelled

from harness9.service.service_errors import (
    NotARepository,
    RunCancelled,
    RunError,
    UnknownCheckpoint,
    UnknownRun,
    UnknownSession,
)

REQUEST_FAILED = -32803


def request_failed(message: str, data: dict[str, Any]) -> JsonRpcException:
    """A -32803 RequestFailed error; `data.kind` classifies the failure."""
    return JsonRpcException(message=message, code=REQUEST_FAILED, data=data)


@contextmanager
def wire_errors() -> Iterator[None]:
    """Answers a handler's service errors as the JSON-RPC errors of the table above."""
    try:
        yield
    except UnknownSession as exc:
        raise JsonRpcInvalidParams(message=f"sessionId: {exc}") from None
    except UnknownCheckpoint as exc:
        raise JsonRpcInvalidParams(message=f"checkpointId: {exc}") from None
    except UnknownRun as exc:
        raise JsonRpcInvalidParams(message=f"runId: {exc}") from None
    except NotARepository as exc:
        raise JsonRpcInvalidParams(message=f"isolation: {exc}") from None
    except RunError as exc:
        raise request_failed(exc.message, {"kind": exc.kind, **exc.data}) from None
    except RunCancelled as exc:
        data = {"runId": exc.run_id, "sessionId": exc.session_id}
        if exc.reason is not None:
            data["reason"] = exc.reason
        raise JsonRpcRequestCancelled(message=str(exc), data=data) from None
