"""How a tool call looks to an ACP client: its title, kind, locations and raw input."""

from __future__ import annotations

import json
import os
from typing import Any

from acp.schema import ToolCallLocation, ToolKind

from harness9.schema import ToolCall
from harness9.tools.approvals.policy import EDIT_TOOLS, READ_TOOLS
from harness9.tools.approvals.step import call_title

_KINDS: dict[str, ToolKind] = {
    **{name: "read" for name in READ_TOOLS},
    **{name: "edit" for name in EDIT_TOOLS},
    "bash": "execute",
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


def kind_of(tool: str) -> ToolKind:
    """`read`, `edit` or `execute` for our tools; `other` for the rest (MCP tools)."""
    return _KINDS.get(tool, "other")


def title_of(call: ToolCall, root: str) -> str:
    """`edit_file: src/a.py`, `bash: npm test`: what the client shows on the call's card."""
    return call_title(call.name, arguments_of(call), root)


def target_path(call: ToolCall, root: str) -> str | None:
    """The absolute path a file tool acts on (ACP paths are absolute), or None."""
    path = arguments_of(call).get("path")
    if call.name not in _KINDS or not isinstance(path, str) or not path:
        return None
    return os.path.normpath(os.path.join(root, path))


def locations_of(call: ToolCall, root: str) -> list[ToolCallLocation] | None:
    """`locations`: the file the call reads or changes, so the client can follow along."""
    path = target_path(call, root)
    return [ToolCallLocation(path=path)] if path is not None else None
