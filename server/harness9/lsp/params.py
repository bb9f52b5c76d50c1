"""Request params of the harness9 methods, converted from wire dicts and validated."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pygls.uris import to_fs_path

from harness9.schema import Image, ToolError
from harness9.service.attachments import KINDS, ContextItem, LineRange
from harness9.service.config.settings import PROVIDERS, SettingsError, parse_overrides
from harness9.service.images import check_count, image_from
from harness9.service.run_request import EXECUTE_PROMPT
from harness9.workspace.safe_path import safe_path


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
    context: tuple[RawContextItem, ...] = ()
    queue: bool = True  # wait behind a running run of the session (false: busy)
    images: tuple[Image, ...] = ()  # the `context` items of kind `image`
    plan: bool = False  # plan mode for this run
    execute_plan: bool = False  # carry out the session's plan in its normal mode


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
class RawContextItem:
    """A `context` item whose shape is valid; `path` is still as the client gave it (a file
    system path from the URI), to be placed in the workspace by `bind_context`."""

    field: str  # `context[i]`, for messages
    path: str
    kind: str
    range: LineRange | None
    text: str | None


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
    execute_plan = _optional_bool(params, "executePlan", False)
    unsaid = execute_plan and params.get("prompt") is None
    prompt = EXECUTE_PROMPT if unsaid else _prompt(params)
    plan = _optional_bool(params, "plan", False)
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
        session_id=_optional_str(params, "sessionId"),
        workspace_folder=_optional_str(params, "workspaceFolder"),
        work_done_token=token,
        overrides=overrides,
        context=parse_context(params.get("context")),
        queue=_optional_bool(params, "queue", True),
        plan=plan,
        execute_plan=execute_plan,
        images=parse_images(params.get("context")),
    )


def parse_steer_params(raw: Any) -> SteerParams:
    """Validate `agent/steer` params; raise `ParamsError` naming the first bad field."""
    params = _object(raw, "agent/steer")
    return SteerParams(_required_str(params, "runId"), _prompt(params),
                       parse_context(params.get("context")))


def parse_unqueue_params(raw: Any) -> UnqueueParams:
    """Validate `agent/unqueue` params."""
    params = _object(raw, "agent/unqueue")
    return UnqueueParams(_required_str(params, "sessionId"), _required_str(params, "queueId"))


def _prompt(params: Mapping[str, Any]) -> str:
    prompt = params.get("prompt")
    if prompt is None:
        raise ParamsError("prompt is required: the user's message to the agent")
    if not isinstance(prompt, str):
        raise ParamsError(f"prompt must be a string, got {type(prompt).__name__}")
    if not prompt.strip():
        raise ParamsError("prompt must not be empty")
    return prompt


def _optional_bool(raw: Mapping[str, Any], name: str, default: bool) -> bool:
    value = raw.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ParamsError(f"{name} must be a boolean, got {value!r}")
    return value


_MAX_CONTEXT_ITEMS = 100


def parse_context(raw: Any) -> tuple[RawContextItem, ...]:
    """Validate the shape of `agent/run`'s `context` (absent or null: none); its images are
    `parse_images`'s."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ParamsError(f"context must be a list of items, got {type(raw).__name__}")
    if len(raw) > _MAX_CONTEXT_ITEMS:
        raise ParamsError(f"context has {len(raw)} items; at most {_MAX_CONTEXT_ITEMS} are taken")
    return tuple(_context_item(item, f"context[{i}]") for i, item in enumerate(raw)
                 if not _is_image(item))


def parse_images(raw: Any) -> tuple[Image, ...]:
    """The `context` items of kind `image`: `{kind: "image", mimeType, data}` (base64), for a
    model that sees images (`parse_context` has checked the list itself)."""
    if not isinstance(raw, list):
        return ()
    images = []
    for i, item in enumerate(raw):
        if not _is_image(item):
            continue
        mime, data = item.get("mimeType"), item.get("data")
        if not isinstance(mime, str) or not isinstance(data, str):
            raise ParamsError(f"context[{i}]: an image needs mimeType and data (base64) strings")
        try:
            images.append(image_from(mime, data))
        except ValueError as exc:
            raise ParamsError(f"context[{i}]: {exc}") from None
    try:
        check_count(tuple(images))
    except ValueError as exc:
        raise ParamsError(f"context: {exc}") from None
    return tuple(images)


def _is_image(item: Any) -> bool:
    return isinstance(item, Mapping) and item.get("kind") == "image"


def _context_item(raw: Any, name: str) -> RawContextItem:
    if not isinstance(raw, Mapping):
        raise ParamsError(f"{name} must be an object with uri, got {type(raw).__name__}")
    uri = raw.get("uri")
    if not isinstance(uri, str) or not uri:
        raise ParamsError(f"{name}.uri is required: a file URI inside the workspace")
    text = raw.get("text")
    if text is not None and not isinstance(text, str):
        raise ParamsError(f"{name}.text must be a string, got {type(text).__name__}")
    line_range = _range(raw.get("range"), f"{name}.range")
    kind = raw.get("kind") or ("selection" if line_range is not None else "file")
    if kind not in KINDS:
        known = ", ".join(KINDS)
        raise ParamsError(f"{name}.kind must be one of {known}, got {kind!r}")
    if kind in ("diagnostics", "note") and text is None:
        raise ParamsError(f"{name}.text is required for kind {kind!r}")
    return RawContextItem(name, _file_path(uri, f"{name}.uri"), kind, line_range, text)


