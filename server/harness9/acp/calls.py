"""How a tool call looks to an ACP client: its title, kind, locations and raw input."""

from __future__ import annotations

import json
import os
from typing import Any

from acp.schema import ToolCallLocation
from acp.schema import ToolKind as AcpToolKind

from harness9.schema import ToolCall, ToolKind
from harness9.tools.approvals.policy import FILE_KINDS
from harness9.tools.approvals.step import call_title

# Our kinds are ACP's names for the same things.
_ACP_KINDS: dict[ToolKind, AcpToolKind] = {
    ToolKind.READ: "read",
    ToolKind.EDIT: "edit",
    ToolKind.EXECUTE: "execute",
    ToolKind.OTHER: "other",
    ToolKind.THINK: "think",
}


def arguments_of(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as an object ({} when the model's JSON is broken or not an object)."""
    try:
        parsed = json.loads(call.arguments)
    except (json.JSONDecodeError, RecursionError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def raw_input(call: ToolCall) -> Any:
    """`rawInput`: the parsed arguments, or the raw text when it is not JSON."""
    try:
        return json.loads(call.arguments)
    except (json.JSONDecodeError, RecursionError):
        return call.arguments


def acp_kind(kind: ToolKind) -> AcpToolKind:
    """The ACP tool call `kind` of a tool of this kind."""
    return _ACP_KINDS[kind]


def title_of(call: ToolCall, kind: ToolKind, root: str) -> str:
    """`edit_file: src/a.py`, `bash: npm test`: what the client shows on the call's card."""
    return call_title(call.name, kind, arguments_of(call), root)


def target_path(call: ToolCall, kind: ToolKind, root: str) -> str | None:
    """The absolute path a file tool (read or edit) acts on (ACP paths are absolute), or None."""
    path = arguments_of(call).get("path")
    if kind not in FILE_KINDS or not isinstance(path, str) or not path:
        return None
    return os.path.normpath(os.path.join(root, path))


def locations_of(call: ToolCall, kind: ToolKind, root: str) -> list[ToolCallLocation] | None:
    """`locations`: the file the call reads or changes, so the client can follow along."""
    path = target_path(call, kind, root)
    return [ToolCallLocation(path=path)] if path is not None else None
