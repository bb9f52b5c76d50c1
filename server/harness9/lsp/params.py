"""Request params of the harness9 methods, converted from wire dicts and validated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness9.lsp.context_params import (
    RawContextItem,
    bind_context,
    parse_context,
    parse_images,
)
from harness9.lsp.param_fields import (
    ParamsError,
    optional_bool,
    optional_str,
    params_object,
    required_str,
)
from harness9.schema import Image
from harness9.service.config.settings import PROVIDERS, SettingsError, parse_overrides
from harness9.service.run_request import EXECUTE_PROMPT


@dataclass(frozen=True, slots=True)
class RunParams:
    """`agent/run` params."""

    prompt: str
    session_id: str | None
    workspace_folder: str | None
    work_done_token: str | int | None
    overrides: dict[str, Any]
    context: tuple[RawContextItem, ...] = ()
    queue: bool = True  # wait behind a running run of the session (false: busy)
    images: tuple[Image, ...] = ()  # the `context` items of kind `image`
    plan: bool = False  # plan mode for this run
    execute_plan: bool = False  # carry out the session's plan in its normal mode
    isolation: str | None = None  # "worktree": the run works in a git worktree of its own


@dataclass(frozen=True, slots=True)
class SteerParams:
    """`agent/steer` params."""

    run_id: str
    prompt: str
    context: tuple[RawContextItem, ...] = ()


@dataclass(frozen=True, slots=True)
class UnqueueParams:
    """`agent/unqueue` params."""

    session_id: str
    queue_id: str


@dataclass(frozen=True, slots=True)
class CancelParams:
    """`agent/cancel` params: one of the two ids."""

    run_id: str | None
    session_id: str | None


def parse_run_params(raw: Any) -> RunParams:
    """Validate `agent/run` params; raise `ParamsError` naming the first bad field."""
    params = params_object(raw, "agent/run")
    execute_plan = optional_bool(params, "executePlan", False)
    unsaid = execute_plan and params.get("prompt") is None
    prompt = EXECUTE_PROMPT if unsaid else _prompt(params)
    plan = optional_bool(params, "plan", False)
    if plan and execute_plan:
        raise ParamsError("plan and executePlan exclude each other: plan first, then execute")
    token = params.get("workDoneToken")
    if token is not None and (isinstance(token, bool) or not isinstance(token, str | int)):
        raise ParamsError(f"workDoneToken must be a string or an integer, got {token!r}")
    try:
        overrides = parse_overrides(params)
    except SettingsError as exc:
        raise ParamsError(str(exc)) from None
    return RunParams(
        prompt=prompt,
        session_id=optional_str(params, "sessionId"),
        workspace_folder=optional_str(params, "workspaceFolder"),
        work_done_token=token,
        overrides=overrides,
        context=parse_context(params.get("context")),
        queue=optional_bool(params, "queue", True),
        plan=plan,
        execute_plan=execute_plan,
        images=parse_images(params.get("context")),
        isolation=_isolation(params),
    )


def _isolation(params: Mapping[str, Any]) -> str | None:
    """`isolation`: absent, or `"worktree"`."""
    isolation = params.get("isolation")
    if isolation is not None and isolation != "worktree":
        raise ParamsError(f'isolation must be "worktree", got {isolation!r}')
    return isolation


def parse_steer_params(raw: Any) -> SteerParams:
    """Validate `agent/steer` params; raise `ParamsError` naming the first bad field."""
    params = params_object(raw, "agent/steer")
    return SteerParams(required_str(params, "runId"), _prompt(params),
                       parse_context(params.get("context")))


def parse_unqueue_params(raw: Any) -> UnqueueParams:
    """Validate `agent/unqueue` params."""
    params = params_object(raw, "agent/unqueue")
    return UnqueueParams(required_str(params, "sessionId"), required_str(params, "queueId"))


def _prompt(params: Mapping[str, Any]) -> str:
    prompt = params.get("prompt")
    if prompt is None:
        raise ParamsError("prompt is required: the user's message to the agent")
    if not isinstance(prompt, str):
        raise ParamsError(f"prompt must be a string, got {type(prompt).__name__}")
    if not prompt.strip():
        raise ParamsError("prompt must not be empty")
    return prompt


def parse_cancel_params(raw: Any) -> CancelParams:
    """Validate `agent/cancel` params: `runId` or `sessionId`."""
    params = params_object(raw, "agent/cancel")
    run_id = optional_str(params, "runId")
    session_id = optional_str(params, "sessionId")
    if run_id is None and session_id is None:
        raise ParamsError("runId or sessionId is required")
    return CancelParams(run_id=run_id, session_id=session_id)


@dataclass(frozen=True, slots=True)
class RestoreParams:
    """`agent/restore` params."""

    session_id: str
    checkpoint_id: str
    dry_run: bool = False  # only say which files a restore would put back
    files: tuple[str, ...] | None = None  # of those, only these


def parse_checkpoints_params(raw: Any) -> str:
    """Validate `agent/checkpoints` params; the session id."""
    return required_str(params_object(raw, "agent/checkpoints"), "sessionId")


def parse_changed_since_params(raw: Any) -> tuple[str, str]:
    """Validate `agent/changedSince` params: the session id and the checkpoint id."""
    params = params_object(raw, "agent/changedSince")
    return required_str(params, "sessionId"), required_str(params, "checkpointId")


def parse_restore_params(raw: Any) -> RestoreParams:
    """Validate `agent/restore` params: `sessionId`, `checkpointId`, `dryRun?`, `files?`."""
    params = params_object(raw, "agent/restore")
    files = params.get("files")
    if files is not None and not (
        isinstance(files, list) and all(isinstance(f, str) and f for f in files)
    ):
        raise ParamsError(f"files must be a list of workspace-relative paths, got {files!r}")
    return RestoreParams(
        session_id=required_str(params, "sessionId"),
        checkpoint_id=required_str(params, "checkpointId"),
        dry_run=optional_bool(params, "dryRun", False),
        files=None if files is None else tuple(files),
    )


def parse_session_id(raw: Any, method: str) -> str:
    """Validate params that name one session (`agent/session`, `agent/deleteSession`,
    `agent/compact`); the session id."""
    return required_str(params_object(raw, method), "sessionId")


def parse_sessions_params(raw: Any) -> str | None:
    """Validate `agent/sessions` params; the workspace folder asked for, if any."""
    return optional_str(params_object(raw, "agent/sessions"), "workspaceFolder")


@dataclass(frozen=True, slots=True)
class ModelsParams:
    """`agent/models` params."""

    provider: str | None
    session_id: str | None
    refresh: bool


@dataclass(frozen=True, slots=True)
class SetModelParams:
    """`agent/setModel` params."""

    session_id: str
    provider: str | None
    model: str
    reasoning_effort: str | None


def parse_models_params(raw: Any) -> ModelsParams:
    """Validate `agent/models` params."""
    params = params_object(raw, "agent/models")
    provider = optional_str(params, "provider")
    if provider is not None and provider not in PROVIDERS:
        raise ParamsError(f"provider must be one of {', '.join(PROVIDERS)}, got {provider!r}")
    return ModelsParams(provider, optional_str(params, "sessionId"),
                        optional_bool(params, "refresh", False))


def parse_set_model_params(raw: Any) -> SetModelParams:
    """Validate `agent/setModel` params."""
    params = params_object(raw, "agent/setModel")
    session_id = required_str(params, "sessionId")
    try:
        chosen = parse_overrides({key: params.get(key) for key in
                                  ("provider", "model", "reasoningEffort")})
    except SettingsError as exc:
        raise ParamsError(str(exc)) from None
    if "model" not in chosen:
        raise ParamsError("model is required: the model id the session runs on")
    return SetModelParams(session_id, chosen.get("provider"), chosen["model"],
                          chosen.get("reasoning_effort"))


def parse_commands_params(raw: Any) -> tuple[str | None, str | None]:
    """Validate `agent/commands` params: the session id and the workspace folder, if given."""
    params = params_object(raw, "agent/commands")
    return optional_str(params, "sessionId"), optional_str(params, "workspaceFolder")


__all__ = ["ParamsError", "RawContextItem", "bind_context", "parse_context"]
