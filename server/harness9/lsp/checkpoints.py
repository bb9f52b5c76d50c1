"""`agent/checkpoints` and `agent/restore` on the wire: the service's checkpoints of a session,
and its errors as JSON-RPC errors."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from harness9.lsp.errors import request_failed
from harness9.lsp.params import RestoreParams
from harness9.service.runs import AgentService, RunError, UnknownCheckpoint, UnknownSession
from harness9.service.sessions import SessionCheckpoint, iso_time


def list_checkpoints(service: AgentService, session_id: str) -> dict[str, Any]:
    """The `agent/checkpoints` result."""
    try:
        checkpoints = service.checkpoints(session_id)
    except UnknownSession as exc:
        raise JsonRpcInvalidParams(message=f"sessionId: {exc}") from None
    return {"checkpoints": [_wire(c) for c in checkpoints]}


async def restore(service: AgentService, params: RestoreParams) -> dict[str, Any]:
    """The `agent/restore` result, or its error."""
    try:
        restored = await service.restore(params.session_id, params.checkpoint_id)
    except UnknownSession as exc:
        raise JsonRpcInvalidParams(message=f"sessionId: {exc}") from None
    except UnknownCheckpoint as exc:
        raise JsonRpcInvalidParams(message=f"checkpointId: {exc}") from None
    except RunError as exc:
        raise request_failed(exc.message, {"kind": exc.kind, **exc.data}) from None
    return {"restored": list(restored.paths)}


def _wire(checkpoint: SessionCheckpoint) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "checkpointId": checkpoint.checkpoint_id,
        "runId": checkpoint.run_id,
        "turn": checkpoint.turn,
        "createdAt": iso_time(checkpoint.created_at),
        "files": [f.path for f in checkpoint.files],
    }
    if checkpoint.undoes is not None:
        fields["undoes"] = checkpoint.undoes
    return fields
