"""`agent/sessions`, `agent/session`, `agent/deleteSession` and `agent/compact` on the wire."""

from __future__ import annotations

from typing import Any

from harness9.lsp.lsp_errors import wire_errors
from harness9.schema import Message
from harness9.service.agent_service import AgentService
from harness9.service.config.settings import RunSettings
from harness9.service.sessions.session import Session, iso_time, run_cost
from harness9.service.sessions.session_log import SessionMeta, message_record, title_of


def list_sessions(service: AgentService, root: str) -> dict[str, Any]:
    """The `agent/sessions` result."""
    return {"sessions": [_listed(meta) for meta in service.sessions.stored(root)]}


def _listed(meta: SessionMeta) -> dict[str, Any]:
    return {
        "sessionId": meta.session_id,
        "title": meta.title,
        "workspaceRoot": meta.workspace_root,
        "createdAt": iso_time(meta.created_at),
        "updatedAt": iso_time(meta.updated_at),
        "runs": meta.runs,
        "turns": meta.turns,
        "usage": {"inputTokens": meta.input_tokens, "outputTokens": meta.output_tokens},
        "contextTokens": meta.context_tokens,
    }


def show_session(service: AgentService, session_id: str) -> dict[str, Any]:
    """The `agent/session` result."""
    with wire_errors():
        session, skipped = service.sessions.view(session_id)
    answer: dict[str, Any] = {
        "sessionId": session.id,
        "title": _title(session.runs),
        "messages": [_shown(m, session) for m in session.history],
        "runs": [_run(run) for run in session.runs],
    }
    if session.plan is not None:
        answer["plan"] = session.plan.as_dict()
    if session.model is not None:
        answer["model"] = session.model.as_wire()
    if skipped:
        answer["skippedLines"] = skipped  # damaged lines of the stored file, left out
    return answer


def _shown(message: Message, session: Session) -> dict[str, Any]:
    """A message as `agent/session` shows it: as stored, each tool call with its tool's kind
    as it ran and, when the session kept it, its `outcome`."""
    record = message_record(message)
    for call, shown in zip(message.tool_calls, record.get("toolCalls", ()), strict=True):
        shown["kind"] = session.call_kind(call).value
        found = session.calls.get(call.unique_id)
        if found is not None:
            shown["outcome"] = {k: v for k, v in found.items() if k != "kind"}
    return record


def _title(runs: list[dict[str, Any]]) -> str:
    return title_of(str(runs[0].get("prompt", ""))) if runs else ""


def _run(run: dict[str, Any]) -> dict[str, Any]:
    shown = {
        "runId": run.get("runId"),
        "prompt": run.get("prompt"),
        "status": run.get("status"),
        "turns": run.get("turns", 0),
        "toolCalls": run.get("toolCalls", 0),
        "startedAt": iso_time(float(run.get("startedAt", 0))),
    }
    if (cost := run_cost(run)) is not None:
        shown["costUsd"] = cost
    return shown


def delete_session(service: AgentService, session_id: str) -> dict[str, Any]:
    """The `agent/deleteSession` result."""
    with wire_errors():
        return {"deleted": service.sessions.delete(session_id)}


async def compact_session(
    service: AgentService, session_id: str, settings: RunSettings
) -> dict[str, Any]:
    """The `agent/compact` result."""
    with wire_errors():
        done = await service.sessions.compact(session_id, settings)
    return {"beforeTokens": done.before, "afterTokens": done.after, "method": done.method}
