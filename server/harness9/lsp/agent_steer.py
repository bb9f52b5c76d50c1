"""`agent/steer`, `agent/queue` and `agent/unqueue`: talking to a session while it runs.

A steer that came too late for its run becomes the session's next run, started here (its
progress goes to this client like any run's; nobody waits for its answer)."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from harness9.lsp.agent_run import execute_run
from harness9.lsp.lsp_errors import wire_errors
from harness9.lsp.params import RunParams, SteerParams
from harness9.service.attachments import ContextItem
from harness9.service.config.settings import from_environment, resolve
from harness9.service.run_request import SteerOutcome

if TYPE_CHECKING:
    from harness9.lsp.server import Harness9Server

_log = logging.getLogger(__name__)
_started: set[asyncio.Task[Any]] = set()  # runs started for left-over steers, kept alive


async def steer(
    ls: Harness9Server, params: SteerParams, root: str, context: tuple[ContextItem, ...]
) -> dict[str, Any]:
    """The `agent/steer` result, once the steer is delivered or has become the next run (on
    `root`, the steered run's workspace)."""
    with wire_errors():
        outcome = await ls.service.turns.steer(params.run_id, params.prompt, context)
    if outcome.delivered == "next":
        _start_next(ls, params, root, context, outcome)
    return {"delivered": outcome.delivered, "runId": outcome.run_id}


def steer_root(ls: Harness9Server, run_id: str) -> str:
    """The workspace root of the run a steer names (its context is placed there); -32602
    naming `runId` for a run this client may not reach (its session belongs to a workspace
    that is not one of the client's)."""
    with wire_errors():
        session_id, root = ls.service.turns.place(run_id)
    try:
        ls.check_session(session_id)
    except JsonRpcInvalidParams as exc:
        raise JsonRpcInvalidParams(
            message=f"runId: {run_id} runs on a session this client may not reach "
            f"({exc.message})") from None
    return root


def _start_next(
    ls: Harness9Server, params: SteerParams, root: str, context: tuple[ContextItem, ...],
    outcome: SteerOutcome,
) -> None:
    run = RunParams(params.prompt, outcome.session_id, None, None, {}, params.context)
    settings = resolve(from_environment(os.environ), ls.client_settings)
    task = asyncio.create_task(
        execute_run(ls, ls.service, run, settings, root, context, claim=outcome.run_id)
    )
    _started.add(task)
    task.add_done_callback(_ended)


def _ended(task: asyncio.Task[Any]) -> None:
    _started.discard(task)
    if not task.cancelled() and task.exception() is not None:
        # Its progress (run_finished with the error) has told the client already.
        _log.info("run for a left-over steer ended: %s", task.exception())


def queued(ls: Harness9Server, session_id: str) -> dict[str, Any]:
    """The `agent/queue` result."""
    with wire_errors():
        waiting = ls.service.turns.queued(session_id)
    return {"queued": [
        {"queueId": entry.queue_id, "runId": entry.run_id, "prompt": entry.prompt,
         "position": position}
        for position, entry in waiting
    ]}


def unqueue(ls: Harness9Server, session_id: str, queue_id: str) -> dict[str, Any]:
    """The `agent/unqueue` result."""
    with wire_errors():
        return {"removed": ls.service.turns.unqueue(session_id, queue_id)}