def _file_path(uri: str, name: str) -> str:
    if "://" not in uri:
        return uri  # a plain path (workspace-relative or absolute)
    if not uri.startswith("file://"):
        raise ParamsError(f"{name}: {uri} is not a file URI; only files of the workspace attach")
    path = to_fs_path(uri)
    if not path:
        raise ParamsError(f"{name}: {uri} is not a valid file URI")
    return path


def _range(raw: Any, name: str) -> LineRange | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ParamsError(f"{name} must be an LSP range {{start, end}}, got {raw!r}")
    start = _position(raw.get("start"), f"{name}.start")
    end = _position(raw.get("end"), f"{name}.end")
    if end < start:
        raise ParamsError(f"{name}.end must not come before {name}.start")
    return LineRange(start[0], start[1], end[0], end[1])


def _position(raw: Any, name: str) -> tuple[int, int]:
    if not isinstance(raw, Mapping):
        raise ParamsError(f"{name} must be a position {{line, character}}, got {raw!r}")
    values = []
    for key in ("line", "character"):
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ParamsError(f"{name}.{key} must be an integer ≥ 0, got {value!r}")
        values.append(value)
    return values[0], values[1]


def bind_context(items: Sequence[RawContextItem], root: str) -> tuple[ContextItem, ...]:
    """The items placed in the workspace `root`: paths made workspace-relative; an item whose
    path leaves the workspace (also through a symbolic link) is a `ParamsError` naming it."""
    real_root = os.path.realpath(root)
    bound = []
    for item in items:
        try:
            real = safe_path(root, item.path)
        except ToolError as exc:
            reason = str(exc).removeprefix("Error: ")
            raise ParamsError(f"{item.field}.uri: {reason}") from None
        relative = os.path.relpath(real, real_root).replace(os.sep, "/")
        bound.append(ContextItem(relative, item.kind, item.range, item.text))
    return tuple(bound)


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
    dry_run: bool = False  # only say which files a restore would put back
    files: tuple[str, ...] | None = None  # of those, only these


def _required_str(raw: Mapping[str, Any], name: str) -> str:
    value = _optional_str(raw, name)
    if value is None:
        raise ParamsError(f"{name} is required")
    return value


def parse_checkpoints_params(raw: Any) -> str:
    """Validate `agent/checkpoints` params; the session id."""
    return _required_str(_object(raw, "agent/checkpoints"), "sessionId")


def parse_changed_since_params(raw: Any) -> tuple[str, str]:
    """Validate `agent/changedSince` params: the session id and the checkpoint id."""
    params = _object(raw, "agent/changedSince")
    return _required_str(params, "sessionId"), _required_str(params, "checkpointId")


def parse_restore_params(raw: Any) -> RestoreParams:
    """Validate `agent/restore` params: `sessionId`, `checkpointId`, `dryRun?`, `files?`."""
    params = _object(raw, "agent/restore")
    files = params.get("files")
    if files is not None and not (
        isinstance(files, list) and all(isinstance(f, str) and f for f in files)
    ):
        raise ParamsError(f"files must be a list of workspace-relative paths, got {files!r}")
    return RestoreParams(
        session_id=_required_str(params, "sessionId"),
        checkpoint_id=_required_str(params, "checkpointId"),
        dry_run=_optional_bool(params, "dryRun", False),
        files=None if files is None else tuple(files),
    )


def parse_session_id(raw: Any, method: str) -> str:
    """Validate params that name one session (`agent/session`, `agent/deleteSession`,
    `agent/compact`); the session id."""
    return _required_str(_object(raw, method), "sessionId")


def parse_sessions_params(raw: Any) -> str | None:
    """Validate `agent/sessions` params; the workspace folder asked for, if any."""
    return _optional_str(_object(raw, "agent/sessions"), "workspaceFolder")


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
    params = _object(raw, "agent/models")
    provider = _optional_str(params, "provider")
    if provider is not None and provider not in PROVIDERS:
        raise ParamsError(f"provider must be one of {', '.join(PROVIDERS)}, got {provider!r}")
    return ModelsParams(provider, _optional_str(params, "sessionId"),
                        _optional_bool(params, "refresh", False))


def parse_set_model_params(raw: Any) -> SetModelParams:
    """Validate `agent/setModel` params."""
    params = _object(raw, "agent/setModel")
    session_id = _required_str(params, "sessionId")
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
    params = _object(raw, "agent/commands")
    return _optional_str(params, "sessionId"), _optional_str(params, "workspaceFolder")
