"""`agent/checkpoints` and `agent/restore` on the wire: the service's checkpoints of a session,
and its errors as JSON-RPC errors."""

from __future__ import annotations

from typing import Any

from harness9.lsp.lsp_errors import wire_errors
from harness9.lsp.params import RestoreParams
from harness9.service.agent_service import AgentService
from harness9.service.checkpoints.files_then import FileThen
from harness9.service.sessions.session import SessionCheckpoint, iso_time


def list_checkpoints(service: AgentService, session_id: str) -> dict[str, Any]:
    """The `agent/checkpoints` result."""
    with wire_errors():
        checkpoints = service.checkpoints.listing(session_id)
    return {"checkpoints": [_wire(c) for c in checkpoints]}


async def restore(service: AgentService, params: RestoreParams) -> dict[str, Any]:
    """The `agent/restore` result, or its error; with `dryRun`, what it would restore."""
    with wire_errors():
        if params.dry_run:
            paths = await service.checkpoints.would_restore(
                params.session_id, params.checkpoint_id, params.files)
            return {"restored": list(paths), "dryRun": True}
        restored = await service.checkpoints.restore(
            params.session_id, params.checkpoint_id, params.files)
    return {"restored": list(restored.paths)}


async def changed_since(
    service: AgentService, session_id: str, checkpoint_id: str
) -> dict[str, Any]:
    """The `agent/changedSince` result: each file a restore would put back, as it was then."""
    with wire_errors():
        files = await service.checkpoints.changed_since(session_id, checkpoint_id)
    return {"files": [_file_then(f) for f in files]}


def _file_then(file: FileThen) -> dict[str, Any]:
    fields: dict[str, Any] = {"path": file.path, "existed": file.existed}
    if file.text is not None:
        fields["text"] = file.text
    if file.skipped is not None:
        fields["skipped"] = file.skipped
    return fields


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
