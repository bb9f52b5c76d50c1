"""The registry of the built-in tools: the seed's four, as it lists them, and `update_plan`."""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Sequence

from harness9.process.sandbox import SandboxPolicy
from harness9.process.tool_environment import DEFAULT_TOOL_ENVIRONMENT, ToolEnvironment
from harness9.schema import ToolKind
from harness9.tools.bash import BashTool
from harness9.tools.contract import BaseTool
from harness9.tools.edit_file import EditFileTool
from harness9.tools.read_file import ReadFileTool
from harness9.tools.registry import Middleware, Registry
from harness9.tools.update_plan import UpdatePlanTool
from harness9.tools.write_file import WriteFileTool
from harness9.workspace.port import DiskWorkspace, Workspace
from harness9.workspace.seen_files import SeenFiles


def default_registry(
    workdir: str | os.PathLike[str],
    *,
    environment: ToolEnvironment = DEFAULT_TOOL_ENVIRONMENT,
    sandbox: SandboxPolicy | None = None,
    middleware: Sequence[Middleware] = (),
    workspace: Workspace | None = None,
    seen: SeenFiles | None = None,
    kinds: Collection[ToolKind] | None = None,
) -> Registry:
    """A registry of the built-in tools acting on `workdir` (see `builtin_tools`); every call
    passes `middleware` (none by default: the seed's behaviour, no approval step)."""
    registry = Registry(middleware)
    for tool in builtin_tools(workdir, environment=environment, sandbox=sandbox,
                              workspace=workspace, seen=seen, kinds=kinds):
        registry.register(tool)
    return registry


def builtin_tools(
    workdir: str | os.PathLike[str],
    *,
    environment: ToolEnvironment = DEFAULT_TOOL_ENVIRONMENT,
    sandbox: SandboxPolicy | None = None,
    workspace: Workspace | None = None,
    seen: SeenFiles | None = None,
    kinds: Collection[ToolKind] | None = None,
) -> list[BaseTool]:
    """The built-in tools acting on `workdir` (the seed's four, listed by hand as in the seed,
    then `update_plan`), or those of `kinds` only;
    `environment` filters what the processes they start see of the daemon's environment;
    bash's commands run in the OS sandbox `sandbox` describes (None: none, as in the seed).
    The file tools read and write through `workspace` (default: the disk) and share `seen`,
    the files the session has read or written (default: none yet)."""
    files = workspace if workspace is not None else DiskWorkspace(workdir)
    known = seen if seen is not None else SeenFiles()
    tools: list[BaseTool] = [
        ReadFileTool(workdir, workspace=files, seen=known),
        WriteFileTool(workdir, workspace=files, seen=known),
        EditFileTool(workdir, workspace=files, seen=known),
        BashTool(workdir, environment=environment, sandbox=sandbox),
        UpdatePlanTool(),
    ]
    return [tool for tool in tools if kinds is None or tool.definition().kind in kinds]


def builtin_kind(name: str) -> ToolKind:
    """The kind of the built-in tool called `name` (`other` for any other name)."""
    return _builtin_kinds().get(name, ToolKind.OTHER)


@functools.cache
def _builtin_kinds() -> dict[str, ToolKind]:
    return {tool.name: tool.definition().kind for tool in builtin_tools(".")}
