"""The tools the model can call, and the registry that runs them.

Stable API: `default_registry(workdir)` → `Registry` with `available_tools()` and
`await execute(ToolCall(...))` → `ToolResult`.

The names below load on first use: importing one light module of this package (the approval
policy, say, which the daemon's settings need at start-up) does not load every tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness9.process.tool_environment import ToolEnvironment
    from harness9.schema import ToolError
    from harness9.tools.bash import BashTool
    from harness9.tools.contract import BaseTool, ToolOutput, ToolTimeoutError
    from harness9.tools.defaults import default_registry
    from harness9.tools.edit_file import EditFileTool
    from harness9.tools.read_file import ReadFileTool
    from harness9.tools.registry import Registry
    from harness9.tools.write_file import WriteFileTool

_HOMES = {
    "BaseTool": "harness9.tools.contract",
    "ToolError": "harness9.schema",
    "ToolOutput": "harness9.tools.contract",
    "ToolTimeoutError": "harness9.tools.contract",
    "BashTool": "harness9.tools.bash",
    "default_registry": "harness9.tools.defaults",
    "EditFileTool": "harness9.tools.edit_file",
    "ToolEnvironment": "harness9.process.tool_environment",
    "ReadFileTool": "harness9.tools.read_file",
    "Registry": "harness9.tools.registry",
    "WriteFileTool": "harness9.tools.write_file",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


__all__ = [
    "BaseTool",
    "BashTool",
    "EditFileTool",
    "ReadFileTool",
    "Registry",
    "ToolEnvironment",
    "ToolError",
    "ToolOutput",
    "ToolTimeoutError",
    "WriteFileTool",
    "default_registry",
]
