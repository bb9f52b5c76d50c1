"""`TurnDesk`: the facade's runs (`AgentService.turns`): a prompt's run, the runs queued on a
session, steering a run, and cancelling one.

A prompt that invokes a slash command is settled here, above the run core: it runs as the
prompt the command stands for, or (a built-in that needs no model) as a run of its own
(`commands/`); every other prompt goes to the run core (`runs/prompt_run.py`) as it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from harness9.service.attachments import ContextItem
from harness9.service.commands.catalog import invocation
from harness9.service.commands.command_runs import CommandDesks, model_request, run_command
from harness9.service.run_request import RunOutcome, RunRequest, SteerOutcome, Wire
from harness9.service.runs.prompt_run import PromptRuns, RunParts
from harness9.service.runs.session_queue import QueuedRun


class TurnDesk:
    """The runs of the sessions of `parts`; built-in commands act on `commands`."""

    def __init__(self, parts: RunParts, commands: CommandDesks) -> None:
        self._parts = parts
        self._core = PromptRuns(parts)
        self._commands = commands

    async def run(self, request: RunRequest, wire: Wire) -> RunOutcome:
        """Run `request` in the current task (which cancelling the run cancels); see
        `PromptRuns.run`. A prompt that invokes a slash command runs it."""
        called = invocation(request.prompt)
        if called is not None:
            expanded = model_request(request, called)
            if expanded is None:
                return await run_command(self._commands, request, called, wire)
            request = expanded
        return await self._core.run(request, wire)

    async def steer(
        self, run_id: str, prompt: str, context: Sequence[ContextItem] = ()
    ) -> SteerOutcome:
        """Give a running run a message before its next model call (see `SessionTurns.steer`);
        `UnknownRun`."""
        return await self._parts.turns.steer(run_id, prompt, context)

    def place(self, run_id: str) -> tuple[str, str]:
        """The session and workspace root of a run that runs, waits or just ended;
        `UnknownRun`."""
        return self._parts.turns.place_of(run_id)

    def queued(self, session_id: str) -> list[tuple[int, QueuedRun]]:
        """The session's queued runs with their positions; `UnknownSession`."""
        self._parts.sessions.known(session_id)
        return self._parts.turns.queued(session_id)

    def unqueue(self, session_id: str, queue_id: str) -> bool:
        """Take a queued run out of its session's queue (its request ends cancelled);
        `UnknownSession`."""
        self._parts.sessions.known(session_id)
        return self._parts.turns.unqueue(session_id, queue_id)

    async def cancel(self, run_id: str | None, session_id: str | None) -> bool:
        """Cancel a run by its id or its session's (the running one: the session's queue goes
        on), also a queued run by its id; returns once it has ended (False: none)."""
        run = self._parts.store.find_run(run_id, session_id)
        task = run.task if run is not None else None
        if task is None and run_id is not None:
            task = self._parts.turns.waiting_task(run_id)
        if task is None:
            return False
        task.cancel()
        # The run task's done-callbacks (a front-end writes its answer there) run before this
        # waiter wakes.
        await asyncio.wait({task})
        return True
