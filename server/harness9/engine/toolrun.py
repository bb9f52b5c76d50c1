"""Concurrent execution of one turn's tool calls, each with its own timeout."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from harness9.engine.events import EventBus, ToolFinished, ToolStarted
from harness9.schema import ToolCall, ToolResult
from harness9.tools.registry import Registry, cancelled_result


async def execute_concurrently(
    registry: Registry,
    calls: Sequence[ToolCall],
    results: list[ToolResult | None],
    *,
    turn: int,
    timeout: float | None,
    bus: EventBus,
) -> None:
    """Run every call at once and write each result at its call's index (the seed's layout).

    One call timing out or failing does not affect its siblings. On cancellation every call still
    running is stopped (its own cleanup runs, e.g. bash kills its process group), gets a
    `cancelled` result and a `ToolFinished` event, and the cancellation propagates.
    """
    started = time.monotonic()

    async def one(index: int, call: ToolCall) -> None:
        bus.emit(ToolStarted(turn=turn, call=call))
        result = await registry.execute(call, timeout)
        results[index] = result
        bus.emit(ToolFinished(turn=turn, call=call, result=result))

    tasks = [asyncio.create_task(one(i, call)) for i, call in enumerate(calls)]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        elapsed = round((time.monotonic() - started) * 1000, 3)
        for index, call in enumerate(calls):
            if results[index] is None:
                result = cancelled_result(call, elapsed)
                results[index] = result
                bus.emit(ToolFinished(turn=turn, call=call, result=result))
        raise
