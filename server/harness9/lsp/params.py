"""Request params of the harness9 methods, converted from wire dicts and validated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness9.service.settings import SettingsError, parse_overrides


class ParamsError(ValueError):
    """Params do not fit the method; the message names the field and the reason."""


@dataclass(frozen=True, slots=True)
class RunParams:
    """`agent/run` params."""

    prompt: str
    session_id: str | None
    workspace_folder: str | None
    work_done_token: str | int | None
    overrides: dict[str, Any]


@dataclass(frozen=True, slots=True)
class CancelParams:
    """`agent/cancel` params: one of the two ids."""

    run_id: str | None
    session_id: str | None


def _object(raw: Any, method: str) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ParamsError(f"{method} params must be an object, got {type(raw).__name__}")
    return raw


def _optional_str(raw: Mapping[str, Any], name: str) -> str | None:
    value = raw.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ParamsError(f"{name} must be a non-empty string, got {value!r}")
    return value


def parse_run_params(raw: Any) -> RunParams:
    """Validate `agent/run` params; raise `ParamsError` naming the first bad field."""
    params = _object(raw, "agent/run")
    prompt = params.get("prompt")
    if prompt is None:
        raise ParamsError("prompt is required: the user's message to the agent")
    if not isinstance(prompt, str):
        raise ParamsError(f"prompt must be a string, got {type(prompt).__name__}")
    if not prompt.strip():
        raise ParamsError("prompt must not be empty")
    token = params.get("workDoneToken")
    if token is not None and (isinstance(token, bool) or not isinstance(token, str | int)):
        raise ParamsError(f"workDoneToken must be a string or an integer, got {token!r}")
    try:
        overrides = parse_overrides(params)
    except SettingsError as exc:
        raise ParamsError(str(exc)) from None
    return RunParams(
        prompt=prompt,
        session_id=_optional_str(params, "sessionId"),
        workspace_folder=_optional_str(params, "workspaceFolder"),
        work_done_token=token,
        overrides=overrides,
    )


def parse_cancel_params(raw: Any) -> CancelParams:
    """Validate `agent/cancel` params: `runId` or `sessionId`."""
    params = _object(raw, "agent/cancel")
    run_id = _optional_str(params, "runId")
    session_id = _optional_str(params, "sessionId")
    if run_id is None and session_id is None:
        raise ParamsError("runId or sessionId is required")
    return CancelParams(run_id=run_id, session_id=session_id)


@dataclass(frozen=True, slots=True)
class RestoreParams:
    """`agent/restore` params."""

    session_id: str
    checkpoint_id: str


def _required_str(raw: Mapping[str, Any], name: str) -> str:
    value = _optional_str(raw, name)
    if value is None:
        raise ParamsError(f"{name} is required")
    return value


def parse_checkpoints_params(raw: Any) -> str:
    """Validate `agent/checkpoints` params; the session id."""
    return _required_str(_object(raw, "agent/checkpoints"), "sessionId")


def parse_restore_params(raw: Any) -> RestoreParams:
    """Validate `agent/restore` params: `sessionId` and `checkpointId`."""
    params = _object(raw, "agent/restore")
    return RestoreParams(
        session_id=_required_str(params, "sessionId"),
        checkpoint_id=_required_str(params, "checkpointId"),
    )


def parse_session_id(raw: Any, method: str) -> str:
    """Validate params that name one session (`agent/session`, `agent/deleteSession`,
    `agent/compact`); the session id."""
    return _required_str(_object(raw, method), "sessionId")


def parse_sessions_params(raw: Any) -> str | None:
    """Validate `agent/sessions` params; the workspace folder asked for, if any."""
    return _optional_str(_object(raw, "agent/sessions"), "workspaceFolder")
