"""The registry of the four built-in tools, as the seed lists them."""

from __future__ import annotations

import os
from collections.abc import Sequence

from harness9.tools.bash import BashTool
from harness9.tools.edit_file import EditFileTool
from harness9.tools.environment import DEFAULT_TOOL_ENVIRONMENT, ToolEnvironment
from harness9.tools.read_file import ReadFileTool
from harness9.tools.registry import Middleware, Registry
from harness9.tools.write_file import WriteFileTool


def default_registry(
    workdir: str | os.PathLike[str],
    *,
    environment: ToolEnvironment = DEFAULT_TOOL_ENVIRONMENT,
    middleware: Sequence[Middleware] = (),
) -> Registry:
    """A registry of the four built-in tools acting on `workdir`, listed by hand as in the seed;
    `environment` filters what the processes they start see of the daemon's environment, and
    every call passes `middleware` (none by default: the seed's behaviour, no approval step)."""
    registry = Registry(middleware)
    registry.register(ReadFileTool(workdir))
    registry.register(WriteFileTool(workdir))
    registry.register(EditFileTool(workdir))
    registry.register(BashTool(workdir, environment=environment))
    return registry
