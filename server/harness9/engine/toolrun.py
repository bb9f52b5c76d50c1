"""Concurrent execution of one turn's tool calls, up to a cap at once, each with its own timeout."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial

from harness9.engine.events import EventBus, PlanUpdated, ToolFinished, ToolStarted
from harness9.engine.live_output import LiveOutput
from harness9.schema import ToolCall, ToolKind, ToolResult
from harness9.tools.contract import CALL_ID, CALL_STARTING, OUTPUT_SINK
from harness9.tools.registry import Registry, cancelled_result

DEFAULT_MAX_PARALLEL = 8


async def execute_concurrently(
    registry: Registry,
    calls: Sequence[ToolCall],
    results: list[ToolResult | None],
    *,
    turn: int,
    timeout: float | None,
    bus: EventBus,
    max_parallel: int = DEFAULT_MAX_PARALLEL,
) -> None:
    """Run the calls, at most `max_parallel` at once, and write each result at its call's index.

    The calls are taken in call order: `max_parallel` workers each take the next call not taken
    yet, so a queued call has not started, and its timeout starts only when its tool does. A
    call's `ToolStarted` comes once the approval step let it go (a call waiting for an answer
    has not started; calls nobody is asked about start in call order); a call refused before
    its tool runs (denied, rejected, unknown tool, bad arguments) has no `ToolStarted`, only its
    `ToolFinished`. One call timing out or failing does not affect its siblings. On
    cancellation every call still running is stopped (its own cleanup runs, e.g. bash kills
    its process group), every call not finished, running or queued, gets a `cancelled` result
    and a `ToolFinished` event, and the cancellation propagates.
    """
    started = time.monotonic()
    pending: Iterator[tuple[int, ToolCall]] = iter(enumerate(calls))

    async def worker() -> None:
        # Taking from one shared iterator is safe: there is no await between check and take.
        for index, call in pending:
            kind = registry.kind_of(call.name)
            announce = _Once(partial(_started, bus, turn, call, kind))
            live = LiveOutput(bus, turn, call)
            result = await _execute(registry, call, timeout, live, announce)
            results[index] = result
            bus.emit(ToolFinished(turn=turn, call=call, result=result, tool_kind=kind))
            if result.plan is not None:
                bus.emit(PlanUpdated(turn=turn, plan=result.plan))

    workers = [asyncio.create_task(worker()) for _ in range(min(max_parallel, len(calls)))]
    try:
        await asyncio.gather(*workers)
    except asyncio.CancelledError:
        await _stopped(workers)
        elapsed = round((time.monotonic() - started) * 1000, 3)
        for index, call in enumerate(calls):
            if results[index] is None:
                result = cancelled_result(call, elapsed)
                results[index] = result
                kind = registry.kind_of(call.name)
                bus.emit(ToolFinished(turn=turn, call=call, result=result, tool_kind=kind))
        raise


async def _stopped(workers: list[asyncio.Task[None]]) -> None:
    """Wait for cancelled workers to end, their cleanup included."""
    # gather has already cancelled every worker, but it raises as soon as the first one ends:
    # cancelling the others again would cut their cleanup short (bash reaping its process).
    for task in workers:
        if not task.cancelling():
            task.cancel()
    await asyncio.gather(*workers, return_exceptions=True)


async def _execute(
    registry: Registry,
    call: ToolCall,
    timeout: float | None,
    live: LiveOutput,
    starting: Callable[[str | None], None],
) -> ToolResult:
    """Run one call with its live output connected (tools that stream it report there) and
    `starting` called when its tool is about to run."""
    sink = OUTPUT_SINK.set(live.feed)
    hook = CALL_STARTING.set(starting)
    named = CALL_ID.set(call.unique_id)
    try:
        return await registry.execute(call, timeout)
    finally:
        CALL_ID.reset(named)
        CALL_STARTING.reset(hook)
        OUTPUT_SINK.reset(sink)
        live.close()


def _started(bus: EventBus, turn: int, call: ToolCall, kind: ToolKind, sandbox: str | None
             ) -> None:
    bus.emit(ToolStarted(turn=turn, call=call, tool_kind=kind, sandbox=sandbox))


class _Once:
    """A hook that acts on its first call only (a call is reported started once)."""

    def __init__(self, action: Callable[[str | None], None]) -> None:
        self._action: Callable[[str | None], None] | None = action

    def __call__(self, sandbox: str | None) -> None:
        action, self._action = self._action, None
        if action is not None:
            action(sandbox)
