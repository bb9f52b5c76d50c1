"""`context` items of `agent/run` and `agent/steer`: their shape checked, their images read,
and their paths placed in the workspace."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pygls.uris import to_fs_path

from harness9.lsp.param_fields import ParamsError
from harness9.schema import Image, ToolError
from harness9.service.attachments import KINDS, ContextItem, LineRange
from harness9.service.images import check_count, image_from
from harness9.workspace.safe_path import safe_path


@dataclass(frozen=True, slots=True)
class RawContextItem:
    """A `context` item whose shape is valid; `path` is still as the client gave it (a file
    system path from the URI), to be placed in the workspace by `bind_context`."""

    field: str  # `context[i]`, for messages
    path: str
    kind: str
    range: LineRange | None
    text: str | None


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
