"""The tools of a run: the one answer to which tools a run is offered, and in what order.

A run, `agent/tools` and `harness9 tools` all ask `run_tools`, so what a client lists is what
the model is offered: the built-in tools, then the editor's language tools and its
`diagnostics` tool (for a front-end that has them), then the MCP servers' tools. A planning
run (approval mode plan) is offered the read tools, `update_plan` and read-only commands only
(see `command_sandbox`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness9.process.tool_environment import ToolEnvironment
from harness9.provider.factory import CREDENTIAL_VARIABLES
from harness9.schema import ToolKind
from harness9.service.config.settings import RunSettings
from harness9.service.runs.planning import command_sandbox, plan_mode_kinds, planning
from harness9.tools.bash import BashTool
from harness9.tools.contract import BaseTool
from harness9.tools.defaults import builtin_tools
from harness9.tools.language import language_tools
from harness9.tools.problems import DiagnosticsTool
from harness9.tools.task import Subagents, TaskTool
from harness9.workspace.port import DiskWorkspace

if TYPE_CHECKING:
    from harness9.service.run_request import RunWiring
    from harness9.workspace.seen_files import SeenFiles


def run_tools(
    root: str,
    settings: RunSettings,
    wiring: RunWiring | None = None,
    *,
    seen: SeenFiles | None = None,
    mcp_tools: Sequence[BaseTool] = (),
    subagents: Subagents | None = None,
) -> list[BaseTool]:
    """The tools a run on `root` with `settings` is offered, in order. The file tools go
    through the front-end's workspace (`wiring`; None: the disk) and keep what the session
    read and wrote in `seen` (the stale guard); the editor's tools come from `wiring`, and
    `mcp_tools` are the MCP servers' tools; `task` comes last, given `subagents`."""
    task = [TaskTool(subagents)] if subagents is not None else []
    if planning(settings):
        return _builtin(root, settings, wiring, seen, plan_mode_kinds(settings)) + task
    tools = _builtin(root, settings, wiring, seen, None)
    if wiring is not None and wiring.language is not None:
        files = wiring.workspace or DiskWorkspace(root)
        tools += language_tools(files, wiring.language)
    if wiring is not None and wiring.problems is not None:
        tools.append(DiagnosticsTool(wiring.problems, settings.diagnostics_wait_ms / 1000))
    return [*tools, *mcp_tools, *task]


def _builtin(
    root: str,
    settings: RunSettings,
    wiring: RunWiring | None,
    seen: SeenFiles | None,
    kinds: frozenset[ToolKind] | None,
) -> list[BaseTool]:
    sandboxed = command_sandbox(settings)
    return builtin_tools(
        root,
        environment=tool_environment(settings),
        sandbox=sandboxed.tool_sandbox(),
        workspace=wiring.workspace if wiring is not None else None,
        seen=seen,
        kinds=kinds,
    )


def setup_shell(root: str, settings: RunSettings) -> BaseTool:
    """The bash a task's setup script runs with in `root`: the run's sandbox and environment,
    ten minutes at most."""
    return BashTool(root, hard_timeout=600.0, environment=tool_environment(settings),
                    sandbox=command_sandbox(settings).tool_sandbox())


def tool_environment(settings: RunSettings) -> ToolEnvironment:
    """What tool processes see of the daemon's environment: never the credentials."""
    globs = settings.tool_environment
    return ToolEnvironment(globs.include, globs.exclude).protecting(CREDENTIAL_VARIABLES)
