"""The registry of the four built-in tools, as the seed lists them."""

from __future__ import annotations

import os
from collections.abc import Sequence

from harness9.process.sandbox import SandboxPolicy
from harness9.process.tool_environment import DEFAULT_TOOL_ENVIRONMENT, ToolEnvironment
from harness9.tools.bash import BashTool
from harness9.tools.edit_file import EditFileTool
from harness9.tools.read_file import ReadFileTool
from harness9.tools.registry import Middleware, Registry
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
) -> Registry:
    """A registry of the four built-in tools acting on `workdir`, listed by hand as in the seed;
    `environment` filters what the processes they start see of the daemon's environment, and
    every call passes `middleware` (none by default: the seed's behaviour, no approval step);
    bash's commands run in the OS sandbox `sandbox` describes (None: none, as in the seed).
    The file tools read and write through `workspace` (default: the disk) and share `seen`,
    the files the session has read or written (default: none yet)."""
    files = workspace if workspace is not None else DiskWorkspace(workdir)
    known = seen if seen is not None else SeenFiles()
    registry = Registry(middleware)
    registry.register(ReadFileTool(workdir, workspace=files, seen=known))
    registry.register(WriteFileTool(workdir, workspace=files, seen=known))
    registry.register(EditFileTool(workdir, workspace=files, seen=known))
    registry.register(BashTool(workdir, environment=environment, sandbox=sandbox))
    return registry
