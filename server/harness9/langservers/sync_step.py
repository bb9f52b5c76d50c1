"""Registry middleware that keeps the daemon's language servers in step with the run: a file
the model reads is opened in the servers that check it (which start then, so that an edit of
it need not wait for them), and the files a command changed are announced to the servers that
run (`workspace/didChangeWatchedFiles`; open files are synced again when next asked about)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from harness9.langservers.served_problems import sync_file
from harness9.langservers.server_pool import WorkspaceServers
from harness9.schema import ToolCall, ToolKind
from harness9.tools.contract import BaseTool, ToolOutput
from harness9.tools.registry import Proceed
from harness9.workspace.port import Workspace

_log = logging.getLogger("harness9.langservers")


class ServersInStep:
    """Opens what the model reads; notes what commands changed."""

    def __init__(self, servers: WorkspaceServers, workspace: Workspace) -> None:
        self._servers = servers
        self._workspace = workspace
        self._tasks: set[asyncio.Task[None]] = set()

    async def __call__(
        self, call: ToolCall, tool: BaseTool, arguments: dict[str, Any], proceed: Proceed
    ) -> str | ToolOutput:
        """Run the call, then bring the servers up to date with it."""
        output = await proceed()
        path = arguments.get("path")
        if (tool.definition().kind is ToolKind.READ and isinstance(path, str)
                and self._servers.configs_for(path)):
            task = asyncio.create_task(self._open(path), name=f"open {path}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        changes = output.changes if isinstance(output, ToolOutput) else None
        if changes is not None and changes.files:
            self._servers.mark_changed([f.path for f in changes.files])
        return output

    async def _open(self, path: str) -> None:
        try:
            await sync_file(self._workspace, await self._servers.for_file(path), path)
        except Exception as exc:  # a background step: the next query tells the model
            _log.info("language servers: opening %s failed: %s", path, exc)
