"""Every method of the protocol: its direction, params and result records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness9.protocol import agent_requests as rq
from harness9.protocol import server_requests as sr
from harness9.protocol import session_requests as sq
from harness9.protocol import task_requests as tq
from harness9.protocol.progress_kinds import PROGRESS, kind_of
from harness9.protocol.shapes import ModelChoice

Direction = Literal["client_to_server", "server_to_client"]

VERSION = "1.3"


@dataclass(frozen=True, slots=True)
class Method:
    """One method: `result` is None for a notification."""

    name: str
    direction: Direction
    params: type
    result: type | None


def _client(name: str, params: type, result: type) -> Method:
    return Method(name, "client_to_server", params, result)


def _server(name: str, params: type, result: type) -> Method:
    return Method(name, "server_to_client", params, result)


CLIENT_METHODS: tuple[Method, ...] = (
    _client("agent/run", rq.RunParams, rq.RunResult),
    _client("agent/cancel", rq.CancelParams, rq.CancelResult),
    _client("agent/tools", rq.NoParams, rq.ToolsResult),
    _client("agent/checkpoints", rq.SessionParams, sq.CheckpointsResult),
    _client("agent/restore", sq.RestoreParams, sq.RestoreResult),
    _client("agent/sessions", sq.SessionsParams, sq.SessionsResult),
    _client("agent/session", rq.SessionParams, sq.SessionResult),
    _client("agent/deleteSession", rq.SessionParams, sq.DeleteSessionResult),
    _client("agent/compact", rq.SessionParams, sq.CompactResult),
    _client("agent/steer", rq.SteerParams, rq.SteerResult),
    _client("agent/queue", rq.SessionParams, rq.QueueResult),
    _client("agent/unqueue", rq.UnqueueParams, rq.UnqueueResult),
    _client("agent/models", rq.ModelsParams, rq.ModelsResult),
    _client("agent/setModel", rq.SetModelParams, ModelChoice),
    _client("agent/commands", rq.CommandsParams, rq.CommandsResult),
    _client("agent/changedSince", sq.ChangedSinceParams, sq.ChangedSinceResult),
    _client("agent/agents", rq.CommandsParams, rq.AgentsResult),
    _client("agent/tasks", rq.NoParams, tq.TasksResult),
    _client("agent/applyTask", rq.SessionParams, tq.ApplyTaskResult),
    _client("agent/discardTask", rq.SessionParams, tq.DiscardTaskResult),
)

SERVER_METHODS: tuple[Method, ...] = (
    _server("agent/requestApproval", sr.RequestApprovalParams, sr.RequestApprovalResult),
    _server("harness9/diagnostics", sr.DiagnosticsParams, sr.DiagnosticsResult),
    _server("harness9/languageQuery", sr.LanguageQueryParams, sr.LanguageQueryResult),
)

# `agent/progress` is the one notification; its params are one of the progress records.
PROGRESS_METHOD = "agent/progress"

METHODS: dict[str, Method] = {m.name: m for m in CLIENT_METHODS + SERVER_METHODS}


def method_names() -> list[str]:
    """The `agent/*` methods a daemon serves, as `initialize` announces them."""
    return [m.name for m in CLIENT_METHODS]


def progress_kinds() -> list[str]:
    """Every `agent/progress` kind, as `initialize` announces them."""
    return [kind_of(record) for record in PROGRESS]
