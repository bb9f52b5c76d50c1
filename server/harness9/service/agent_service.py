"""`AgentService`: the one facade every front-end calls, in five groups:

```
service.sessions     SessionDesk      make, find, list, show, delete, compact a session; its
                                      approval mode and model
service.checkpoints  CheckpointDesk   a session's checkpoints, and restores to them
service.turns        TurnDesk         run a prompt (a slash command's run too), steer, queue,
                                      cancel
service.models       ModelDirectory   the models the configured services offer
service.tasks        TaskDesk         background tasks in worktrees: list, apply, discard
```

and what belongs to the daemon as a whole: the tools a run is offered, a client done with a
session, and the daemon's end. Failures come out as the errors of `service_errors`. Nothing
here knows a wire protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from harness9.service.background import Background
from harness9.service.checkpoints.keeper import CheckpointKeeper
from harness9.service.commands.command_runs import CommandDesks
from harness9.service.config.models import ModelDirectory
from harness9.service.config.settings import RunSettings
from harness9.service.run_request import RunRequest, RunWiring
from harness9.service.runs.agents import available_agents
from harness9.service.runs.checkpoint_desk import CheckpointDesk
from harness9.service.runs.mcp_servers import McpServers
from harness9.service.runs.own_servers import OwnServers
from harness9.service.runs.prompt_run import RunParts
from harness9.service.runs.run_tools import run_tools
from harness9.service.runs.session_desk import SessionDesk
from harness9.service.runs.session_turns import SessionTurns
from harness9.service.runs.subagents import AgentsListed
from harness9.service.sessions.session_store import SessionStore
from harness9.service.state import state_dir
from harness9.service.turn_desk import TurnDesk
from harness9.service.worktrees.task_desk import TaskDesk
from harness9.tools.contract import BaseTool
from harness9.workspace.port import DiskWorkspace


class AgentService:
    """The sessions of one daemon and the runs on them. Sessions are stored under `state`
    (default: the state directory; None keeps them in memory only). The settings' MCP servers
    are the daemon's; a session's own MCP servers are that session's."""

    def __init__(self, state: Path | Literal["default"] | None = "default") -> None:
        # A session is held (locked against other daemons) while runs hold or wait for it.
        self._turns = turns = SessionTurns(
            on_idle=lambda session_id: self._store.let_go_soon(session_id))
        self._store = SessionStore(state_dir() if state == "default" else state,
                                   in_use=turns.busy)
        self.tasks = TaskDesk(state_dir() if not isinstance(state, Path) else state)
        background = Background()
        keeper = CheckpointKeeper(background)
        self._mcp = McpServers(self._is_running, background)
        self.own_servers = OwnServers()
        self.sessions = SessionDesk(self._store, turns)
        self.checkpoints = CheckpointDesk(keeper, self.sessions, self._store)
        self.models = ModelDirectory()
        parts = RunParts(self._store, self.sessions, turns, keeper, self._mcp,
                         self.own_servers, self.tasks)
        self.turns = TurnDesk(parts, CommandDesks(self.sessions, self.checkpoints, self.models))

    async def tools(
        self,
        root: str,
        settings: RunSettings,
        wiring: RunWiring | None = None,
        warn: Callable[[str], None] = lambda _: None,
    ) -> list[BaseTool]:
        """The tools a run on `root` with `settings` and the front-end's `wiring` is offered
        (see `run_tools`; the daemon's own language servers stand in for the problems and
        language queries the front-end does not give), starting the MCP servers not running
        yet; `warn` hears about servers and tools left out."""
        mcp_tools = await self._mcp.tools(settings, warn)
        wiring = wiring or RunWiring()
        files = wiring.workspace or DiskWorkspace(root)
        wiring = self.own_servers.wire(RunRequest("", root, settings), wiring, files).wiring
        agents = AgentsListed(await asyncio.to_thread(available_agents, root))
        return run_tools(root, settings, wiring, mcp_tools=mcp_tools, subagents=agents)

    async def agents(self, root: str) -> list[dict[str, object]]:
        """The agents a `task` call on `root` may run, as `agent/agents` lists them (their
        folders are read off the event loop)."""
        found = await asyncio.to_thread(available_agents, root)
        return [agent.as_wire() for agent in found]

    def session_roots(self, session_id: str) -> set[str]:
        """The workspace roots a session has worked on (see `SessionDesk.roots`); a task's
        worktree counts as its workspace."""
        return self.tasks.as_workspaces(session_id, self.sessions.roots(session_id))

    async def cancel(self, run_id: str | None, session_id: str | None) -> bool:
        """Cancel a run (see `TurnDesk.cancel`)."""
        return await self.turns.cancel(run_id, session_id)

    async def close_session(self, session_id: str) -> None:
        """A client is done with a session: its run is cancelled, its queued prompts removed,
        its own MCP servers stopped, and its stored copy let go (it stays stored)."""
        for _, queued in self._turns.queued(session_id):
            self._turns.unqueue(session_id, queued.queue_id)
        await self.turns.cancel(None, session_id)
        await self._mcp.close_session(session_id)
        self.sessions.release(session_id)

    async def shutdown(self) -> None:
        """Stop what the daemon started for its runs (the MCP servers, shared and sessions',
        and its language servers)."""
        await asyncio.gather(self._mcp.shutdown(), self.own_servers.shutdown())

    def close(self) -> None:
        """Release the stored sessions this daemon holds (at shutdown)."""
        self.sessions.close()

    def _is_running(self, session_id: str) -> bool:
        session = self.sessions.get(session_id)
        return session is not None and session.active is not None
